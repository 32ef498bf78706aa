"""Google: scraped from www.google.com/search, asking for the basic no-JavaScript page (gbv=1).

Decisions:
- The request asks for the basic HTML page (gbv=1, a text-browser User-Agent, cookie CONSENT=YES+) because the
  normal page needs JavaScript. The parser reads both that page (result links are `/url?q=<target>&sa=U...`,
  decoded here) and the modern desktop page (direct links around `h3.LC20lb`), so saved browser pages parse too.
- A result is a link wrapping an `<h3>`, or, in the older generation still served to some clients (`h3.r > a`,
  `span.st` snippets; fixture tests/fixtures/serp/google/older-h3-r.html, written from the documented markup),
  a link inside the `<h3>`. Its block is the largest ancestor holding no other such link; the snippet, date,
  display URL and site name are read from that block. The WML/XHTML page Google serves old phones (what
  SearXNG asks for since 2026) has no h3: its titles are `a.fuLhoc span.CVA68e`, snippets `span.FrIlee`
  (fixture tests/fixtures/serp/google/wml.html, written from the documented markup). Those class names rotate;
  when they do, the generic parser takes over. Links to Google's own `/search` pages
  (local-pack entries) are not results.
- "People also ask" answers cite a page with the same markup. They are not organic results, so they come after
  the organic ones (their answer text is a good snippet); a URL already listed is not repeated.
- Paging: `num` asks for `limit` results and `start` skips `(page - 1) * limit`, so pages of `limit` results
  tile without gaps when Google honours `num` (it answers 10 per page when it does not).
- Blocks: a redirect to /sorry/ or sorry.google.com, and the /sorry/ page itself (whatever its status, Google
  serves it as 200, 429 or 503), are CAPTCHAs. The page telling non-JavaScript clients to enable JavaScript
  (/httpservice/retry/enablejs) is a block: Google refuses the basic page to this client.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from types import MappingProxyType
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx
from selectolax.lexbor import LexborHTMLParser, LexborNode

from webreach.engines._base import Engine, Tokens, query_with_site
from webreach.engines._dates import split_shown_date
from webreach.engines._html import MAX_ITEMS, ancestors, parse_html, text_of
from webreach.errors import BlockedError
from webreach.models import Hit, SearchRequest

# Google still serves the basic HTML page to text browsers; operators can override it (options.user_agent).
NO_JS_USER_AGENT = "Lynx/2.9.0dev.12 libwww-FM/2.14 SSL-MM/1.4.1 GNUTLS/3.7.8"
FRESHNESS: Mapping[str, str] = MappingProxyType({"day": "d", "week": "w", "month": "m", "year": "y"})
# SearXNG's google.py mapping
SAFE: Mapping[str, str] = MappingProxyType({"off": "off", "moderate": "medium", "strict": "high"})

SORRY_MARKERS = ('id="captcha-form"', "detected unusual traffic from your computer network", "/sorry/index")
ENABLE_JS_MARKER = "/httpservice/retry/enablejs"
NO_RESULTS_MARKERS = ("did not match any documents", "No results found for")

# newest markup first: desktop snippet, featured/"People also ask" answer, video description, basic page
SNIPPET_SELECTORS = (
    "div.VwiC3b",
    'div[data-sncf="1"]',
    "span.hgKElc",
    "div.ITZIwc",
    "span.st",
    "div.taTFJ span.FrIlee",
)
WML_TITLES = "a.fuLhoc span.CVA68e"
DATE_SELECTORS = ("span.YrbPuc", "span.LEwnzc", "span.kX21rb", "span.st > span.f")


class Google(Engine):
    """Scrapes www.google.com/search (basic HTML page)."""

    name = "google"
    # Google's own pages; other *.google.com sites (developers, cloud) are real results
    own_domains = (
        "www.google.com", "google.com", "accounts.google.com", "policies.google.com", "support.google.com",
        "maps.google.com", "translate.google.com", "webcache.googleusercontent.com", "www.gstatic.com",
    )  # fmt: skip
    page_markers = ("www.google.", "/url?q=", "LC20lb", "BNeawe", "gstatic.com", "Google Search")

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        params = {
            "q": query_with_site(request),
            "num": str(request.limit),
            "gbv": "1",
            "ie": "UTF-8",
            "safe": SAFE[request.safesearch],
        }
        if request.page > 1:
            params["start"] = str((request.page - 1) * request.limit)
        headers = self.browser_headers()
        headers["User-Agent"] = self.settings.options.get("user_agent", NO_JS_USER_AGENT)
        headers["Cookie"] = "CONSENT=YES+"
        if request.language:
            params["hl"], params["lr"] = _language_params(request.language)
            headers["Accept-Language"] = f"{params['hl']},{request.language.split('-')[0]};q=0.9"
        if request.region:
            params["gl"] = request.region
            params["cr"] = f"country{request.region.upper()}"
        if request.freshness:
            params["tbs"] = f"qdr:{FRESHNESS[request.freshness]}"
        return httpx.Request("GET", self.url("/search"), params=params, headers=headers)

    def check_redirect(self, response: httpx.Response) -> None:
        location = response.headers.get("location", "")
        parts = urlsplit(location)
        if parts.path.startswith("/sorry") or parts.netloc == "sorry.google.com":
            raise BlockedError(
                f"redirected to its /sorry/ CAPTCHA (HTTP {response.status_code}) instead of results",
                kind="captcha",
                engine=self.name,
            )
        if parts.netloc.startswith("consent."):
            raise BlockedError("redirected to its cookie-consent wall instead of results", engine=self.name)
        super().check_redirect(response)

    def classify(self, response: httpx.Response) -> bool:
        # the /sorry/ page arrives as 429 or 503 too: it is a CAPTCHA, not a plain rate limit
        if self.page_url(response).path.startswith("/sorry") or (
            response.status_code >= 400 and _is_sorry_page(response.text)
        ):
            raise BlockedError("answered with its /sorry/ 'unusual traffic' CAPTCHA", kind="captcha", engine=self.name)
        return False

    def parse(self, response: httpx.Response) -> list[Hit]:
        text = response.text
        organic: dict[str, tuple[str, LexborNode]] = {}
        related: dict[str, tuple[str, LexborNode]] = {}
        tree = parse_html(text)
        counts = _titles_below(tree)
        for heading, link in _title_links(tree):
            url = _target(link.attributes.get("href"))
            if url is None or not heading.text().strip():
                continue
            found = related if _in_related_questions(link) else organic
            found.setdefault(url, (heading.text(), _result_block(link, counts)))
        extra = {url: item for url, item in related.items() if url not in organic}
        ordered = list(organic.items()) + list(extra.items())
        hits = [self._hit(rank, title, url, block) for rank, (url, (title, block)) in enumerate(ordered, 1)]
        if not hits:
            self._explain_empty(text)
        return hits

    def _explain_empty(self, text: str) -> None:
        """A page without results is a CAPTCHA, a JavaScript wall, a genuine no-results page, or a ParseError."""
        if _is_sorry_page(text):
            raise BlockedError("answered with its /sorry/ 'unusual traffic' CAPTCHA", kind="captcha", engine=self.name)
        if ENABLE_JS_MARKER in text:
            raise BlockedError(
                "answered with its 'enable JavaScript' page: the basic HTML results are refused to this client",
                engine=self.name,
            )
        if not any(marker in text for marker in NO_RESULTS_MARKERS):
            raise self.parse_error("no result links (a > h3, h3 > a, WML titles) and no no-results notice on the page")

    def decode_link(self, href: str, page_url: str) -> str:
        return _target(href) or urljoin(page_url, href)

    def result_wrapper(self, href: str) -> bool:
        # a query about Google itself lists Google's own sites, and the basic page wraps them in /url?q= too
        return urlsplit(href).path == "/url"

    def _hit(self, rank: int, title: str, url: str, block: LexborNode) -> Hit:
        snippet, date = _snippet_and_date(block)
        return self.hit(
            rank,
            title,
            url,
            snippet=snippet,
            date=date,
            display_url=_display_url(block),
            source=_first_text(block, ("span.VuuXrf",)) or None,
        )


def _language_params(language: str) -> tuple[str, str]:
    """hl (interface, regional spelling such as pt-BR) and lr (results; only Chinese has regional values)."""
    base, _, country = language.partition("-")
    hl = f"{base}-{country.upper()}" if country else base
    if base != "zh":
        return hl, f"lang_{base}"
    script = "zh-TW" if country in ("tw", "hk", "mo") else "zh-CN"
    return hl, f"lang_{script}"


def _is_sorry_page(text: str) -> bool:
    return any(marker in text for marker in SORRY_MARKERS)


def _title_links(tree: LexborHTMLParser) -> list[tuple[LexborNode, LexborNode]]:
    """(heading, link) of every result title: links around an h3, else (the older generation) links inside one.

    One page is one generation: on a current page, links inside an h3 are sitelinks under a result, not results.
    """
    wrapped = [
        (heading, link) for heading in tree.css("a h3")[:MAX_ITEMS] if (link := _enclosing_link(heading)) is not None
    ]
    if wrapped:
        return wrapped
    inside = [
        (heading, link) for heading in tree.css("h3")[:MAX_ITEMS] if (link := heading.css_first("a[href]")) is not None
    ]
    if inside:
        return inside
    return [(title, link) for title in tree.css(WML_TITLES)[:MAX_ITEMS] if (link := _enclosing_link(title)) is not None]


def _enclosing_link(node: LexborNode) -> LexborNode | None:
    return next((parent for parent in ancestors(node) if parent.tag == "a"), None)


def _target(href: str | None) -> str | None:
    """The result URL behind a link: /url?q=<target> decoded, direct links kept, Google's own pages dropped."""
    if not href:
        return None
    try:
        parts = urlsplit(href)
    except ValueError:  # a malformed IPv6 host: no link to follow
        return None
    target = href
    if parts.path == "/url" and (not parts.netloc or "google." in parts.netloc):
        query = parse_qs(parts.query)  # percent-decodes, so imghp%3Fhl%3DEN becomes imghp?hl=EN
        target = (query.get("q") or query.get("url") or [""])[0]
    elif not parts.netloc:
        return None  # /search?...&ludocid=: a local-pack entry, not a web result
    try:
        target_parts = urlsplit(target)
    except ValueError:
        return None
    if target_parts.scheme not in ("http", "https") or not target_parts.netloc:
        return None
    # `#:~:text=` is a highlight Google adds for the browser, not part of the page's address
    return target.split("#:~:", 1)[0]


