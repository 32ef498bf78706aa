"""What kind of page this is, from its structure, so the cascade can read each kind with its own profile.

    classify(tree, url) -> PageKind(name, confident, signals)

Kinds are WCXB's seven (bench/extraction.py --wcxb measures them): article, forum, product, listing,
collection, documentation, service. The evidence is cheap and declared by the page itself, never its prose:
- JSON-LD @type and microdata itemtype (Product, QAPage, DiscussionForumPosting, Comment, ItemList, TechArticle,
  Article ...), which sites publish for search engines and so are rarely wrong (but several marked-up Questions
  are an FAQ section, not a thread);
- the URL path, since forum, shop and docs software name their routes alike (/threads/, /t/slug/123,
  /products/, /collections/, docs.host or /docs/), and a site's home page is a landing page (service);
- markup counts: several <pre> blocks beside a navigation sidebar (docs), price markup (products).
Each signal adds votes to one kind; the kind with the most votes wins when it reaches CONFIDENT_VOTES and
leads the runner-up, otherwise the page is "unsure" and the caller keeps the article cascade, which is what the
extractor did before kinds existed. Classification reads the tree and never changes it; it costs well under a
millisecond beside a 50-100 ms extraction.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from lxml import etree

from webreach.extract.metadata import JsonLd, json_ld_types, page_json_ld
from webreach.extract.tree import Element

PAGE_TYPES = ("article", "forum", "product", "listing", "collection", "documentation", "service")
CONFIDENT_VOTES = 2
HOME_VOTES = 2
# a page marking up this many questions is an FAQ (a service's, a product's, a guide's): Stack Exchange and other
# Q&A threads mark up one; their votes went to forum and 13 such pages of WCXB dev were read as threads
FAQ_QUESTIONS = 2
MICRODATA_CAP = 5  # items counted per itemtype: a thread of many Comment items outvotes an og:type "article"

JSON_LD_VOTES: dict[str, tuple[str, int]] = {
    "DiscussionForumPosting": ("forum", 3),
    "QAPage": ("forum", 3),
    "Product": ("product", 3),
    "ProductGroup": ("product", 3),
    "ItemList": ("listing", 1),
    "CollectionPage": ("collection", 2),
    "OfferCatalog": ("collection", 2),
    "TechArticle": ("documentation", 2),
    "APIReference": ("documentation", 3),
    "Article": ("article", 2),
    "NewsArticle": ("article", 3),
    "BlogPosting": ("article", 3),
    "Recipe": ("article", 2),
    "Service": ("service", 2),
}
MICRODATA_VOTES: dict[str, tuple[str, int]] = {
    "Comment": ("forum", 1),  # per item, capped: a thread is many comments; an article may carry a few
    "Answer": ("forum", 2),
    "Question": ("forum", 1),
    "Product": ("product", 2),
    "Offer": ("product", 1),
    "Article": ("article", 1),
    "NewsArticle": ("article", 1),
    "BlogPosting": ("article", 1),
}
URL_VOTES: tuple[tuple[re.Pattern[str], str, int], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), kind, votes)
    for pattern, kind, votes in (
        (r"/(threads?|topics?|discussions?|d)/[^/]*\d", "forum", 3),
        (r"/t/([^/]+/\d+|\d+/)", "forum", 3),  # Discourse /t/slug/123, JForum (permies) /t/123/slug
        # phpBB, vBulletin, SMF, MyBB (thread-123.html), TripAdvisor's forums
        (r"(viewtopic|showthread|showtopic)\.php|[?&]topic=\d|/thread-\d+|/ShowTopic-", "forum", 3),
        (r"/boards/\d+[^/]*/\d+", "forum", 3),  # GameFAQs: /boards/<board>/<topic>
        (r"/questions/\d+/", "forum", 3),
        (r"/r/[^/]+/comments/", "forum", 3),
        (r"/(products?|dp|pdp|listing|item)/[^/]+", "product", 2),
        (r"/p/[^/]+", "product", 1),
        (r"/(collections?|categor(y|ies)|genres?|c|b|shop|browse)(/|$)", "collection", 2),
        (r"^/(news|blog|articles|stories|latest|archive)/?$", "listing", 2),
        # MediaWiki's list pages (Wikipedia's List_of_...): entries in tables and lists, which its Article markup
        # outvoted (a precise reading kept a third of the Nobel laureates)
        (r"/list_of_[^/?]+", "listing", 3),
        (r"/(docs?|documentation|manual|reference|api|guide|userguide|handbook|library)(/|$)", "documentation", 2),
        (r"/(services?|solutions?|pricing|tuition|consulting)(/|-|$)", "service", 2),
    )
)  # fmt: skip
# /descendant::, not //: libxml2 builds the node-set of every node for // before the step (0.28 -> 0.18 ms a
# median WCXB page, same answer on all of them)
ARTICLE_META = (
    "/descendant::meta[(@property='og:type' and translate(@content, 'ARTICLE', 'article')='article')"
    " or @property='article:published_time']"
)
DATED_PATH = re.compile(r"/(19|20)\d\d/[01]?\d/")
# a story's slug under a news or blog route (/news/some-story-title): the index itself is a listing (URL_VOTES)
STORY_PATH = re.compile(r"/(news|blog|articles?|stor(y|ies)|posts?)/[^/]*\w-\w[^/]*-", re.IGNORECASE)
DOCS_HOST = re.compile(r"^(docs?|developer|developers|wiki|learn|api)\.", re.IGNORECASE)
# one query finds both the microdata items and the price markup, in document order; it asks for the attributes
# rather than for every element with a predicate on them, under /descendant::* rather than // (0.59 -> 0.35 ->
# 0.19 ms a WCXB dev page, the same elements on all 1,497)
PRICE_PROPERTIES = ("product:price:amount", "og:price:amount")
DECLARED = etree.XPath(
    "/descendant::*/@itemtype/.. | /descendant::*/@itemprop[.='price']/.."
    " | /descendant::meta/@property[" + " or ".join(f".='{name}'" for name in PRICE_PROPERTIES) + "]/.."
)


@dataclass(frozen=True)
class PageKind:
    """A page's kind; `confident` is False when the evidence was too thin to act on."""

    name: str
    confident: bool
    signals: tuple[str, ...] = ()
    article_evidence: bool = False  # the page declares itself an article somewhere (JSON-LD, og:type, dates)


