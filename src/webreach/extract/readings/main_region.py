"""The page's main region as a reader sees it: everything in <main> (or role="main", else <body>) but the page's
furniture (navigation, headers, footers, asides, forms and controls, and elements whose class or id names a
menu, a cookie box, a breadcrumb ...: card_grid.py's FURNITURE_NAMES), and text for screen readers only
(screen_reader_text.py).

Listings, catalogues and marketing pages are not one block of prose: their content is every section and every
grid, and trafilatura, which looks for an article, keeps one part of them. The cascade takes this region instead
for pages classified as listings, collections or services (documentation too, in a narrow band), for pages it
is unsure of and that do not look like articles, and for any short reading (cascade.py has the bounds), when the
region holds between MIN_GAIN and MAX_GAIN times the words trafilatura kept: more words is the point, but a
region many times larger is mostly boilerplate trafilatura was right to drop. On WCXB's tune half, with the
bounds cascade.py sets (1.2-4, and 1.5-3 for unsure pages), word F1 by true type moved: service 0.775 -> 0.808,
collection 0.648 -> 0.707, listing 0.654 -> 0.667, documentation 0.926 -> 0.931, article 0.935 -> 0.936
(bench/extraction.py --wcxb; collections also read trafilatura fast since). An unsure page's region also replaces
a reading of trafilatura's that holds 1.1 to 4 times its words: one that kept the menus and footers around it
(its shrinking band, 0.25-0.9). One walk of the region, no copy of the tree; the deciding walk stops once the
region is too long to be taken, and one walk decides every band.
"""

from __future__ import annotations

import itertools
import math

from lxml import etree

from webreach.extract.extracted import WORD, content_words, paragraphs_html
from webreach.extract.preparation import html_tree, tags
from webreach.extract.readings.card_grid import FURNITURE_TAGS, names_furniture
from webreach.extract.readings.element_markdown import to_markdown
from webreach.extract.readings.screen_reader_text import screen_reader_class, states_a_number
from webreach.extract.tree import Element
from webreach.models import ReadFormat

MIN_GAIN = 1.2
MAX_GAIN = 4.0
TEXT_NODES = etree.XPath("count(.//text()[normalize-space()])")
CHARS_SLACK = 1.5  # words are counted, characters capped: room for a region of longer words
# the attribute, and /descendant:: rather than //, where libxml2 first gathers every node of the page: 0.53 ->
# 0.16 ms a WCXB dev page, the same element on all 1,497; then the role under /descendant::* too, 0.21 -> 0.07 ms,
# the same element on all 1,678 AEB and WCXB dev pages
MAIN = etree.XPath("/descendant::main | /descendant::*/@role[.='main']/..")
Bands = tuple[tuple[float, float], ...]  # how many times a reading's words the region may hold to replace it
GAINS: Bands = ((MIN_GAIN, MAX_GAIN),)


def region(tree: Element) -> Element:
    """The element holding the page's main content: the first <main> or role="main", else <body>."""
    found = MAIN(tree)
    return found[0] if found else tags.body_of(tree)


def region_text(tree: Element, format: ReadFormat, base_url: str = "", max_chars: int | None = None) -> str:
    """The main region in `format`, furniture left out (with `max_chars`, a text cut short once that long)."""
    return read_region(region(tree), format, base_url, max_chars)


def read_region(root: Element, format: ReadFormat, base_url: str = "", max_chars: int | None = None) -> str:
    """region_text of the region `root` already found."""
    # a page repeats its class attributes: each is judged once a walk (True furniture, None for screen readers
    # unless its text states a number, False neither), which halves the furniture test's cost on a median region
    judged: dict[str, bool | None] = {}

    def furniture(element: Element) -> bool:
        if element is root:
            return False
        if element.tag in FURNITURE_TAGS:
            return True
        name = element.get("class")
        if name is not None:
            if name not in judged:
                judged[name] = _class_verdict(name)
            verdict = judged[name]
            if verdict or (verdict is None and not states_a_number(element)):
                return True
        return names_furniture(element.get("id"))

    if format == "markdown" and max_chars is None:
        return to_markdown(root, base_url, furniture)
    text = html_tree.visible_text(root, furniture, max_chars)
    return paragraphs_html(text) if format == "html" else text


def _class_verdict(name: str) -> bool | None:
    """True when a class attribute names furniture, None when it names text for screen readers, else False."""
    if names_furniture(name):
        return True
    return None if screen_reader_class(name) else False


def widen(tree: Element, extracted: str, format: ReadFormat, base_url: str = "", bands: Bands = GAINS) -> str:
    """The main region's text when it holds a number of times the words of `extracted` that lies in one of `bands`
    (low, high), else "". A band under 1 is for a reading that kept what lies outside the region (menus, a
    footer: trafilatura's last resort is the whole page)."""
    words = content_words(extracted)
    root = region(tree)
    if not may_hold(root, math.ceil(min(low for low, _ in bands) * words)):
        return ""
    # the region's plain text decides; the walk stops early on a region far longer than the bands allow
    cap = int(max(high for _, high in bands) * CHARS_SLACK * len(extracted))
    text = read_region(root, "text", base_url, max_chars=cap)
    found = content_words(text)
    if len(text) >= cap or not any(low * words <= found <= high * words for low, high in bands):
        return ""
    return text if format == "text" else read_region(root, format, base_url)


def may_hold(root: Element, words: int) -> bool:
    """Whether the text under `root` (and its tail, which the reader's walk takes too) may hold `words` words a
    reader sees: lxml joins its text nodes in C, hidden and furniture ones too, and two nodes that meet without a
    space run their words together there, so each node with a word in it may add one. The bound settles 200 of
    the 567 times widen is asked on the 1,678 pages of WCXB dev and AEB, with nothing read differently, and a
    median page costs 1% less (26.90 -> 26.56 ms, half of WCXB dev timed both ways in turn)."""
    counted = WORD.finditer(f"{root.text_content()} {root.tail or ''}")
    found = sum(1 for _ in itertools.islice(counted, words))
    return found >= words or found + int(TEXT_NODES(root)) >= words
