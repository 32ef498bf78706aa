"""Yahoo: Bing-backed results scraped from Yahoo's HTML results page (search.yahoo.com/search).

Decisions:
- Results are `div.algo` (current markup: `div.compTitle a` wrapping the `h3` title, `div.compText` snippet)
  or, on older pages, `#web li div.res` (`h3 a`, `div.abstr`, `span.url`). Ads (`bing.com/aclick`, Yahoo's
  `/cbclk` click URLs, anything inside an `*Ads` container) are skipped.
- Links may be `r.search.yahoo.com/.../RU=<percent-encoded target>/RK=.../RS=...` redirects; the target is
  decoded. Some pages carry direct links already; those are kept as they are.
- Parameters: `p` (query, with `site:`), `b` (1-based offset), `pz` (results per page = limit), `btf=d|w|m`
  (freshness; Yahoo has no year filter, so "year" is reported unsupported), and the `sB` preferences cookie
  for language (`vl=lang_xx`) and safesearch (`vm=p|i|r`). Region would need a regional host
  (uk.search.yahoo.com ...) that would bypass a configured base_url, so it is not offered.
- The "<date> · " prefix Yahoo copies from Bing is split off the snippet (engines/_dates.py).
- Blocks: HTTP 999 ("Unable to process request at this time", Yahoo's long-lived ban; retrying soon does not
  help) and the EU consent wall (redirect to or form for consent.yahoo.com / guce.yahoo.com) are `blocked`.
  The genuine no-results page is `div.zrp` / "We did not find results for".
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from urllib.parse import unquote, urlencode, urljoin

import httpx
from selectolax.lexbor import LexborNode

from webreach.engines._base import Engine, Tokens, query_with_site
from webreach.engines._dates import split_dot_date
from webreach.engines._html import MAX_ITEMS, ancestors, attribute, parse_html, text_of
from webreach.errors import BlockedError
from webreach.models import Hit, SearchRequest

FRESHNESS: Mapping[str, str] = MappingProxyType({"day": "d", "week": "w", "month": "m"})
SAFESEARCH: Mapping[str, str] = MappingProxyType({"off": "p", "moderate": "i", "strict": "r"})
LANGUAGES: Mapping[str, str] = MappingProxyType({"zh": "zh_chs", "zh-tw": "zh_cht", "zh-hk": "zh_cht"})
ITEMS = "div.algo, #web li > div.res"
AD_LINKS = ("bing.com/aclick", "/cbclk", "/rdclks")
CONSENT_HOSTS = ("consent.yahoo.com", "guce.yahoo.com")
NO_RESULTS_MARKERS = ("We did not find results for", 'class="dd zrp')


class Yahoo(Engine):
    """Scrapes search.yahoo.com/search."""

    name = "yahoo"
    page_markers = ("search.yahoo.com", "yimg.com", "compTitle", "r.search.yahoo.com", "Yahoo")

    def unsupported(self, request: SearchRequest) -> tuple[str, ...]:
        missing = super().unsupported(request)
        if request.freshness == "year" and "freshness" not in missing:
            return (*missing, "freshness")
        return missing

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        params = {"p": query_with_site(request), "pz": str(request.limit), "ei": "UTF-8"}
        if request.page > 1:
            params["b"] = str((request.page - 1) * request.limit + 1)
        if request.freshness and request.freshness in FRESHNESS:
            params["btf"] = FRESHNESS[request.freshness]
        language = "any"
        if request.language:
            language = LANGUAGES.get(request.language) or LANGUAGES.get(request.language.split("-")[0], "")
            language = language or request.language.split("-")[0]
        preferences = urlencode(
            {"v": 1, "vm": SAFESEARCH[request.safesearch], "fl": 1, "vl": f"lang_{language}", "pn": request.limit}
        )
        headers = self.browser_headers(Cookie=f"sB={preferences}")
        return httpx.Request("GET", self.url("/search"), params=params, headers=headers)

    def classify(self, response: httpx.Response) -> bool:
        if response.status_code == 999:
            raise BlockedError("refused us with its 'error 999' ban page (HTTP 999)", engine=self.name)
        return False

    def check_redirect(self, response: httpx.Response) -> None:
        if any(host in response.headers.get("location", "") for host in CONSENT_HOSTS):
            raise BlockedError("redirected to its cookie-consent wall instead of results", engine=self.name)
        super().check_redirect(response)

    def parse(self, response: httpx.Response) -> list[Hit]:
        tree = parse_html(response.text)
        if any(tree.css_first(f"form[action*='{host}']") is not None for host in CONSENT_HOSTS):
            raise BlockedError("answered with its cookie-consent wall instead of results", engine=self.name)
        hits: list[Hit] = []
        for item in tree.css(ITEMS)[:MAX_ITEMS]:
            hit = self._hit(item, len(hits) + 1)
            if hit is not None:
                hits.append(hit)
        if not hits and not any(marker in response.text for marker in NO_RESULTS_MARKERS):
            raise self.parse_error("no algo results and no no-results notice on the page")
        return hits

    def decode_link(self, href: str, page_url: str) -> str:
        return decode_redirect(href, page_url)

    def _hit(self, item: LexborNode, rank: int) -> Hit | None:
        link = item.css_first("h3 a") or item.css_first("div.compTitle a[href]")
        href = attribute(link, "href")
        if link is None or not href or _in_ads(item) or any(ad in href for ad in AD_LINKS):
            return None
        heading = item.css_first("h3")
        # older markup puts the breadcrumb inside the title link; its aria-label is the clean title
        title = link.attributes.get("aria-label") or (heading.text() if heading is not None else link.text())
        if not title or not title.strip():
            return None
        when, snippet = split_dot_date(text_of(item.css_first("div.compText") or item.css_first("div.abstr")))
        source, display = _site(item)
        return self.hit(
            rank,
            title,
            decode_redirect(href, self.url("/search")),
            snippet=snippet,
            display_url=display,
            date=when,
            source=source,
        )


def decode_redirect(href: str, page_url: str) -> str:
    """The target of a Yahoo /RU=<target>/RK=.../RS=... redirect, else the href made absolute."""
    url = urljoin(page_url, href)
    if "/RU=" not in url:
        return url
    encoded = url.split("/RU=", 1)[1].split("/RK=", 1)[0].split("/RS=", 1)[0]
    target = unquote(encoded)
    return target if target.startswith(("http://", "https://")) else url


def _site(item: LexborNode) -> tuple[str | None, str | None]:
    """(site name, display URL): the current markup prints both in one line above the title."""
    legacy = item.css_first("span.url")
    if legacy is not None:
        return None, legacy.text()
    name = item.css_first("div.compTitle a span > span")
    line = name.parent if name is not None else None
    if name is None or line is None:
        return None, None
    shown = line.text().replace(name.text(), "", 1).strip()
    return name.text().strip() or None, shown or None


def _in_ads(item: LexborNode) -> bool:
    return any("Ads" in (node.attributes.get("class") or "") for node in ancestors(item))
