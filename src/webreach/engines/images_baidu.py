"""Baidu Images, scraped: a cookie warm-up (GET image.baidu.com/, the first Set-Cookie pair kept for the engine,
as for 360), then GET /search/acjson?tn=resultjson_com&word=...: JSON whose data[] items carry thumbURL,
middleURL, objURL (the image), fromURL (the page), fromURLHost, fromPageTitle, width and height. The search page
(/search/index?tn=baiduimage) holds the same items in `flip.setData('imgData', {...})`; both are read.

objURL and fromURL may be obfuscated ("ippr_z2C$q..."): Baidu's substitution (`_z2C$q` ':', `_z&e3B` '.',
`AzdH3F` '/', then a fixed letter/digit table) is undone offline; `replaceUrl[0]` (ObjURL, FromURL) wins when
given. Blocks: `antiFlag: 1` ("Forbid spider access") and the web engine's security-check redirect and page.
Baidu's image search takes none of the size, type, colour or licence filters, nor safesearch, through this route.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx

from webreach.engines._base import COOKIE_TOKEN, Tokens, session_cookie
from webreach.engines._html import MAX_ITEMS
from webreach.engines._images import ImageSearchEngine
from webreach.engines.baidu import CAPTCHA_TITLE, Baidu
from webreach.errors import BlockedError
from webreach.models import Hit, SearchRequest

PAGE_DATA = re.compile(r"""setData\(\s*['"]imgData['"]\s*,\s*""")
WORDS = (("_z2C$q", ":"), ("_z&e3B", "."), ("AzdH3F", "/"))
LETTERS = str.maketrans("wkv1ju2it3hs4g5rq6fp7eo8dn9cm0bla", "abcdefghijklmnopqrstuvw1234567890")


class ImagesBaidu(ImageSearchEngine, Baidu):
    """Baidu image search (acjson)."""

    name = "images_baidu"

    def warm_up(self, request: SearchRequest) -> httpx.Request | None:
        return httpx.Request("GET", self.url("/"), headers=self._headers())

    def read_warm_up(self, response: httpx.Response) -> dict[str, str]:
        return session_cookie(response)  # one cookie per engine: it identifies the client, not the query

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        params = {"tn": "resultjson_com", "ipn": "rj", "word": request.query, "queryWord": request.query,
                  "pn": "0", "rn": str(min(request.limit, 30)), "ie": "utf-8", "oe": "utf-8"}  # fmt: skip
        headers = self._headers()
        cookie = (tokens or {}).get(COOKIE_TOKEN)
        if cookie:
            headers["Cookie"] = cookie
        return httpx.Request("GET", self.url("/search/acjson"), params=params, headers=headers)

    def _headers(self) -> dict[str, str]:
        return self.browser_headers(**{"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8", "Referer": self.url("/")})

    def parse(self, response: httpx.Response) -> list[Hit]:
        text = response.text
        if CAPTCHA_TITLE in text[:4000] and "<title" in text[:4000]:
            raise self._captcha()
        data = _answer(text)
        if data is None:
            raise self.parse_error("neither acjson JSON nor the page's imgData")
        if data.get("antiFlag") == 1:
            raise BlockedError(f"refused us ({str(data.get('message'))[:80]})", engine=self.name)
        items = data.get("data")
        if not isinstance(items, list):
            raise self.parse_error("no data list in the answer")
        kept = [item for item in items[:MAX_ITEMS] if isinstance(item, dict) and item]
        return self.image_hits(self._image(rank, item) for rank, item in enumerate(kept, 1))

    def _image(self, rank: int, item: dict[str, Any]) -> Hit | None:
        replaced = item.get("replaceUrl")
        first = replaced[0] if isinstance(replaced, list) and replaced and isinstance(replaced[0], dict) else {}
        image = decode_url(first.get("ObjURL") or item.get("objURL"))
        page = decode_url(first.get("FromURL") or item.get("fromURL"))
        return self.image_hit(
            rank, image, page_url=page, title=item.get("fromPageTitle") or item.get("fromPageTitleEnc"),
            thumbnail_url=item.get("middleURL") or item.get("thumbURL"), width=item.get("width"),
            height=item.get("height"), source=item.get("fromURLHost"),
        )  # fmt: skip


def decode_url(value: Any) -> Any:
    """Baidu's obfuscated URL ("ippr_z2C$q...") in the clear; anything else unchanged."""
    if not isinstance(value, str) or not value.startswith("ippr"):
        return value
    for word, plain in WORDS:
        value = value.replace(word, plain)
    return value.translate(LETTERS)


def _answer(text: str) -> dict[str, Any] | None:
    """The acjson object, or the page's imgData object (Baidu escapes ' as \\' in both, which JSON refuses)."""
    stripped = text.lstrip()
    start = 0 if stripped.startswith("{") else None
    if start is None:
        found = PAGE_DATA.search(text)
        if found is None:
            return None
        text, start = text[found.end() :], 0
    else:
        text = stripped
    try:
        value, _ = json.JSONDecoder(strict=False).raw_decode(text.replace("\\'", "'"), start)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
