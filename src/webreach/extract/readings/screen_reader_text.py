"""Text written for screen readers only, which the main-region reading leaves out: no sighted reader sees it.

    screen_reader_class(classes) -> bool, states_a_number(element) -> bool

Sites restate visuals and label controls for screen readers in elements that CSS moves off-screen, named by a
small family of classes: `sr-only` (Bootstrap, Tailwind), `screen-reader-text` (WordPress), `visually-hidden`
(Shopify's themes and many more), `show-for-sr` (Foundation), `element-invisible` (Drupal), and prefixed or
suffixed forms (`u-srOnly`, `usa-sr-only`, `visually-hidden--inline`, CSS modules' `styles_srOnly__6uNpq`). Read
as text, a shop's card says "Regular price $19.99 Regular price Sale price $19.99 Unit price / per", a filter
list "Filter Size with value XXS" for every size, an IKEA card every variant's full name a second time.

The main region (main_region.py), which reads catalogues, listings and marketing pages, skips such elements as it
skips menus. Left in: screen-reader text that states a number ("Original price was: 39€" beside a struck-through
price, a rating out of five), often the only words that say what the figures beside them mean; and any element a
class shows again at some width or on focus (Tailwind's `md:not-sr-only`, `focus:not-sr-only`). trafilatura's
readings are not touched: hiding the elements in the parsed tree for every reader cost as much as the check saves
(1.5 ms a median page for the markup scan and the tree query) and moved trafilatura's balanced reading on pages
where it then fell outside the main region's bounds.

Measured on WCXB dev (bench/extraction.py --wcxb): tune half 0.8715 -> 0.8719, collections 0.727 -> 0.731 (Death
Wish Coffee's catalogue 0.29 -> 0.45, Allbirds, Dick Blick; Bombas -0.01); check half 0.8528 -> 0.8533,
collections 0.667 -> 0.673 (IKEA, Lulus, Gymshark; a BetterHelp service page -0.06); AEB unchanged. Leaving out
number-stating text too scored the same on the tune half and would have cost agents those prices' meaning. The
first look (HINT) keeps the main region's walk as fast as before (2.11 ms a median region, with the furniture
search made cheaper beside it).
"""

from __future__ import annotations

import re

from webreach.extract.tree import Element

NAMES = (
    "sr-only", "sr_only", "srOnly", "screen-reader-text", "screen-reader-only", "screenreader-only", "screenreader",
    "visually-hidden", "visuallyhidden", "hiddenVisually", "show-for-sr", "element-invisible",
)  # fmt: skip
# a class token that is one of NAMES, maybe prefixed ("u-", "usa-", "md:", "styles_") or suffixed ("--inline")
SCREEN_READER_CLASS = re.compile(r"(?:[A-Za-z0-9]+[-_:]{1,2})*(?:" + "|".join(NAMES) + r")(?:[-_]{1,2}[A-Za-z0-9]+)*")
SHOWN_AGAIN = "not-sr-only"
# a cheap first look at a class attribute: the parts of NAMES, as substrings
HINT = re.compile(r"sr[-_]only|srOnly|creen-?reader|isually-?hidden|iddenVisually|show-for-sr|element-invisible")
STATES_A_NUMBER = re.compile(r"\d")


def screen_reader_class(classes: str) -> bool:
    """Whether a class attribute marks text for screen readers only (and no class shows it again)."""
    if HINT.search(classes) is None:
        return False
    tokens = classes.split()
    return not any(SHOWN_AGAIN in token for token in tokens) and any(SCREEN_READER_CLASS.fullmatch(t) for t in tokens)


def states_a_number(element: Element) -> bool:
    """Whether the text under `element` holds a digit."""
    return STATES_A_NUMBER.search(element.text_content()) is not None
