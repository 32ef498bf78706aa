"""Features of each text block of a prepared page: what the learned block scorer (scorer.py) weighs.

    page_blocks(tree, kind, json_ld, reading=(), only_reading=False) -> list[Block]

A block is the text a block-level element (tags.LINE_TAGS) holds itself, its inline children's included and
its block children's left to them: the same segmentation as the page's visible text, so a reading's lines can be
matched to blocks by their words (Block.key). Each block gets a fixed vector (Block.numbers, NUMERIC names them):
text and link density, tag, furniture around it, position, repetition among its siblings, headings, the page's kind,
how much of it the page's JSON-LD says too, and (context.py) the block against the rules' reading. Pure: reads the
tree, changes nothing.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from webreach.extract.blocks.context import CONTEXT, Context
from webreach.extract.extracted import WORD
from webreach.extract.kinds.page_type import PageKind
from webreach.extract.metadata import JsonLd
from webreach.extract.preparation import tags
from webreach.extract.readings.card_grid import FURNITURE_TAGS, names_furniture
from webreach.extract.readings.main_region import region
from webreach.extract.tree import Element

KINDS = ("article", "forum", "product", "listing", "collection", "documentation", "service")
TAG_GROUPS = {"p": 0, "li": 1, "h1": 2, "h2": 2, "h3": 2, "h4": 2, "h5": 2, "h6": 2, "td": 3, "th": 3, "dd": 4,
              "dt": 4, "div": 5, "pre": 6, "blockquote": 7, "figcaption": 8, "summary": 8}  # fmt: skip
OTHER_TAG = 9
TAG_COUNT = 10
NUMERIC = (
    *("log_words", "log_chars", "link_share", "digit_share", "sentence_end", "mean_word_len", "comma_rate"),
    *(f"tag_{i}" for i in range(TAG_COUNT)),
    *("in_furniture", "furniture_name", "in_region", "in_article", "depth", "position", "words_before"),
    *("log_same_siblings", "log_same_cousins", "after_heading", "json_ld_share", "capital_start"),
    *(f"kind_{name}" for name in KINDS),
    *("kind_confident", "article_evidence", "json_ld_product"),
    *CONTEXT,
)
DIGIT = re.compile(r"\d")
SKIPPED_TAGS = tags.HIDDEN_TAGS | {"select", "button", "option"}


@dataclass(frozen=True)
class Block:
    """One block's text, its key (its lower-cased words joined by spaces), its word count and its features."""

    text: str
    key: str
    words: int
    numbers: tuple[float, ...]


@dataclass(frozen=True)
class _Raw:
    element: Element
    text: str
    links: int  # words inside links
    place: tuple[float, ...]  # furniture around it, a furniture name, in the main region, in an article, depth


def page_blocks(
    tree: Element, kind: PageKind, json_ld: JsonLd, reading: Sequence[str] = (), *, only_reading: bool = False
) -> list[Block]:
    """Every text block of the page's body in document order, with its features against `reading` (the rules'
    reading as line keys, context.py); with `only_reading`, just the blocks that are its lines (the features of the
    others would never be asked for)."""
    main = region(tree)
    raws = list(_raw_blocks(tags.body_of(tree), main))
    words = [[word.lower() for word in WORD.findall(raw.text)] for raw in raws]
    keys = [" ".join(each) for each in words]
    context = Context([raw.element for raw in raws], keys, reading, main)
    declared = _json_ld_words(json_ld)
    page = _page_numbers(kind, json_ld)
    total = sum(map(len, words)) or 1
    blocks, before, heading = [], 0, False
    families: dict[Element, Counter[tuple[str, str | None]]] = {}
    for index, raw in enumerate(raws):
        if not only_reading or keys[index] in context.lines:
            numbers = _block_numbers(raw, words[index]) + raw.place + (index / len(raws), before / total)
            numbers += (*_repetition(raw.element, families), float(heading), *_echo(words[index], declared))
            numbers += (float(raw.text[:1].isupper()), *page, *context.numbers(index))
            blocks.append(Block(raw.text, keys[index], len(words[index]), numbers))
        before += len(words[index])
        heading = TAG_GROUPS.get(raw.element.tag) == 2
    return blocks


