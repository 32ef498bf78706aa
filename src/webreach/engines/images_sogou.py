"""Sogou Images, scraped: GET pic.sogou.com/pics?query=...&start=0; the page's `window.__INITIAL_STATE__ = {...}`
holds searchList.searchList[] with url (the page), picUrl (the image), thumbUrl, title, ch_site_name, width and
height (SearXNG's sogou_images reads the same state).

Shares sogou's settings (not its origin) and its antispider handling (redirects to /antispider, the verification
page). A page whose state holds an empty list is "no results"; a page without the state is a ParseError. Sogou's
image search takes no filters through this route.
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

import httpx

from webreach.engines._base import Tokens
from webreach.engines._html import MAX_ITEMS
from webreach.engines._images import ImageSearchEngine
from webreach.engines.sogou import ANTISPIDER_MARKERS, Sogou
from webreach.errors import BlockedError
from webreach.models import Hit, SearchRequest

STATE = re.compile(r"window\.__INITIAL_STATE__\s*=\s*")


class ImagesSogou(ImageSearchEngine, Sogou):
    """Sogou image search result pages."""

    name = "images_sogou"
    ignores: ClassVar[frozenset[str]] = frozenset({"limit"})  # takes no count: respond() trims

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        headers = self.browser_headers(**{"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"})
        return httpx.Request("GET", self.url("/pics"), params={"query": request.query, "start": "0"}, headers=headers)

    def parse(self, response: httpx.Response) -> list[Hit]:
        text = response.text
        state = _state(text)
        if state is None:
            if any(marker in text for marker in ANTISPIDER_MARKERS):
                raise BlockedError("answered with its antispider verification page", kind="captcha", engine=self.name)
            raise self.parse_error("no __INITIAL_STATE__ with a search list on the page")
        listing = state.get("searchList")
        items = listing.get("searchList") if isinstance(listing, dict) else None
        if not isinstance(items, list):
            raise self.parse_error("the page state holds no searchList")
        kept = [item for item in items[:MAX_ITEMS] if isinstance(item, dict)]
        return self.image_hits(self._image(rank, item) for rank, item in enumerate(kept, 1))

    def _image(self, rank: int, item: dict[str, Any]) -> Hit | None:
        return self.image_hit(
            rank, item.get("oriPicUrl") or item.get("picUrl"), page_url=item.get("url"), title=item.get("title"),
            thumbnail_url=item.get("thumbUrl") or item.get("picUrl"), width=item.get("width"),
            height=item.get("height"), source=item.get("ch_site_name"),
        )  # fmt: skip


def _state(text: str) -> dict[str, Any] | None:
    found = STATE.search(text)
    if found is None:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text, found.end())
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
