"""The generic result-page parser: results found by structure alone, for when an engine's own selectors find none.

It knows no class names. A search results page lists its results as sibling blocks of one container, each with
a link to another site carrying a title (in or around a heading, or the block's first substantial link) and a
text block (the snippet). So:

1. Pages carrying a bot wall's markers give nothing: a block page must never turn into results.
2. Scripts, styles, and the page's navigation, header, footer and side columns are dropped.
3. Candidate links are those `target` accepts: it decodes the engine's redirect links and refuses links to the
   engine itself (its navigation, related searches, paging), so only links to other sites are left.
4. Every ancestor of a candidate link up to MAX_RECORD_LEVELS above it is a possible record, keyed by (its parent,
   its tag); the cap keeps the walk linear on hostile pages (1,890 links nested ~760 deep took 1.5 s). The
   container whose same-tag children hold the most valid records (a title link plus at least MIN_TEXT characters
   of other text) is the results list; fewer than MIN_RECORDS valid records is no list at all.

Measured alone over every real capture by bench/generic_parser.py (hits found vs the engine parser's, URL
precision, what it gets wrong).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice

from selectolax.lexbor import LexborHTMLParser, LexborNode

from webreach.engines._html import ancestors, parse_html, text_of

# a bot wall's markup (challenge forms, widgets and scripts; the engines' own CAPTCHA pages), matched as elements
# so a results page whose scripts merely name a widget class is not taken for one: never parse such a page
BLOCK_SELECTORS = (
    "#challenge-form, #captcha-form, #b_captcha, #turnstile-widget, .g-recaptcha, .h-captcha, .cf-turnstile, "
    "[class*='anomaly-modal'], form[action*='captcha'], form[action*='/sorry'], form[action*='anomaly'], "
    "form[action*='antispider'], iframe[src*='captcha'], script[src*='captcha'], script[src*='antispider'], "
    "script[src*='/cdn-cgi/challenge-platform/'], script[src*='challenges.cloudflare.com'], script[src*='wappass'], "
    "link[href*='wappass'], img[src*='antispider']"
)
DROPPED_TAGS = ["script", "style", "noscript", "svg", "template", "iframe"]
CHROME = "nav, header, footer, aside, [role='navigation'], [role='banner'], [role='contentinfo']"
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
MIN_RECORDS = 3
# how far above its link a record may sit; bench/generic_parser.py (plain and --mutate) finds the same hits
# with the cap as without
MAX_RECORD_LEVELS = 24
MIN_TEXT = 20  # characters of text beside the title (half for CJK scripts, which say more per character)
MIN_TITLE = 8


@dataclass(frozen=True)
class Found:
    """One result the structure gave: title, decoded URL and snippet."""

    title: str
    url: str
    snippet: str


# a link node -> its decoded target when it may be a result, else None
Target = Callable[[LexborNode], str | None]
# (record, the title link's target) -> the result URL (engines that carry the real URL beside a redirect)
Refine = Callable[[LexborNode, str], str]


def _as_is(record: LexborNode, url: str) -> str:
    return url


def find_results(html: str, target: Target, refine: Refine = _as_is) -> list[Found]:
    """Results of the page's main repeated list of external links, [] when it has none or is a bot wall."""
    tree = parse_html(html)
    if tree.css_first(BLOCK_SELECTORS) is not None:
        return []
    tree.strip_tags(DROPPED_TAGS)
    for node in tree.css(CHROME):
        node.decompose()
    links = _candidate_links(tree, target)
    if not links:
        return []
    best: list[Found] = []
    for records in _groups(links):  # largest first: once a group cannot beat the best, none after it can
        if len(records) < max(MIN_RECORDS, len(best) + 1):
            break
        found = [hit for record in records if (hit := _record(record, links, refine)) is not None]
        if len(found) > len(best):
            best = found
    return _unique(best) if len(best) >= MIN_RECORDS else []


