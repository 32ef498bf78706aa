"""Yandex reverse image search (scraped; upload): POST /images/search?rpt=imageview&cbir_page=sites with the
image as multipart `upfile` (and prg=1), as yandex.com's own upload form does.

Yandex answers with the results page, or a redirect to it on the same origin (followed once, with GET). The
results are JSON in the data-state attribute of the page's `div.Root[id^="ImagesApp-"]`: initialState.cbirSites
.sites[] with title, url (the page), domain, description, thumb.url, originalImage {url, width, height}: pages
holding the image, so "exact". Blocks: a redirect to /showcaptcha or a SmartCaptcha page is a CAPTCHA. No real
capture of the page exists (PROVENANCE.md gaps; SerpApi's parsed JSON of it is serpapi_yandex's): the parser
reads the structure PicImageSearch's Yandex parser reads, and the fake web's recording is written from it.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from webreach.engines import attribute, parse_html
from webreach.errors import BlockedError
from webreach.images.reverse._base import ReverseBackend, Send, kept, upload_name
from webreach.images.reverse.models import ReverseHit, ReverseQuery

CAPTCHA_MARKERS = ("showcaptcha", "SmartCaptcha", "checkbox-captcha")
STATE = 'div.Root[id^="ImagesApp-"]'


def _field(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def _absolute(url: Any) -> Any:
    return f"https:{url}" if isinstance(url, str) and url.startswith("//") else url


class Yandex(ReverseBackend):
    index = "yandex_images"
    kind = "scraped"
    base_url = "https://yandex.com"
    takes_upload = True

    async def search(self, query: ReverseQuery, send: Send) -> list[ReverseHit]:
        params = {"rpt": "imageview", "cbir_page": "sites"}
        files = {"upfile": (upload_name(query.mime), query.data, query.mime)}
        url = self.rules.url("/images/search")
        headers = self.rules.browser_headers()
        response = await send(httpx.Request("POST", url, params=params, data={"prg": "1"}, files=files,
                                            headers=headers))  # fmt: skip
        if response.is_redirect:
            response = await send(httpx.Request("GET", self._same_origin(response), headers=headers))
        return self.parse_page(response)

    def _same_origin(self, response: httpx.Response) -> str:
        location = response.headers.get("location", "")
        self._check_captcha(location)
        target = urljoin(self.rules.url("/images/search"), location)
        if urlsplit(target).netloc != urlsplit(self.rules.origin).netloc:
            self.rules.check_redirect(response)  # raises: results never live on another host
        return str(target)

    def _check_captcha(self, text: str) -> None:
        if any(marker in text for marker in CAPTCHA_MARKERS):
            raise BlockedError("answered with its CAPTCHA page", kind="captcha", engine=self.name)

    def parse_page(self, response: httpx.Response) -> list[ReverseHit]:
        self._check_captcha(response.headers.get("location", ""))
        self.rules.check_response(response)
        self._check_captcha(response.text[:20_000])
        state = attribute(parse_html(response.text).css_first(STATE), "data-state")
        if not state:
            raise self.rules.parse_error("the page has no results state (div.Root ImagesApp data-state)")
        try:
            decoded = json.loads(state)
        except (ValueError, RecursionError):  # a hostile state nested past the parser's depth too
            raise self.rules.parse_error("the page's results state is not JSON") from None
        sites = _field(_field(_field(decoded, "initialState"), "cbirSites"), "sites")
        if not isinstance(sites, list):
            raise self.rules.parse_error("the results state has no cbirSites.sites list")
        return kept([self._hit(rank, site) for rank, site in enumerate(sites, 1) if isinstance(site, dict)])

    def _hit(self, rank: int, site: dict[str, Any]) -> ReverseHit | None:
        original = site.get("originalImage")
        return self.hit(
            rank, match="exact", title=site.get("title"), page_url=site.get("url"),
            image_url=_absolute(_field(original, "url")), thumbnail_url=_absolute(_field(site.get("thumb"), "url")),
            source=site.get("domain"), width=_field(original, "width"), height=_field(original, "height"),
        )  # fmt: skip
