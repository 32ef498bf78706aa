"""Bing visual search (scraped; upload): the image goes up, the insights come back as JSON.

Two requests, as bing.com's own "search using an image" does it:
1. POST /images/search?view=detailv2&iss=sbiupload with multipart cbir=sbi and imageBin=<base64>: a page that
   names the upload's insights token (`bcid_...`);
2. POST /images/api/custom/knowledge?insightsToken=<bcid> with multipart knowledgeRequest (JSON): the answer in
   Bing Visual Search's documented shape: tags[].actions[] where actionType "PagesIncluding" lists pages holding
   the same image (exact) and "VisualSearch" lists similar images (visual), each data.value[] item with name,
   hostPageUrl, contentUrl, thumbnailUrl, width, height.
Blocks: a redirect to /turing/captcha or a page with Bing's challenge (the web engine's markers) is a CAPTCHA.
No real capture exists (PROVENANCE.md gaps): the fake web's recordings follow the documented shape, said so.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

import httpx

from webreach.errors import BlockedError
from webreach.images.reverse._base import ReverseBackend, Send, kept
from webreach.images.reverse.models import MatchKind, ReverseHit, ReverseQuery

INSIGHTS_TOKEN = re.compile(r"(bcid_[A-Za-z0-9._-]{4,200})")
CHALLENGE_MARKERS = ("/turing/captcha", 'id="b_captcha"', "turnstile-widget", "captcha_header")
ACTIONS: dict[str, MatchKind] = {"PagesIncluding": "exact", "VisualSearch": "visual"}


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _field(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


class BingVisual(ReverseBackend):
    index = "bing_images"
    kind = "scraped"
    base_url = "https://www.bing.com"
    takes_upload = True

    async def search(self, query: ReverseQuery, send: Send) -> list[ReverseHit]:
        token = self.insights_token(await send(self._upload(query)))
        params = {"insightsToken": token, "iss": "sbi", "FORM": "SBIHMP", "mkt": "en-us", "setLang": "en-us"}
        knowledge = {"imageInfo": {"imageInsightsToken": token, "source": "Gallery"}}
        files = {"knowledgeRequest": (None, json.dumps(knowledge), "application/json")}
        headers = self.rules.browser_headers(Accept="application/json")
        url = self.rules.url("/images/api/custom/knowledge")
        return self.parse(self.answer(await send(httpx.Request("POST", url, params=params, files=files,
                                                                 headers=headers))))  # fmt: skip

    def _upload(self, query: ReverseQuery) -> httpx.Request:
        files = {"cbir": (None, "sbi"), "imageBin": (None, base64.b64encode(query.data).decode("ascii"))}
        params = {"view": "detailv2", "iss": "sbiupload"}
        return httpx.Request(
            "POST", self.rules.url("/images/search"), params=params, files=files, headers=self.rules.browser_headers()
        )

    def insights_token(self, response: httpx.Response) -> str:
        """The upload's bcid token, or BlockedError (a challenge) / ParseError (a page without one)."""
        location = response.headers.get("location", "")
        if any(marker in location or marker in response.text for marker in CHALLENGE_MARKERS):
            raise BlockedError("answered the upload with its challenge page", kind="captcha", engine=self.name)
        self.rules.check_response(response)
        match = INSIGHTS_TOKEN.search(response.text)
        if match is None:
            raise self.rules.parse_error("the upload's answer names no insights token (bcid)")
        return match.group(1)

    def parse(self, data: dict[str, Any]) -> list[ReverseHit]:
        hits: list[ReverseHit | None] = []
        for tag in _dicts(data.get("tags")):
            for action in _dicts(tag.get("actions")):
                kind = action.get("actionType")
                match = ACTIONS.get(kind) if isinstance(kind, str) else None
                values = _dicts(_field(action.get("data"), "value")) if match else []
                hits += [self._hit(rank, item, match) for rank, item in enumerate(values, 1) if match]
        return kept(hits)

    def _hit(self, rank: int, item: Any, match: MatchKind) -> ReverseHit | None:
        if not isinstance(item, dict):
            return None
        return self.hit(
            rank, match=match, title=item.get("name"), page_url=item.get("hostPageUrl"),
            image_url=item.get("contentUrl"), thumbnail_url=item.get("thumbnailUrl"), width=item.get("width"),
            height=item.get("height"),
        )  # fmt: skip
