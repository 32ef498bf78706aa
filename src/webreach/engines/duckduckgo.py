"""DuckDuckGo: Bing-backed results from DuckDuckGo's no-JavaScript endpoint (POST html.duckduckgo.com/html/).

Decisions:
- Page 1 is a plain form POST (q, b, kl, df, kp). Later pages must carry the `vqd` token of page 1: asking
  for them without it is how DuckDuckGo spots bots. So for page >= 2 the warm-up is the page-1 POST, the
  token is read from its `input[name=vqd]` (or a `vqd="..."` script variable on duckduckgo.com pages), and
  build_request raises UnavailableError when it has no token rather than send a request that invites CAPTCHAs.
  Offsets follow SearXNG: s = 10 + (page-2)*15, dc = s + 1, with nextParams/api/o/v as the next-page form.
- Layout generations read (newest first; real captures for the html endpoint, fixtures written from the
  documented markup for the others, see tests/fixtures/serp/duckduckgo/):
  - html.duckduckgo.com: `#links div.web-result` (`h2 a.result__a`, `a.result__snippet`, `a.result__url`; the
    2015 markup: `a.large`, `div.snippet`, `div.url`);
  - duckduckgo.com saved from a browser's DOM (React, 2023+): `article[data-testid=result]` with
    `a[data-testid=result-title-a]` and `[data-result=snippet]`; ads are `li[data-layout=ad]`;
  - duckduckgo.com DOM of 2016-2022: `#links div.results_links_deep` (`a.result__a`, `.result__snippet`);
  - lite.duckduckgo.com: table rows, `a.result-link` then a row with `td.result-snippet` and `span.link-text`;
    sponsored rows are `tr.result-sponsored`.
  `result--ad` blocks and y.js ad links are skipped everywhere.
- Links are `//duckduckgo.com/l/?uddg=<target>` redirects (the rendered DOM has direct links); the target is
  decoded.
- Region: kl from the region (and language, where DuckDuckGo has that variant), using the codes its own
  region menu offers; unknown regions search all regions (wt-wt). The endpoint has no language filter.
- Blocks: HTTP 202 (a "success" status that carries a challenge), `form#challenge-form` and the anomaly
  modal (also as served by lite.duckduckgo.com) are CAPTCHAs. `.no-results` / `result--no-result` is the
  genuine no-results notice.
- A duckduckgo.com JavaScript shell (results load later from d.js) holds no results and no notice; it is a
  ParseError, not an empty success: nothing on it says the query has no results. A page mentioning d.js is
  only taken for the shell when none of the layouts above finds a result in it: a rendered DOM saved from a
  browser keeps its d.js preload link beside the results.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx
from selectolax.lexbor import LexborHTMLParser, LexborNode

from webreach.engines._base import Engine, Tokens, query_with_site
from webreach.engines._html import MAX_ITEMS, ancestors, attribute, parse_html, text_of
from webreach.errors import BlockedError, UnavailableError
from webreach.models import Hit, SearchRequest

FRESHNESS: Mapping[str, str] = MappingProxyType({"day": "d", "week": "w", "month": "m", "year": "y"})
SAFESEARCH: Mapping[str, str] = MappingProxyType({"strict": "1", "moderate": "-1", "off": "-2"})
# every region code in the region menu of html.duckduckgo.com (real page, 2026)
REGION_MENU = (
    "ar-es au-en at-de be-fr be-nl br-pt bg-bg ca-en ca-fr ct-ca cl-es cn-zh co-es hr-hr cz-cs dk-da ee-et "
    "fi-fi fr-fr de-de gr-el hk-tzh hu-hu is-is in-en id-en ie-en il-en it-it jp-jp kr-kr lv-lv lt-lt my-en "
    "mx-es nl-nl nz-en no-no pk-en pe-es ph-en pl-pl pt-pt ro-ro ru-ru xa-ar sg-en sk-sk sl-sl za-en es-ca "
    "es-es se-sv ch-de ch-fr tw-tzh th-en tr-tr us-en us-es ua-uk uk-en vn-en"
)
REGIONS = frozenset(REGION_MENU.split())
# ISO 3166 codes DuckDuckGo spells differently
COUNTRY_ALIASES: Mapping[str, str] = MappingProxyType({"gb": "uk", "sa": "xa", "si": "sl"})
CHALLENGE = "form#challenge-form, [data-testid='anomaly-modal'], div.anomaly-modal__modal, form[action*='anomaly.js']"
NO_RESULTS = "#links .no-results, div.result--no-result"
ITEMS = (
    "#links div.web-result, #links div.results_links_deep, "
    "article[data-testid='result'], li[data-layout='organic'] > article"
)
TITLE_LINKS = ("a[data-testid='result-title-a']", "h2 a", "a.result__a", "a.large")
SNIPPETS = ".result__snippet, div.snippet, [data-result='snippet']"
DISPLAY_URLS = ".result__url, div.url, a[data-testid='result-extras-url-link']"
LITE_LINKS = "a.result-link"
VQD_IN_SCRIPT = re.compile(r"""vqd=["']?(\d+-[\d-]+)""")
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class DuckDuckGo(Engine):
    """POSTs to html.duckduckgo.com/html/; pages >= 2 need the vqd token of page 1 (a warm-up)."""

    name = "duckduckgo"
    ignores: ClassVar[frozenset[str]] = frozenset({"limit"})  # takes no count: respond() trims
    page_markers = (
        "duckduckgo.com", "DuckDuckGo", "result__a", "uddg=", "web-result", "result-link", 'data-testid="result',
    )  # fmt: skip

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        kl = region_code(request)
        form = {"q": query_with_site(request), "kl": kl, "kp": SAFESEARCH[request.safesearch]}
        cookies = [f"kl={kl}"]
        if request.freshness:
            form["df"] = FRESHNESS[request.freshness]
            cookies.append(f"df={form['df']}")
        form.update(self._page_fields(request, tokens))
        headers = self.browser_headers(
            **{
                "Content-Type": "application/x-www-form-urlencoded",
                "Referer": self.url("/html/"),
                "Cookie": "; ".join(cookies),
                "Sec-Fetch-Dest": "document",
                "Sec-Fetch-Mode": "navigate",
                "Sec-Fetch-Site": "same-origin",
                "Sec-Fetch-User": "?1",
            }
        )
        return httpx.Request("POST", self.url("/html/"), data=form, headers=headers)

    def _page_fields(self, request: SearchRequest, tokens: Tokens | None) -> dict[str, str]:
        """Page 1's blank button field, or the next-page form fields with page 1's vqd."""
        if request.page == 1:
            return {"b": ""}
        vqd = (tokens or {}).get("vqd")
        if not vqd:
            raise UnavailableError(
                f"cannot ask for page {request.page} without the vqd token of page 1 (page 1 carried none: "
                "it has no further pages, or its markup changed); asking without it invites CAPTCHAs",
                engine=self.name,
                hint="Ask for page 1, or use another engine for later pages.",
            )
        offset = 10 + (request.page - 2) * 15
        return {
            "vqd": vqd,
            "nextParams": "",
            "api": "d.js",
            "o": "json",
            "v": "l",
            "s": str(offset),
            "dc": str(offset + 1),
        }

    def warm_up(self, request: SearchRequest) -> httpx.Request | None:
        if request.page == 1:
            return None
        return self.build_request(request.model_copy(update={"page": 1}))

    def warm_up_key(self, request: SearchRequest) -> str:
        # vqd is bound to the query (and our stable User-Agent); the region picks which page 1 it came from
        return f"{self.name}|{region_code(request)}|{query_with_site(request)}"

    def read_warm_up(self, response: httpx.Response) -> dict[str, str]:
        self._check_challenge(parse_html(response.text))
        vqd = find_vqd(response.text)
        return {"vqd": vqd} if vqd else {}

    def classify(self, response: httpx.Response) -> bool:
        if response.status_code == 202:
            raise BlockedError(
                "answered HTTP 202 with its bot challenge instead of results", kind="captcha", engine=self.name
            )
        return False

    def check_redirect(self, response: httpx.Response) -> None:
        location = response.headers.get("location", "")
        if "anomaly" in location or "challenge" in location:
            raise BlockedError("redirected to its bot challenge instead of results", kind="captcha", engine=self.name)
        super().check_redirect(response)

    def parse(self, response: httpx.Response) -> list[Hit]:
        tree = parse_html(response.text)
        self._check_challenge(tree)
        hits: list[Hit] = []
        seen: set[int] = set()
        for item in tree.css(ITEMS)[:MAX_ITEMS]:
            if item.mem_id in seen:  # an article inside an organic li matches both selectors
                continue
            seen.add(item.mem_id)
            hit = self._hit(item, len(hits) + 1)
            if hit is not None:
                hits.append(hit)
        if not hits:
            hits = self._lite_hits(tree)
        if hits or tree.css_first(NO_RESULTS) is not None:
            return hits
        if "/d.js?" in response.text:
            raise self.parse_error("got the JavaScript duckduckgo.com page (results load from d.js), not html results")
        raise self.parse_error("no web-result items and no no-results notice on the page")

    def decode_link(self, href: str, page_url: str) -> str:
        return decode_redirect(href, page_url)

    def _check_challenge(self, tree: LexborHTMLParser) -> None:
        if tree.css_first(CHALLENGE) is not None:
            raise BlockedError(
                "answered with its 'bots use DuckDuckGo too' challenge", kind="captcha", engine=self.name
            )

    def _hit(self, item: LexborNode, rank: int) -> Hit | None:
        if "result--ad" in (item.attributes.get("class") or "") or _in_ad(item):
            return None
        link = next((node for sel in TITLE_LINKS if (node := item.css_first(sel)) is not None), None)
        href, title = attribute(link, "href"), text_of(link)
        if not href or not title:
            return None
        url = decode_redirect(href, self.url("/html/"))
        try:
            path = urlsplit(url).path
        except ValueError:  # a malformed IPv6 host: no link to follow
            return None
        if path.startswith("/y.js"):
            return None
        return self.hit(
            rank,
            title,
            url,
            snippet=text_of(item.css_first(SNIPPETS)),
            display_url=text_of(item.css_first(DISPLAY_URLS)) or None,
            date=_date(item),
        )

    def _lite_hits(self, tree: LexborHTMLParser) -> list[Hit]:
        """lite.duckduckgo.com: a title row with a.result-link, then rows with the snippet and the link text."""
        hits: list[Hit] = []
        for link in tree.css(LITE_LINKS):
            row = next((node for node in ancestors(link) if node.tag == "tr"), None)
            href, title = attribute(link, "href"), text_of(link)
            if row is None or not href or not title or "result-sponsored" in attribute(row, "class"):
                continue
            url = decode_redirect(href, self.url("/lite/"))
            if urlsplit(url).path.startswith("/y.js"):
                continue
            snippet_row, url_row = _next_rows(row, 2)
            hits.append(
                self.hit(
                    len(hits) + 1,
                    title,
                    url,
                    snippet=text_of(snippet_row.css_first("td.result-snippet") if snippet_row else None),
                    display_url=text_of(url_row.css_first("span.link-text") if url_row else None) or None,
                )
            )
        return hits


