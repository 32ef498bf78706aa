"""Bing Images, scraped: GET /images/search; each result is an `a.iusc` whose `m` attribute holds the result as
HTML-escaped JSON (murl: the image, purl: the page, turl: the thumbnail, t: the title); the pixel size travels
in the link's expw/exph parameters.

Shares bing's settings and its block handling (CAPTCHA redirects to /turing/captcha, the "One last step" page).
Filters go in `qft` as Bing's own filter menu writes them (+filterui:imagesize-large, ...); safesearch is
`adlt`. A page without a.iusc results and without Bing's no-results notice (`.b_no`) is a ParseError.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx

from webreach.engines._base import Tokens
from webreach.engines._html import MAX_ITEMS, attribute, parse_html
from webreach.engines._images import ImageSearchEngine
from webreach.engines.bing import CHALLENGE, Bing
from webreach.errors import BlockedError
from webreach.models import Hit, SearchRequest

SIZE: Mapping[str, str] = MappingProxyType(
    {
        "small": "imagesize-small",
        "medium": "imagesize-medium",
        "large": "imagesize-large",
        "wallpaper": "imagesize-wallpaper",
    }
)
TYPE: Mapping[str, str] = MappingProxyType(
    {"photo": "photo-photo", "clipart": "photo-clipart", "line": "photo-linedrawing", "gif": "photo-animatedgif",
     "transparent": "photo-transparent"}
)  # fmt: skip
LICENCE: Mapping[str, str] = MappingProxyType(
    {"public": "licenseType-Any", "share": "license-L2_L3_L4_L5_L6_L7", "share_commercially": "license-L2_L3_L4",
     "modify": "license-L2_L3_L5_L6", "modify_commercially": "license-L2_L3"}
)  # fmt: skip


class ImagesBing(ImageSearchEngine, Bing):
    """Bing image search result pages."""

    name = "images_bing"

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        params = {"q": request.query, "form": "HDRSC2", "first": "1", "count": str(request.limit),
                  "adlt": request.safesearch}  # fmt: skip
        filters = [SIZE.get(request.size or ""), TYPE.get(request.type or ""), LICENCE.get(request.licence or "")]
        if request.colour:
            filters.append(
                "color2-"
                + {"color": "color", "monochrome": "bw"}.get(request.colour, f"FGcls_{request.colour.upper()}")
            )
        wanted = [f"+filterui:{value}" for value in filters if value]
        if wanted:
            params["qft"] = "".join(wanted)
        return httpx.Request("GET", self.url("/images/search"), params=params, headers=self.browser_headers())

    def parse(self, response: httpx.Response) -> list[Hit]:
        tree = parse_html(response.text)
        if tree.css_first(CHALLENGE) is not None:
            raise BlockedError("answered with its 'One last step' challenge page", kind="captcha", engine=self.name)
        links = tree.css("a.iusc")[:MAX_ITEMS]
        hits = self.image_hits(
            self._image(rank, attribute(link, "m"), attribute(link, "href")) for rank, link in enumerate(links, 1)
        )
        if not hits and tree.css_first(".b_no") is None:
            raise self.parse_error("no a.iusc image results and no no-results notice on the page")
        return hits

    def _image(self, rank: int, metadata: str, href: str) -> Hit | None:
        try:
            item = json.loads(metadata)
        except (ValueError, RecursionError):  # a broken or absurdly nested m attribute: that result only
            return None
        if not isinstance(item, dict):
            return None
        size = parse_qs(urlsplit(href).query)
        return self.image_hit(
            rank, item.get("murl"), page_url=item.get("purl"), title=item.get("t") or item.get("desc"),
            thumbnail_url=item.get("turl"), width=_first(size.get("expw")), height=_first(size.get("exph")),
        )  # fmt: skip


def _first(values: Any) -> str | None:
    return values[0] if isinstance(values, list) and values else None
