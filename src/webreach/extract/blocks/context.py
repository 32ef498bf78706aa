"""Features of a block against the rules' reading and the page around it: what the tree scorer adds to features.py.

    Context(elements, keys, reading).numbers(index) -> tuple[float, ...]   (CONTEXT names them)

The reading is the rules' own answer (its lines as block keys, scorer.line_key): whether the block is one of its
lines, whether its neighbours are, its share of the reading's words and where in the reading it comes; the share of
its siblings the reading kept; the link density of its parent element; and its distance from the page's main
heading (the first h1 of the main region, else of the page). Pure: reads the tree, changes nothing.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from webreach.extract.extracted import WORD
from webreach.extract.tree import Element

CONTEXT = (
    *("in_reading", "previous_in_reading", "next_in_reading", "reading_share", "reading_place"),
    *("siblings_in_reading", "parent_link_share", "log_parent_words"),
    *("has_main_heading", "heading_distance", "log_words_from_heading", "reading_lines_log"),
)


class Context:
    """The page's blocks (their elements and keys, in document order) against the reading's line keys."""

    def __init__(self, elements: Sequence[Element], keys: Sequence[str], reading: Sequence[str], region: Element):
        self.elements, self.keys = elements, keys
        self.lines = set(reading) - {""}
        self.places: dict[str, int] = {}
        for place, line in enumerate(line for line in reading if line):
            self.places.setdefault(line, place)
        self.counts = [len(key.split()) if key else 0 for key in keys]
        self.before = [0, *itertools.accumulate(self.counts)]  # words of the blocks before each
        self.reading_words = sum(len(line.split()) for line in reading) or 1
        self.heading = _main_heading(elements, region)
        self.parents: dict[Element | None, tuple[float, ...]] = {}
        self.families = self._family_shares()

    def _family_shares(self) -> dict[Element | None, float]:
        """Per parent element, the share of its blocks that are lines of the reading."""
        totals: dict[Element | None, list[int]] = {}
        for element, key in zip(self.elements, self.keys, strict=True):
            count = totals.setdefault(element.getparent(), [0, 0])
            count[0] += key in self.lines
            count[1] += 1
        return {parent: kept / total for parent, (kept, total) in totals.items()}

    def numbers(self, index: int) -> tuple[float, ...]:
        key, element = self.keys[index], self.elements[index]
        inside = key in self.lines
        previous = index > 0 and self.keys[index - 1] in self.lines
        following = index + 1 < len(self.keys) and self.keys[index + 1] in self.lines
        place = self.places.get(key)
        reading_place = place / max(1, len(self.places)) if place is not None else -1.0
        parent = element.getparent()
        return (
            float(inside),
            float(previous),
            float(following),
            min(1.0, self.counts[index] / self.reading_words),
            reading_place,
            self.families.get(parent, 0.0),
            *self._parent_links(parent),
            *self._heading(index),
            math.log1p(len(self.places)),
        )

    def _parent_links(self, parent: Element | None) -> tuple[float, ...]:
        """(words inside links / words, log words) of the parent element's whole text; memoised per parent."""
        if parent is None:
            return (0.0, 0.0)
        if parent not in self.parents:
            words = len(WORD.findall(" ".join(parent.itertext())))
            linked = sum(len(WORD.findall(" ".join(a.itertext()))) for a in parent.iter("a"))
            self.parents[parent] = (min(1.0, linked / words) if words else 0.0, math.log1p(words))
        return self.parents[parent]

    def _heading(self, index: int) -> tuple[float, float, float]:
        """(there is a main heading, signed distance in blocks over the page's blocks, signed log words between)."""
        if self.heading is None:
            return (0.0, 0.0, 0.0)
        low, high = sorted((self.heading, index))
        between = self.before[high] - self.before[low]
        sign = 1.0 if index >= self.heading else -1.0
        return (1.0, (index - self.heading) / len(self.keys), sign * math.log1p(between))


def _main_heading(elements: Sequence[Element], region: Element) -> int | None:
    """The index of the first h1 block inside the main region, else of the first h1 at all."""
    first = None
    for index, element in enumerate(elements):
        if element.tag != "h1":
            continue
        if first is None:
            first = index
        if region.tag != "body" and any(ancestor is region for ancestor in element.iterancestors()):
            return index
    return first