def _candidate_links(tree: LexborHTMLParser, target: Target) -> dict[int, tuple[LexborNode, str]]:
    """Links to other sites, by node id: (the link, its decoded URL)."""
    links: dict[int, tuple[LexborNode, str]] = {}
    for link in tree.css("a[href]"):
        url = target(link)
        if url is not None and text_of(link):
            links[link.mem_id] = (link, url)
    return links


def _groups(links: dict[int, tuple[LexborNode, str]]) -> list[list[LexborNode]]:
    """Possible record lists: for each (container, tag), its children of that tag holding candidate links."""
    groups: dict[tuple[int, str], dict[int, LexborNode]] = {}
    for link, _ in links.values():
        node = link
        for parent in islice(ancestors(link), MAX_RECORD_LEVELS):
            if parent.tag in ("html", "#document"):
                break
            groups.setdefault((parent.mem_id, node.tag or ""), {}).setdefault(node.mem_id, node)
            node = parent
    ordered = sorted(groups.values(), key=len, reverse=True)
    return [list(records.values()) for records in ordered]


def _record(record: LexborNode, links: dict[int, tuple[LexborNode, str]], refine: Refine) -> Found | None:
    """The result a record holds: its title link and snippet, or None when it lacks either."""
    inside = [links[node.mem_id] for node in record.css("a[href]") if node.mem_id in links]
    if not inside:
        return None
    title_link, url, title = _title(record, inside)
    if title_link is None:
        return None
    snippet = _snippet(record, title_link, title)
    if len(snippet) < _min_text(snippet):
        return None
    return Found(title=title, url=refine(record, url), snippet=snippet)


def _title(record: LexborNode, inside: list[tuple[LexborNode, str]]) -> tuple[LexborNode | None, str, str]:
    """(link, url, title): the first link in or around a heading, else the first link with a substantial text."""
    for link, url in inside:
        heading = _heading(link, record)
        if heading is not None:
            return link, url, text_of(heading) if _contains(link, heading) else text_of(link)
    for link, url in inside:
        text = text_of(link)
        if len(text) >= _min_title(text):
            return link, url, text
    return None, "", ""


def _heading(link: LexborNode, record: LexborNode) -> LexborNode | None:
    """The heading the link sits in (up to the record) or holds."""
    for node in _up_to(link, record):
        if _is_heading(node):
            return node
    return link.css_first("h1, h2, h3, h4, h5, h6, [role='heading']")


def _is_heading(node: LexborNode) -> bool:
    return node.tag in HEADINGS or node.attributes.get("role") == "heading"


def _up_to(node: LexborNode, stop: LexborNode) -> Iterator[LexborNode]:
    """`node` and its ancestors, up to and including `stop`."""
    yield node
    for parent in ancestors(node):
        yield parent
        if parent.mem_id == stop.mem_id:
            return


def _contains(outer: LexborNode, inner: LexborNode) -> bool:
    return any(parent.mem_id == outer.mem_id for parent in ancestors(inner))


def _snippet(record: LexborNode, title_link: LexborNode, title: str) -> str:
    """The record's longest text block outside the title link (the snippet)."""
    # nodes holding the title link, and nodes inside it, are not the snippet
    around = {title_link.mem_id, *(node.mem_id for node in ancestors(title_link))}
    inside = {node.mem_id for node in title_link.css("*")}
    best = ""
    for node in record.css("p, div, span, td, dd, li, a"):
        if node.mem_id in around or node.mem_id in inside:
            continue
        text = text_of(node)
        if len(text) > len(best) and text != title:
            best = text
    return best


def _min_text(text: str) -> int:
    return MIN_TEXT // 2 if _is_cjk(text) else MIN_TEXT


def _min_title(text: str) -> int:
    return MIN_TITLE // 2 if _is_cjk(text) else MIN_TITLE


def _is_cjk(text: str) -> bool:
    return any("\u3040" <= char <= "\u9fff" or "\uac00" <= char <= "\ud7af" for char in text[:40])


def _unique(found: list[Found]) -> list[Found]:
    """First occurrence of each URL."""
    unique: dict[str, Found] = {}
    for hit in found:
        unique.setdefault(hit.url, hit)
    return list(unique.values())