def _titles_below(tree: LexborHTMLParser) -> Counter[LexborNode]:
    """How many result titles (either nesting, or the phone layout's) each element holds: one walk up from each
    title, so finding every result's block stays linear (asking each ancestor for its titles again cost 10 s on a
    151 KB page of nested blocks)."""
    counts: Counter[LexborNode] = Counter()
    for selector in ("a h3", "h3 a[href]", WML_TITLES):
        for title in tree.css(selector)[:MAX_ITEMS]:
            counts.update(ancestors(title))
    return counts


def _result_block(link: LexborNode, counts: Counter[LexborNode]) -> LexborNode:
    """The largest ancestor of `link` that holds no other result link: the result's own block."""
    block = link
    parent = link.parent
    while parent is not None and parent.tag not in ("body", "html") and counts[parent] <= 1:
        block = parent
        parent = parent.parent
    return block


def _in_related_questions(node: LexborNode) -> bool:
    return any("related-question-pair" in (parent.attributes.get("class") or "") for parent in ancestors(node))


def _snippet_and_date(block: LexborNode) -> tuple[str, str | None]:
    """Snippet text and date: a leading date ("Jul 22, 2022 —") moves from the snippet to the date."""
    snippet = _first_text(block, SNIPPET_SELECTORS) or _basic_snippet(block)
    shown = _first_text(block, DATE_SELECTORS) or _basic_date(block)
    date, snippet = split_shown_date(snippet, shown, "—-·")
    return snippet.removesuffix("Read more").strip(), date


def _basic_snippet(block: LexborNode) -> str:
    """The basic page's snippet: the innermost `div.BNeawe.s3v9rd` text outside the title link."""
    for node in block.css("div.BNeawe.s3v9rd")[:MAX_ITEMS]:
        # lexbor's css() matches the node itself too, so "innermost" means exactly one match
        if len(node.css("div.BNeawe.s3v9rd")) == 1 and _enclosing_link(node) is None:
            return text_of(node)
    return ""


def _basic_date(block: LexborNode) -> str:
    """The basic page puts a date as the snippet's first `span.r0bn4c` ("Mar 2, 2023", then " · ")."""
    node = block.css_first("div.BNeawe.s3v9rd span.r0bn4c")
    return text_of(node)


def _display_url(block: LexborNode) -> str | None:
    shown = _first_text(block, ("cite", "div.BNeawe.UPmit"))
    # video and forum cards put "859K+ views · 5 years ago" where the address would be
    if shown and (shown.startswith("http") or "›" in shown or " " not in shown):
        return shown
    return None


def _first_text(block: LexborNode, selectors: tuple[str, ...]) -> str:
    for selector in selectors:
        if text := text_of(block.css_first(selector)):
            return text
    return ""
