"""Baidu: China's largest web index, scraped from its HTML results page (www.baidu.com/s).

Decisions:
- Organic results are the `div.result` blocks of `#content_left`; Baidu's own cards (baike, video, images,
  tieba, news carousel, calculator) are `div.result-op` and are skipped, as are ads. A few vertical answers
  that Baidu marks up as plain `result` (health Q&A) are kept: the page ranks them like organic results.
- Result links are `www.baidu.com/link?url=<token>` redirects. The token is encrypted and cannot be decoded
  offline, so the link is kept as-is (absolute) and resolved lazily by the reader when an agent opens it.
  Newer pages carry the landing page in the container's `mu` attribute; it is used when present.
- Freshness is Baidu's time filter `gpc=stf=<from>,<to>|stftype=1` in absolute Unix seconds (SearXNG's
  baidu.py), the window counted back from the engine's clock.
- Blocks: a redirect to wappass.baidu.com, or a 200 page titled 百度安全验证 (the wappass captcha), is a CAPTCHA.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

import httpx
from selectolax.lexbor import LexborHTMLParser, LexborNode

from webreach.engines._base import Engine, Tokens, query_with_site
from webreach.engines._dates import NUMERIC_YMD, numeric_date
from webreach.engines._freshness import baidu_gpc
from webreach.engines._html import MAX_ITEMS, ancestors, attribute, parse_html
from webreach.errors import BlockedError
from webreach.models import Hit, SearchRequest

CAPTCHA_HOST = "wappass.baidu.com"
CAPTCHA_TITLE = "百度安全验证"
# the captcha page's own scripts; present even when the page title is missing or altered
CAPTCHA_MARKERS = ("wappass.baidu.com/static/captcha", "wappass.baidu.com/static/machine")
NO_RESULTS_MARKERS = ("没有找到与", "抱歉没有找到", "未找到相关结果")
MAX_PER_PAGE = 50


class Baidu(Engine):
    """Scrapes www.baidu.com/s."""

    name = "baidu"
    page_markers = ("www.baidu.com", 'id="content_left"', "百度", "baidu.com/link?url=", "c-container")

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        per_page = min(request.limit, MAX_PER_PAGE)
        params = {
            "wd": query_with_site(request),
            "ie": "utf-8",
            "rn": str(per_page),
            "pn": str((request.page - 1) * per_page),
        }
        if request.freshness:
            params["gpc"] = baidu_gpc(request.freshness, self.clock.now())
        headers = self.browser_headers(
            **{"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8", "Referer": self.url("/")},
        )
        return httpx.Request("GET", self.url("/s"), params=params, headers=headers)

    def check_redirect(self, response: httpx.Response) -> None:
        location = response.headers.get("location", "")
        if CAPTCHA_HOST in location:
            raise BlockedError(
                f"redirected to its security check ({CAPTCHA_HOST}) instead of results",
                kind="captcha",
                engine=self.name,
            )
        super().check_redirect(response)

    def parse(self, response: httpx.Response) -> list[Hit]:
        text = response.text
        tree = parse_html(text)
        title = tree.css_first("title")
        if title is not None and CAPTCHA_TITLE in title.text():
            raise self._captcha()
        # inline <style>/<script> sit inside result footers and would leak CSS into the text
        tree.strip_tags(["style", "script"])
        hits: list[Hit] = []
        for item in tree.css("#content_left > div.result")[:MAX_ITEMS]:
            hit = self._hit(item, len(hits) + 1)
            if hit is not None:
                hits.append(hit)
        if hits or _is_no_results(tree, text):
            return hits
        # asset URLs alone are weaker than the title: only an empty page carrying them is the captcha
        if any(marker in text for marker in CAPTCHA_MARKERS):
            raise self._captcha()
        raise self.parse_error("no result blocks in #content_left and no no-results notice on the page")

    def opaque_result(self, url: str) -> bool:
        return urlsplit(url).path == "/link" and "url=" in urlsplit(url).query

    def record_target(self, record: LexborNode, url: str) -> str:
        landing = attribute(record, "mu")  # the landing page, as the engine's own parser reads it
        return landing if landing.startswith(("http://", "https://")) else url

    def _captcha(self) -> BlockedError:
        return BlockedError(
            f"answered with its security check page ({CAPTCHA_TITLE})", kind="captcha", engine=self.name
        )

    def _hit(self, item: LexborNode, rank: int) -> Hit | None:
        if _is_ad(item):
            return None
        link, title = _title_link(item)
        href = attribute(link, "href")
        if not href or not title.strip():
            return None
        landing = attribute(item, "mu")
        url = landing if landing.startswith(("http://", "https://")) else urljoin(self.origin + "/", href)
        date_node = item.css_first("span.newTimeFactor_before_abs, span.c-color-gray2")
        shown_date = _clean(date_node.text()) if date_node is not None else ""
        snippet_node = item.css_first("div.c-abstract, [class^='content-right_'], span.content-right")
        snippet = _clean(snippet_node.text()) if snippet_node is not None else ""
        if shown_date and snippet.startswith(shown_date):
            snippet = snippet[len(shown_date) :].lstrip(" -\u00a0")
        display, source, footer_date = _footer(item)
        shown = shown_date or footer_date
        date = (numeric_date(shown) or shown) if shown else None  # relative dates (3天前): resolved by clean_hits
        return self.hit(rank, title, url, snippet=snippet, display_url=display, source=source, date=date)


def _title_link(item: LexborNode) -> tuple[LexborNode | None, str]:
    """The result's main link and its title (Baidu nests them either way round)."""
    link = item.css_first("h3 a")
    if link is not None:
        return link, link.text()
    heading = item.css_first("a h3")
    if heading is not None:
        return next((node for node in ancestors(heading) if node.tag == "a"), None), heading.text()
    return None, ""


def _footer(item: LexborNode) -> tuple[str | None, str | None, str]:
    """(display URL, source name, shown date) from the green footer line."""
    showurl = item.css_first("a.c-showurl")
    if showurl is not None:
        shown = _clean(showurl.text())
        # news results show the publisher's name where other results show the URL
        if shown and " " not in shown and ("." in shown or "/" in shown):
            return shown, None, ""
        return None, shown or None, ""
    legacy = item.css_first("div.f13 span.g, span.g")
    if legacy is not None:
        shown = _clean(legacy.text())
        match = NUMERIC_YMD.search(shown)
        display = shown[: match.start()].strip() if match else shown
        return display or None, None, match.group(0) if match else ""
    return None, None, ""


def _is_ad(item: LexborNode) -> bool:
    classes = (item.attributes.get("class") or "").split()
    if "data-tuiguang" in item.attributes or any(c.lower().startswith("ec_") for c in classes):
        return True
    return item.css_first(".ec-tuiguang, .ec_tuiguang_link, .ec_tuiguang_pplink") is not None


def _is_no_results(tree: LexborHTMLParser, text: str) -> bool:
    return tree.css_first("div.nors, #content_left .nors") is not None or any(m in text for m in NO_RESULTS_MARKERS)


def _clean(text: str) -> str:
    return " ".join(text.replace("\u00a0", " ").split()).strip(" -")
