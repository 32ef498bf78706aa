"""Paragraphs a reading says more than once, kept the first time only.

    drop_repeated_lines(tree, text, format) -> text

Pages repeat text that a reader sees once: a landing page ships its hero and its figures three times, one copy per
screen size, and CSS shows one; a forum reply quotes the post it answers; a thread says "Click to expand..." under
every quote; a log or traceback is pasted into three replies. trafilatura drops some repeats (its duplicate test
looks at elements, not at the lines of webreach's own main-region and card readings) and keeps others. Here a
line of the reading of at least MIN_WORDS words that says what an earlier line said (case and spacing aside) is
left out, except where repeating is the content: table rows, list items, lines of code (in a markdown fence, or
lines of the page's <pre> and <code> blocks, which the text format cannot mark), and in html anything but a
one-line paragraph. Documentation keeps every line (the cascade does not call this for it): a docs page shows
the same notes under each language's tab, and the benchmark's truth keeps them all. So do pages read as
articles (precision mode), whose repeats trafilatura has already weighed: with them the article benchmark fell
0.9707 -> 0.9684 (a meal plan lists "1 green container" under every day).

Measured (WCXB dev, word F1 of format=text, at 3 words): tune half 0.8662 -> 0.8700, check half 0.8374 ->
0.8406; forums 0.795 -> 0.806 and 0.746 -> 0.758, products 0.664 -> 0.672 and 0.631 -> 0.644, listings 0.740 ->
0.757 and 0.660 -> 0.661; the article benchmark 0.9707 -> 0.9708. At 4 and 5 words less moved either way;
without the code lines protected, documentation the classifier is unsure of fell.
"""

from __future__ import annotations

import re
from typing import Any

from webreach.models import ReadFormat

MIN_WORDS = 3  # a shorter line ("Add to cart", "Reply") repeats by design
STRUCTURE = re.compile(r"\s*(?:\||[-*+]\s|\d+[.)]\s)")  # a table row or a list item, in text and markdown
FENCE = re.compile(r"\s*(?:```|~~~)")
HTML_PARAGRAPH = re.compile(r"\s*<p>(?:(?!<p[\s>]).)*</p>\s*$")


def drop_repeated_lines(tree: Any, text: str, format: ReadFormat) -> str:
    """`text` (in `format`) without the lines that repeat an earlier one; see the module docstring."""
    seen: set[str] = set()
    kept: list[str] = []
    code: set[str] | None = None  # the page's code lines, read when a repeat is first found
    fenced = False
    for line in text.split("\n"):
        if format == "markdown" and FENCE.match(line):
            fenced = not fenced
        key = " ".join(line.split()).lower()
        if key in seen and not fenced and _repeatable(key, line, format):
            code = _code_lines(tree) if code is None else code
            if key not in code:
                continue
        seen.add(key)
        kept.append(line)
    return "\n".join(kept) if len(kept) < text.count("\n") + 1 else text


def _repeatable(key: str, line: str, format: ReadFormat) -> bool:
    """Whether `line` is a paragraph long enough for a repeat of it to be a copy, not structure."""
    if len(key.split()) < MIN_WORDS:
        return False
    if format == "html":
        return HTML_PARAGRAPH.match(line) is not None
    return STRUCTURE.match(line) is None


def _code_lines(tree: Any) -> set[str]:
    """The lines of the page's <pre> and <code> blocks, as keys: code repeats itself on purpose."""
    return {
        " ".join(line.split()).lower()
        for block in tree.iter("pre", "code")
        for line in "".join(block.itertext()).split("\n")
    }
