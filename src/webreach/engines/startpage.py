"""Startpage: Google's results through Startpage's proxy, scraped from its HTML results page (POST /sp/search).

Decisions:
- Startpage treats a search without a fresh `sc` token as a bot. The token sits in the home page's search
  form (`form#search input[name=sc]`), so the warm-up is GET / and read_warm_up keeps `sc` (cached 50 minutes,
  as SearXNG does; it stays valid for a few hours). build_request still works without it (Startpage answers
  some tokenless searches), but the gateway always runs the warm-up first.
- The form fields are those of Startpage's own form: query, cat=web, t=device, sc, lui/language (Startpage's
  language names), abp/abd/abe, qsr=<lang>_<CC> (results region), qadf=none|moderate|heavy (safesearch),
  segment=organic, page, with_date=d|w|m|y.
- Results are `div.result` (current: `a.result-title` around `h2`, `p.description`, `a.wgl-display-url`,
  `a.wgl-site-title`) or `div.w-gl__result` (older: `a.w-gl__result-title`, `p.w-gl__description`). Inline
  `<style>` blocks sit inside result links, so styles and scripts are stripped before reading text. Links are
  direct; Google ad clicks (`google.*/aclk`) and links back into Startpage are skipped.
- Blocks: a redirect to /sp/captcha (or /sp/captcha-block, /errors/captcha), or the captcha page itself,
  is a CAPTCHA.
- No real no-results capture exists: the no-results markers are Startpage's wording as users report it
  ("did not match any", "No results found", "no results for") on a page that is a Startpage results page
  (it has the search form). Anything else without results is a ParseError.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar
from urllib.parse import urljoin, urlsplit

import httpx
from selectolax.lexbor import LexborHTMLParser, LexborNode

from webreach.engines._base import Engine, Tokens, query_with_site
from webreach.engines._dates import split_ellipsis_date
from webreach.engines._html import MAX_ITEMS, attribute, parse_html, text_of
from webreach.errors import BlockedError
from webreach.models import Hit, SearchRequest

FRESHNESS: Mapping[str, str] = MappingProxyType({"day": "d", "week": "w", "month": "m", "year": "y"})
SAFESEARCH: Mapping[str, str] = MappingProxyType({"off": "none", "moderate": "moderate", "strict": "heavy"})
# Startpage names its interface/result languages; unknown languages keep "english" (Google still reads the query)
LANGUAGES: Mapping[str, str] = MappingProxyType({
    "en": "english", "de": "deutsch", "fr": "francais", "es": "espanol", "it": "italiano", "nl": "nederlands",
    "pt": "portugues", "pl": "polski", "da": "dansk", "sv": "svenska", "no": "norsk", "nb": "norsk",
    "fi": "suomi", "ja": "nihongo", "ko": "hangul", "zh": "jiantizhongwen", "zh-tw": "fantizhengwen",
    "zh-hk": "fantizhengwen",
})  # fmt: skip
# a region's main language, for qsr when only the region is given
REGION_LANGUAGE: Mapping[str, str] = MappingProxyType({
    "us": "en", "gb": "en", "uk": "en", "au": "en", "ca": "en", "ie": "en", "nz": "en", "in": "en", "at": "de",
    "ch": "de", "be": "fr", "br": "pt", "mx": "es", "ar": "es", "cn": "zh", "tw": "zh", "hk": "zh", "jp": "ja",
    "kr": "ko", "se": "sv", "dk": "da",
})  # fmt: skip
CAPTCHA_PATHS = ("/sp/captcha", "/errors/captcha")
CAPTCHA_MARKERS = ("component---src-pages-captcha",)
NO_RESULTS_MARKERS = ("did not match any", "No results found", "no results for")
ITEMS = "div.result, div.w-gl__result"
TITLE_LINKS = "a.result-title, a.w-gl__result-title"
AD_LINK = re.compile(r"^https?://(www\.)?google\.[a-z.]+/aclk")


class Startpage(Engine):
    """POSTs to www.startpage.com/sp/search with the sc token from its home page (a warm-up)."""

    name = "startpage"
    ignores: ClassVar[frozenset[str]] = frozenset({"limit"})  # takes no count: respond() trims
    warm_up_ttl = 3000.0
    page_markers = ("startpage.com", "w-gl__result", "wgl-display-url", "Startpage", "result-title")

    def warm_up(self, request: SearchRequest) -> httpx.Request | None:
        return httpx.Request("GET", self.url("/"), headers=self.browser_headers())

    def read_warm_up(self, response: httpx.Response) -> dict[str, str]:
        tree = parse_html(response.text)
        self._check_captcha(response, tree)
        value = attribute(tree.css_first("form#search input[name=sc]") or tree.css_first("input[name=sc]"), "value")
        if not value:
            # a search without the token is marked as a bot, and a home page without one means its markup changed
            raise self.parse_error("home page carried no sc token in its search form")
        return {"sc": value}

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        language = (request.language or REGION_LANGUAGE.get(request.region or "", "en")).lower()
        name = LANGUAGES.get(language) or LANGUAGES.get(language.split("-")[0], "english")
        form = {
            "query": query_with_site(request),
            "cat": "web",
            "t": "device",
            "lui": name,
            "language": name,
            "abp": "1",
            "abd": "0",
            "abe": "0",
            "qadf": SAFESEARCH[request.safesearch],
            "segment": "organic",
        }
        if tokens and tokens.get("sc"):
            form["sc"] = tokens["sc"]
        if request.region:
            form["qsr"] = f"{language.split('-')[0]}_{request.region.upper()}"
        if request.page > 1:
            form["page"] = str(request.page)
        if request.freshness:
            form["with_date"] = FRESHNESS[request.freshness]
        headers = self.browser_headers(
            **{"Content-Type": "application/x-www-form-urlencoded", "Referer": self.url("/")}
        )
        return httpx.Request("POST", self.url("/sp/search"), data=form, headers=headers)

    def check_redirect(self, response: httpx.Response) -> None:
        if any(path in response.headers.get("location", "") for path in CAPTCHA_PATHS):
            raise BlockedError("redirected to its CAPTCHA page instead of results", kind="captcha", engine=self.name)
        super().check_redirect(response)

    def parse(self, response: httpx.Response) -> list[Hit]:
        tree = parse_html(response.text)
        self._check_captcha(response, tree)
        tree.strip_tags(["style", "script"])
        hits: list[Hit] = []
        for item in tree.css(ITEMS)[:MAX_ITEMS]:
            hit = self._hit(item, len(hits) + 1)
            if hit is not None:
                hits.append(hit)
        if hits:
            return hits
        body = tree.body.text() if tree.body is not None else ""
        if tree.css_first("form#search") is not None and any(m in body for m in NO_RESULTS_MARKERS):
            return hits
        raise self.parse_error("no result items and no no-results notice on the page")

    def _check_captcha(self, response: httpx.Response, tree: LexborHTMLParser) -> None:
        if self.page_url(response).path.startswith(CAPTCHA_PATHS) or any(m in response.text for m in CAPTCHA_MARKERS):
            raise BlockedError("answered with its CAPTCHA page instead of results", kind="captcha", engine=self.name)
        if tree.css_first("form[action*='/sp/captcha']") is not None:
            raise BlockedError("answered with its CAPTCHA form instead of results", kind="captcha", engine=self.name)

    def _hit(self, item: LexborNode, rank: int) -> Hit | None:
        link = item.css_first(TITLE_LINKS)
        href, title = attribute(link, "href"), text_of(link)
        if not href or not title:
            return None
        url = urljoin(self.url("/"), href)
        host = urlsplit(url).hostname or ""
        if AD_LINK.match(url) or host.endswith("startpage.com") or host == urlsplit(self.origin).hostname:
            return None
        # Google's "2 Sep 2014 ... " / "5 days ago ... " snippet prefix is the date
        when, snippet = split_ellipsis_date(
            text_of(item.css_first("p.description") or item.css_first("p.w-gl__description"))
        )
        display = item.css_first("a.wgl-display-url span.default-link-text") or item.css_first(".w-gl__result-url")
        return self.hit(
            rank,
            title,
            url,
            snippet=snippet,
            display_url=text_of(display) or None,
            date=when,
            source=text_of(item.css_first("a.wgl-site-title")) or None,
        )
