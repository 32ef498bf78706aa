"""A product page's declared facts: name, price and description from its JSON-LD Product (or ProductGroup).

Shops publish these for search engines, and they are the part of a product page an agent asks for first; the
visible page often hides them (the description behind a tab or a script, the price in a widget trafilatura
drops as boilerplate). The cascade adds each fact the extracted text does not already hold, name and price
first, description last; a fact the text already says (most of its words present) is left out, so nothing is
said twice. The page's JSON-LD is read as the metadata reads it (metadata.page_json_ld).
"""

from __future__ import annotations

from collections import Counter
from typing import Any
from urllib.parse import unquote

from webreach.extract.extracted import PARAGRAPH_BREAK, WORD, paragraph_elements, word_bag
from webreach.extract.metadata import JsonLd, declared_text, json_ld_types
from webreach.extract.preparation import whitespace
from webreach.models import ReadFormat

PRODUCT_TYPES = frozenset({"Product", "ProductGroup", "IndividualProduct", "ProductModel", "Vehicle", "Book"})
SAID = 0.6  # share of a fact's words the text must hold for the fact to count as already said
MAX_DESCRIPTION_CHARS = 4_000
ESCAPED_SPACE = "%20"


def product_facts(json_ld: JsonLd) -> list[str]:
    """The first declared product's name, price line and description, as plain-text paragraphs ([] if none), of
    a page's JSON-LD objects (metadata.page_json_ld)."""
    for node in json_ld:
        if any(kind in PRODUCT_TYPES for kind in json_ld_types(node)):
            facts = [_plain(node.get("name")), _price(node.get("offers")), _plain(node.get("description"))]
            return [fact[:MAX_DESCRIPTION_CHARS] for fact in facts if fact]
    return []


def with_facts(text: str, facts: list[str], format: ReadFormat) -> str:
    """`text` (in `format`) with the facts it does not already say before it, in their order."""
    held = word_bag(text)
    missing = PARAGRAPH_BREAK.join(fact for fact in facts if not _said(fact, held))
    if not missing:
        return text
    if format != "html":
        return f"{missing}{PARAGRAPH_BREAK}{text}"
    start, body, rest = text.partition("<body>")  # inside the cleaned document, not a second one before it
    return f"{start}{body}\n{paragraph_elements(missing)}{rest}" if body else f"{paragraph_elements(missing)}\n{text}"


def _said(fact: str, held: Counter[str]) -> bool:
    words = Counter(WORD.findall(fact.lower()))
    total = sum(words.values())
    return total == 0 or sum((words & held).values()) >= SAID * total


def _plain(value: Any) -> str:
    """A declared string as a reader would see it: tags dropped, entities and percent-escapes decoded."""
    if not isinstance(value, str):
        return ""
    if ESCAPED_SPACE in value:  # some shops percent-encode the whole description
        value = unquote(value)
    return whitespace.HTML_SPACE.sub(" ", declared_text(value)).strip()


def _price(offers: Any) -> str:
    """ "Price: 12.99 EUR" (or a low-high range) from the first offer that names one."""
    for offer in offers if isinstance(offers, list) else [offers]:
        if not isinstance(offer, dict):
            continue
        currency = offer.get("priceCurrency") if isinstance(offer.get("priceCurrency"), str) else ""
        low, high, price = offer.get("lowPrice"), offer.get("highPrice"), offer.get("price")
        if isinstance(low, (str, int, float)) and isinstance(high, (str, int, float)) and str(low) != str(high):
            return f"Price: {low}-{high} {currency}".strip()
        amount = price if isinstance(price, (str, int, float)) else low
        if isinstance(amount, (str, int, float)) and str(amount).strip():
            return f"Price: {amount} {currency}".strip()
    return ""
