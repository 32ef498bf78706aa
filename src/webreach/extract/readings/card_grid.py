"""The main repeated-item block of a listing or catalogue page: every card of the grid, in page order.

Listing, category and landing pages put their content in cards: many sibling elements of one tag and class, each
a link with a title, a teaser, a price. trafilatura reads pages as articles and keeps few of them (on WCXB's tune
half it often kept a cookie banner instead). This finds, outside navigation, headers, footers and consent boxes,
the parent whose largest group of same-signature children (MIN_ITEMS or more, most with a link, a median of
MIN_ITEM_WORDS words or more, none holding three quarters of their words) holds the most words, and returns those
children's text.

The cascade uses it for listings, service pages and pages it is unsure of, and keeps whichever of trafilatura's
text and the grid has more words (tune half, those pages: 0.790 -> 0.820 word F1; articles would lose, 0.933 ->
0.926, so pages marked as articles never take this path). One pass over the tree, past the furniture's subtrees,
whose menus used to be weighed as grids only to be refused (a median page the cascade is unsure of: 1.48 -> 1.01
ms, the same grid on all 1,674 AEB and WCXB dev pages that parse).
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Callable

from webreach.extract.extracted import PARAGRAPH_BREAK
from webreach.extract.preparation import html_tree, tags
from webreach.extract.readings.element_markdown import to_markdown
from webreach.extract.tree import Element
from webreach.models import ReadFormat

MIN_ITEMS = 4
MIN_ITEM_WORDS = 3
MIN_LINKED_SHARE = 0.5
# a group whose largest member holds more than this share of its words is a page's regions (a skip link, a search
# box and the wrapper of everything), not cards (tune half 0.8717 -> 0.8731, flat from 0.75 to 0.85; 0.66 and 0.5
# also dropped real grids; check half unchanged)
MAX_CARD_SHARE = 0.75
# page furniture whose repeated links (menus, footers, language pickers) are never the content
FURNITURE_TAGS = frozenset({"nav", "header", "footer", "aside", "form", "select", "button"})
# A catalogue's filters and facets are controls too, their options a checkbox each ("Black", "Under $50"): WCXB
# collections, tune half 0.7355 -> 0.7370 (Adorama's DSLRs +0.10, Bombas' socks -0.04), check half 0.6844 ->
# 0.6874; listings check 0.7092 -> 0.7115; no article page or AEB page moves. Gymshark's truth keeps its filters.
FURNITURE_NAMES = (
    "cookie", "consent", "footer", "menu", "nav", "breadcrumb", "newsletter", "modal", "popup", "filter", "facet"
)  # fmt: skip
# searched in the lower-cased name: an IGNORECASE pattern loses re's literal search, 1.97 -> 0.45 us a class name
FURNITURE_NAME = re.compile("|".join(FURNITURE_NAMES))


def grid_items(tree: Element) -> list[Element]:
    """The cards of the page's main grid ([] when it has none)."""
    best: list[Element] = []
    best_words = 0
    elements = tree.iter()
    for parent in elements:
        if not (size := len(parent)):  # first: most elements are leaves
            continue
        if parent.tag in FURNITURE_TAGS:  # nothing inside may be the grid (in_furniture): walked past
            tags.skip_subtree(elements, parent)
            continue
        if size < MIN_ITEMS or not isinstance(parent.tag, str) or parent.tag in tags.HIDDEN_TAGS:
            continue
        cards = _largest_group(parent)
        if not cards:
            continue
        counts = [word_count(card) for card in cards]
        words = sum(counts)
        if statistics.median(counts) < MIN_ITEM_WORDS or words <= best_words or max(counts) > MAX_CARD_SHARE * words:
            continue
        if not in_furniture(parent):
            best, best_words = cards, words
    return best


def grid_text(tree: Element, format: ReadFormat, base_url: str = "") -> str:
    """The main grid's cards as paragraphs, markdown ones for format="markdown" ("" when there is no grid)."""
    return render_cards(grid_items(tree), format, base_url)


def render_cards(
    cards: list[Element], format: ReadFormat, base_url: str = "", skip: Callable[[Element], bool] | None = None
) -> str:
    """`cards` as paragraphs, markdown ones for format="markdown", less the elements `skip` names
    (repeated_blocks.py renders its blocks so too)."""
    markdown = format == "markdown"
    texts = (to_markdown(card, base_url, skip) if markdown else html_tree.visible_text(card, skip) for card in cards)
    return PARAGRAPH_BREAK.join(text for text in texts if text)


def _largest_group(parent: Element) -> list[Element]:
    """`parent`'s largest group of children sharing tag and class, if it is big enough and mostly links."""
    groups: dict[tuple[str, str], list[Element]] = defaultdict(list)
    for child in parent:
        if isinstance(child.tag, str):
            groups[(child.tag, child.get("class") or "")].append(child)
    if not groups:
        return []
    cards = max(groups.values(), key=len)
    if len(cards) < MIN_ITEMS:
        return []
    linked = sum(1 for card in cards if next(card.iter("a"), None) is not None)  # the card itself may be the link
    return cards if linked >= MIN_LINKED_SHARE * len(cards) else []


def word_count(element: Element) -> int:
    return len(" ".join(element.itertext()).split())


def in_furniture(element: Element) -> bool:
    for node in (element, *element.iterancestors()):
        if node.tag in FURNITURE_TAGS:
            return True
        if names_furniture(node.get("class")) or names_furniture(node.get("id")):
            return True
    return False


def names_furniture(name: str | None) -> bool:
    """Whether a class or id attribute names page furniture (a menu, a cookie box, a breadcrumb ...), any case."""
    return name is not None and FURNITURE_NAME.search(name.lower()) is not None