def _raw_blocks(body: Element, main: Element) -> Iterator[_Raw]:
    """(element, own text, linked words, place) of each block element holding text of its own, in document order.
    One walk: each element's place (furniture around it, a furniture name, in the main region, in an article, its
    depth) comes from its parent's, and hidden subtrees are walked past."""
    places: dict[Element, tuple[float, ...]] = {body: (0.0, 0.0, float(main is body), 0.0, 0.0)}
    elements = body.iter()
    next(elements)
    for element in elements:
        tag = element.tag if isinstance(element.tag, str) else ""
        if tag in SKIPPED_TAGS or element.get("hidden") is not None:
            tags.skip_subtree(elements, element)
            continue
        parent = places.get(element.getparent(), (0.0, 0.0, 0.0, 0.0, 0.0))
        named = names_furniture(element.get("class")) or names_furniture(element.get("id"))
        place = (
            max(parent[0], float(tag in FURNITURE_TAGS)),
            max(parent[1], float(named)),
            max(parent[2], float(element is main)),
            max(parent[3], float(tag == "article")),
            min(1.0, parent[4] + 1 / 30),
        )
        places[element] = place
        if tag not in tags.LINE_TAGS or tag in ("br", "hr"):
            continue
        parts: list[str] = [element.text or ""]
        links = [0]
        for child in element:
            _inline(child, parts, links, inside_link=False)
        text = " ".join("".join(parts).split())
        if WORD.search(text):
            yield _Raw(element, text, links[0], place)


def _inline(element: Element, parts: list[str], links: list[int], *, inside_link: bool) -> None:
    """Add an inline child's text (and its tail) to its block's parts; a block child adds only its tail."""
    tag = element.tag if isinstance(element.tag, str) else ""
    if tag and tag not in tags.LINE_TAGS and tag not in SKIPPED_TAGS and element.get("hidden") is None:
        linked = inside_link or tag == "a"
        if element.text:
            parts.append(element.text)
            if linked:
                links[0] += len(WORD.findall(element.text))
        for child in element:
            _inline(child, parts, links, inside_link=linked)
    elif tag in tags.LINE_TAGS:
        parts.append(" ")
    if element.tail:
        parts.append(element.tail)
        if inside_link:
            links[0] += len(WORD.findall(element.tail))


def _block_numbers(raw: _Raw, words: list[str]) -> tuple[float, ...]:
    count, text = len(words), raw.text
    tag = [0.0] * TAG_COUNT
    tag[TAG_GROUPS.get(raw.element.tag, OTHER_TAG)] = 1.0
    return (
        math.log1p(count),
        math.log1p(len(text)),
        min(1.0, raw.links / count) if count else 0.0,
        len(DIGIT.findall(text)) / len(text),
        float(text.rstrip()[-1:] in ".!?:"),
        min(15.0, sum(map(len, words)) / count) / 15 if count else 0.0,
        min(1.0, 5 * text.count(",") / count) if count else 0.0,
        *tag,
    )


def _repetition(element: Element, families: dict[Element, Counter[tuple[str, str | None]]]) -> tuple[float, float]:
    """How many siblings share the block's tag and class, and how many of its parent's siblings share the parent's
    (`families`: each parent's children counted by tag and class, filled as the walk meets them)."""

    def same(node: Element | None) -> float:
        if node is None or (parent := node.getparent()) is None:
            return 0.0
        if parent not in families:
            families[parent] = Counter((str(child.tag), child.get("class")) for child in parent)
        return math.log1p(families[parent][(str(node.tag), node.get("class"))] - 1)

    return same(element), same(element.getparent())


def _echo(words: list[str], declared: set[str]) -> tuple[float]:
    """The share of the block's words the page's JSON-LD says too (a product's description, an article's body)."""
    if not words or not declared:
        return (0.0,)
    return (sum(1 for word in words if word in declared) / len(words),)


def _json_ld_words(json_ld: JsonLd) -> set[str]:
    words: set[str] = set()
    for node in json_ld:
        for value in _strings(node):
            words.update(word.lower() for word in WORD.findall(value))
    return words


def _strings(value: object, depth: int = 0) -> Iterator[str]:
    if depth > 8:
        return
    if isinstance(value, str):
        if " " in value:  # prose, not an id, a URL or a type name
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, depth + 1)


def _page_numbers(kind: PageKind, json_ld: JsonLd) -> tuple[float, ...]:
    kinds = tuple(float(kind.name == name) for name in KINDS)
    product = any("Product" in str(node.get("@type", "")) for node in json_ld)
    return (*kinds, float(kind.confident), float(kind.article_evidence), float(product))