def region_code(request: SearchRequest) -> str:
    """DuckDuckGo's kl for the request: region-language where DuckDuckGo has it, else its main variant."""
    if not request.region:
        return "wt-wt"
    country = COUNTRY_ALIASES.get(request.region, request.region)
    language = (request.language or "").split("-")[0]
    if language == "zh" and country in ("tw", "hk"):
        language = "tzh"
    variants = sorted(code for code in REGIONS if code.startswith(f"{country}-"))
    if f"{country}-{language}" in REGIONS:
        return f"{country}-{language}"
    if f"{country}-{country}" in REGIONS:
        return f"{country}-{country}"
    return variants[0] if variants else "wt-wt"


def decode_redirect(href: str, page_url: str) -> str:
    """The target of a //duckduckgo.com/l/?uddg= redirect, else the href made absolute."""
    url = urljoin(page_url, href)
    parts = urlsplit(url)
    if parts.hostname and parts.hostname.endswith("duckduckgo.com") and parts.path.startswith("/l/"):
        target = parse_qs(parts.query).get("uddg", [""])[0]
        if target.startswith(("http://", "https://")):
            return target
    return url


def find_vqd(html: str) -> str | None:
    """The vqd token of a results page: the next-page form's input, or the script variable of duckduckgo.com."""
    value = attribute(parse_html(html).css_first("input[name=vqd]"), "value")
    if value:
        return value
    match = VQD_IN_SCRIPT.search(html)
    return match[1] if match else None


def _in_ad(item: LexborNode) -> bool:
    """A result of the rendered DOM inside an ad slot (`li[data-layout=ad]`)."""
    return any(attribute(node, "data-layout") == "ad" for node in ancestors(item))


def _next_rows(row: LexborNode, count: int) -> list[LexborNode | None]:
    """The `count` table rows after `row` (None where the table ends)."""
    rows: list[LexborNode | None] = []
    node = row.next
    while node is not None and len(rows) < count:
        if node.tag == "tr":
            rows.append(node)
        node = node.next
    return rows + [None] * (count - len(rows))


def _date(item: LexborNode) -> str | None:
    """The ISO timestamp DuckDuckGo prints beside the result URL, as a date."""
    for span in item.css(".result__extras__url > span"):
        text = span.text().strip()
        if ISO_DATE.match(text):
            return text[:10]
    return None