def classify(tree: Element, url: str, json_ld: JsonLd | None = None) -> PageKind:
    """The page's kind from its declared structure and URL; see the module docstring. `json_ld` is the page's
    page_json_ld when the caller has read it already."""
    votes: Counter[str] = Counter()
    signals: list[str] = []
    _vote_json_ld(page_json_ld(tree) if json_ld is None else json_ld, votes, signals)
    declared = DECLARED(tree)
    _vote_microdata(declared, votes, signals)
    _vote_url(url, votes, signals)
    _vote_markup(tree, declared, votes, signals)
    _vote_article(tree, url, votes, signals)
    _vote_home(url, votes, signals)
    if not votes:
        return PageKind("article", False)
    ranked = votes.most_common(2)
    best, lead = ranked[0]
    runner_up = ranked[1][1] if len(ranked) > 1 else 0
    confident = lead >= CONFIDENT_VOTES and lead > runner_up
    return PageKind(best, confident, tuple(signals), article_evidence=votes["article"] > 0)


def _vote_json_ld(json_ld: JsonLd, votes: Counter[str], signals: list[str]) -> None:
    seen: set[str] = set()
    for node in json_ld:
        for kind in _types(node):
            if kind in JSON_LD_VOTES and kind not in seen:
                seen.add(kind)
                name, weight = JSON_LD_VOTES[kind]
                votes[name] += weight
                signals.append(f"json-ld:{kind}")


def _types(node: dict[str, Any]) -> list[str]:
    found = json_ld_types(node)
    main = node.get("mainEntity")  # QAPage / ItemList pages often declare their kind one level down
    if isinstance(main, dict) and isinstance(main.get("@type"), str):
        found.append(main["@type"])
    return found


def _vote_microdata(declared: list[Any], votes: Counter[str], signals: list[str]) -> None:
    counts = Counter(
        str(item.get("itemtype")).rstrip("/").rsplit("/", 1)[-1]
        for item in declared
        if item.get("itemtype") is not None
    )
    if counts["Question"] >= FAQ_QUESTIONS:  # an FAQ section, not a thread: a Q&A page asks one question
        signals.append(f"microdata:FAQ x{counts.pop('Question')}")
        counts.pop("Answer", None)
    for kind, count in counts.items():
        if kind in MICRODATA_VOTES:
            name, weight = MICRODATA_VOTES[kind]
            votes[name] += weight * min(count, MICRODATA_CAP)
            signals.append(f"microdata:{kind}x{count}")


def _vote_url(url: str, votes: Counter[str], signals: list[str]) -> None:
    parts = urlsplit(url)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    if DOCS_HOST.match(parts.hostname or ""):
        votes["documentation"] += 2
        signals.append("url:docs-host")
    for pattern, kind, weight in URL_VOTES:
        if weight and pattern.search(path):
            votes[kind] += weight
            signals.append(f"url:{kind}")
            break  # the first (most specific) route decides


def _vote_home(url: str, votes: Counter[str], signals: list[str]) -> None:
    """A site's home page is a landing page, unless it declares itself an article: on WCXB's tune half 24 of 43
    home pages are service pages and 1 an article; read with the service profile the half scores 0.856 -> 0.857,
    and faster."""
    parts = urlsplit(url)
    if parts.path in ("", "/") and not parts.query and not votes["article"]:
        votes["service"] += HOME_VOTES
        signals.append("url:home")


def _vote_article(tree: Element, url: str, votes: Counter[str], signals: list[str]) -> None:
    """og:type "article" and a story's route. SEO plugins write og:type "article" on every page of a site, so
    alone under a catalogue's route it is worth half, and the route wins: Steam's genre and category pages (WCXB
    tune half, collections 0.7309 -> 0.7355: Steam's Action genre 0.53 -> 0.81, a bird-feeder shop 0.91 -> 0.89;
    check half 0.6809 -> 0.6844)."""
    path = urlsplit(url).path
    story = "url:dated" if DATED_PATH.search(path) else "url:story" if STORY_PATH.search(path) else None
    if tree.xpath(ARTICLE_META):
        votes["article"] += 1 if story is None and "url:collection" in signals else 2
        signals.append("meta:article")
    if story is not None:
        votes["article"] += 1
        signals.append(story)


def _vote_markup(tree: Element, declared: list[Any], votes: Counter[str], signals: list[str]) -> None:
    code_blocks = sum(1 for _ in tree.iter("pre"))
    if code_blocks >= 2 and next(tree.iter("nav", "aside"), None) is not None:
        votes["documentation"] += 1
        signals.append(f"markup:pre x{code_blocks}")
    if any(item.get("itemprop") == "price" or item.get("property") in PRICE_PROPERTIES for item in declared):
        votes["product"] += 1
        signals.append("markup:price")
