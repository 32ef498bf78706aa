"""trafilatura's settings and the cascade's later stages for each kind of page (cascade.py reads pages with them).

    profile_for(kind) -> Profile

A profile says how trafilatura reads a page (precision, recall, fast, comments) and which of the cascade's stages
may replace its reading: the card grid, the main region (its bands), the repeated blocks, and whether a paragraph
said twice is kept once. Sure articles and pages that show signs of being one take PRECISE, the article cascade;
each other kind its own profile; a page of no sure kind UNSURE.
"""

from __future__ import annotations

from dataclasses import dataclass

from webreach.extract.kinds.page_type import PageKind
from webreach.extract.readings.main_region import GAINS, Bands
from webreach.extract.readings.repeated_blocks import FORUM_RESCUE, PAGE_RESCUE, Rescue


@dataclass(frozen=True)
class Profile:
    """trafilatura's settings for one kind of page."""

    precision: bool = False
    recall: bool = False
    fast: bool = False
    comments: bool = False
    grid: bool = False  # the page's card grid replaces trafilatura's text when it holds more words (card_grid.py)
    # the page's main region replaces the text when it holds this many times its words (main_region.py), or this
    # fraction of the words of trafilatura's reading (shrink: one that kept what lies around the region)
    widen: Bands = ()
    shrink: Bands = ()
    rescue: Rescue | None = PAGE_RESCUE  # when the page's repeated blocks replace the text (repeated_blocks.py)
    once: bool = True  # a paragraph the reading says twice is kept once (repeated_lines.py)


# the article default, the fallback, and one profile per kind of page, each chosen on WCXB's tune half (F1 of the
# pages classified so, article cascade -> profile: forum 0.54 -> 0.69 with comments kept, product 0.63 -> 0.67,
# documentation 0.90 -> 0.92, service 0.69 -> 0.69). With the repeated-block rescue (stage 2b), by true type: forums
# read for recall, forum 0.770 -> 0.782; collections read balanced, not by the article cascade, collection 0.644 ->
# 0.648 and listing 0.648 -> 0.654. With the main region (stage 2c) confident collections, listings and services
# read trafilatura fast, as accurate (whole half 0.8582 -> 0.8589) and cheaper; products and docs lost (0.8574).
# Stage numbers are cascade.py's.
PRECISE = Profile(precision=True, fast=True, once=False)  # trafilatura has weighed a story's repeats (AEB)
BALANCED = Profile()
BALANCED_WITH_COMMENTS = Profile(comments=True)
RECALL = Profile(recall=True)
# no kind and no sign of an article: maybe a landing page, maybe a listing. Its main region also replaces a reading
# that kept menus and footers around it (tune half 0.8802 -> 0.8823; 0.2-0.3 alike, 0.8816 at 0.4-0.5, 0.8811 at 0.7)
UNSURE = Profile(grid=True, widen=((1.5, 3.0),), shrink=((0.25, 0.9),))
PROFILES: dict[str, Profile] = {
    # the replies are the content of a thread; fast: trafilatura's readability/jusText second opinion never changed
    # a forum's word F1 on the tune half (0.782 either way) and cost 1.2x its time
    "forum": Profile(recall=True, fast=True, comments=True, rescue=FORUM_RESCUE),
    "collection": Profile(fast=True, widen=GAINS),
    "product": Profile(rescue=None),  # a product's repeated blocks are recommendations
    "listing": Profile(fast=True, grid=True, widen=GAINS),
    # a docs page's main element is the page less its sidebars and table of contents: taken when trafilatura left
    # out a section or two of it (1.05-1.5x its words; tune half, documentation 0.931 -> 0.938, flat from 1.3 to
    # 1.8x; at 1.2-4x, as listings take it, 0.930)
    # (and every line: a docs page repeats its notes under each language's tab, which its readers want)
    "documentation": Profile(widen=((1.05, 1.5),), once=False),
    "service": Profile(fast=True, grid=True, widen=GAINS),
}


def profile_for(kind: PageKind) -> Profile:
    """The kind's profile; an unsure page keeps the article cascade if it shows any sign of being an article and
    is read balanced, its card grid considered, otherwise (tune half, such pages read balanced: articles 0.935 ->
    0.927, but services 0.716 -> 0.756, listings 0.479 -> 0.579, products 0.658 -> 0.834)."""
    if kind.confident:
        return PROFILES.get(kind.name, PRECISE)
    return PRECISE if kind.article_evidence else UNSURE
