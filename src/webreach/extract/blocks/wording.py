"""What a block's text says: the wording features of the learned block scorer (features.py adds them to each block).

    Wording(json_ld).numbers(text, words, section) -> tuple[float, ...]   (WORDING names them)

Where a block sits says little about ordinary prose inside a page's main region: a shipping note or a review
summary reads like a product's description. What it says does. Per block: whether its own text speaks of shipping
and returns, reviews, related items, legal terms, accounts and newsletters, or buying (a cart, stock, a sale); how
often it says "we" and "you"; whether it states a price. The same families asked of its section's heading (the
nearest heading before it: "Shipping & returns", "You may also like", "Description"). And how much of it the page's
JSON-LD says of the page's own item: its name (or headline) and its description (or body), not the organisation,
breadcrumbs or reviews around it. Pure: reads strings, changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from webreach.extract.extracted import WORD
from webreach.extract.metadata import JsonLd, json_ld_types

FAMILIES = {
    "shipping": r"shipping|shipped|ships|delivery|dispatch(?:ed)?|returns?|refunds?|exchanges?|warranty|guarantee",
    "reviews": r"reviews?|reviewed|ratings?|rated|stars?|verified (?:buyer|purchase)|helpful",
    "related": r"you (?:may|might) also like|related|recommended|similar|recently viewed|customers (?:also|who)|"
    r"frequently bought|more from|popular|trending|best ?sellers?",
    "legal": r"privacy|cookies?|terms|conditions|polic(?:y|ies)|rights reserved|copyright|consent|disclaimer|"
    r"affiliate",
    "account": r"sign ?up|sign ?in|log ?in|subscribe|newsletter|e-?mail address|follow us|create an account|"
    r"my account|wish ?list",
    "buying": r"add to (?:cart|bag|basket)|checkout|in stock|out of stock|sold out|quantity|buy now|sale|discount|"
    r"coupon|promo(?:tion)?|\d+ ?% off|save \d+",
}
DESCRIBING = re.compile(
    r"\b(?:description|details|features|specifications?|specs|overview|about this|ingredients|dimensions|"
    r"materials?|highlights)\b"
)
PATTERNS = {name: re.compile(rf"\b(?:{pattern})\b") for name, pattern in FAMILIES.items()}
LEGAL = list(FAMILIES).index("legal")
LEGAL_MARK = re.compile(r"©|\(c\)")
PRICE = re.compile(r"[$€£¥]\s?\d|\d\s?[$€£¥]|\b(?:usd|eur|gbp)\b", re.IGNORECASE)
WE = frozenset(("we", "our", "us", "ours"))
YOU = frozenset(("you", "your", "yours"))
NOT_THE_ITEM = frozenset(
    ("BreadcrumbList", "Organization", "WebSite", "SearchAction", "ListItem", "Person", "ImageObject", "Brand",
     "Offer", "AggregateOffer", "AggregateRating", "Rating", "Review", "SiteNavigationElement", "LocalBusiness")
)  # fmt: skip
WORDING = (
    *(f"says_{name}" for name in FAMILIES),
    *("we_share", "you_share", "states_price"),
    *(f"section_{name}" for name in FAMILIES),
    *("section_describes", "section_names_item", "item_name_share", "item_description_share"),
)


class Wording:
    """The page's item as its JSON-LD declares it (the words of its names and of its descriptions), against which
    each block's wording is read."""

    def __init__(self, json_ld: JsonLd):
        self.names: set[str] = set()
        self.descriptions: set[str] = set()
        for node in json_ld:
            if set(json_ld_types(node)) & NOT_THE_ITEM:
                continue
            for key in ("name", "headline", "alternativeHeadline"):
                self.names.update(_words_of(node.get(key)))
            for key in ("description", "articleBody", "text", "abstract"):
                self.descriptions.update(_words_of(node.get(key)))
        self.sections: dict[str, tuple[float, ...]] = {}

    def numbers(self, text: str, words: list[str], section: str) -> tuple[float, ...]:
        """The block's wording (`text`, its lower-cased `words`), under the heading `section` ("" before any)."""
        lowered = text.lower()
        says = [float(bool(pattern.search(lowered))) for pattern in PATTERNS.values()]
        says[LEGAL] = max(says[LEGAL], float(bool(LEGAL_MARK.search(lowered))))
        count = len(words) or 1
        own = (
            *says,
            sum(word in WE for word in words) / count,
            sum(word in YOU for word in words) / count,
            float(bool(PRICE.search(text))),
        )
        return own + self._section(section) + (_share(words, self.names), _share(words, self.descriptions))

    def _section(self, section: str) -> tuple[float, ...]:
        """What the heading over the block says (memoised: a section's blocks share it)."""
        if section not in self.sections:
            lowered = section.lower()
            words = [word.lower() for word in WORD.findall(section)]
            names = float(bool(words) and _share(words, self.names) >= 0.5)
            families = tuple(float(bool(pattern.search(lowered))) for pattern in PATTERNS.values())
            self.sections[section] = (*families, float(bool(DESCRIBING.search(lowered))), names)
        return self.sections[section]


def _share(words: list[str], declared: set[str]) -> float:
    if not words or not declared:
        return 0.0
    return sum(word in declared for word in words) / len(words)


def _words_of(value: object) -> Iterator[str]:
    """The lower-cased words of a declared string (or of a list of them)."""
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, str):
            yield from (word.lower() for word in WORD.findall(item))
