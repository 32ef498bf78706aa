"""Paragraphs a reading says more than once, kept the first time only.

    drop_repeated_lines(tree, text, format) -> text

Pages repeat text that a reader sees once: a landing page ships its hero and its figures three times, one copy per
screen size, and CSS shows one; a forum reply quotes the post it answers; a log or traceback is pasted into three
replies. trafilatura drops some repeats (its duplicate test looks at elements, not at the lines of webreach's own
main-region and card readings) and keeps others. Here a line that says what an earlier line said (case and spacing
aside) is left out when it has COPY_WORDS words or more, or when it has at least MIN_WORDS and sits in a run of such
repeats that holds one that long (a copied block), or when it has ECHO_WORDS or more and says again what the line
just before it said (a shop card's name over its image and again under it, "Sold out" on its badge and its button);
a short line repeated on its own (two products' equal spec lines, "Same problem here." from a second user) stays.
Never left out: table rows, list items and lines of code, as the reading marks them (markdown fences and indented
code, "|", "- ", "1. ") or as the page does (the lines of its <pre>, <code>, <li>, <td> and <th>, which the text
format and webreach's own readings do not mark), and in html anything but a one-line paragraph (a quoted post in a
<blockquote> stays there). Documentation keeps every line (the cascade does not call this for it): a docs page shows
the same notes under each language's tab, and the benchmark's truth keeps them all. So do pages read as articles
(precision mode), whose repeats trafilatura has already weighed: with them the article benchmark fell 0.9707 ->
0.9684 (a meal plan lists "1 green container" under every day).

Measured (WCXB dev, word F1 of format=text, against the same cascade without this stage): tune half 0.8662 ->
0.8685, check half 0.8404 -> 0.8440; forums 0.795 -> 0.802 and 0.761 -> 0.771, products 0.664 -> 0.669 and 0.630
-> 0.643, services 0.822 -> 0.829 and 0.822 -> 0.825; the article benchmark unchanged. Dropping every repeat of 3
words or more scored higher on the tune half (0.8700) and the same on the check half, but took spec lines and
short replies with it. The echoes: tune half 0.8713 -> 0.8715 (collections 0.7240 -> 0.7268, products +0.0005; a
service's truth keeps one echo), check half unchanged (collections -0.0010: one shop's truth keeps every card's
doubled name; services, listings, products up).
"""

from __future__ import annotations

import re

from lxml import etree

from webreach.extract.tree import Element
from webreach.models import ReadFormat

MIN_WORDS = 3  # a shorter line ("Add to cart", "Reply") repeats by design
ECHO_WORDS = 2  # a line of this many words said twice in a row ("Sold out", a card's name over its image)
COPY_WORDS = 8  # a repeat this long is a copy; 6 took spec lines, 12 fewer copies (check half equal within 0.0001)
# a table row or a list item, in text and markdown: "|", "- ", "• ", "1. ", "(2) ", "a) ", "iv. "
STRUCTURE = re.compile(r"\s*(?:\||[-*+•·▪◦‣]\s|\(?(?:\d+|[a-zA-Z]|[ivxIVX]+)[.)]\s)")
FENCE = re.compile(r"\s*(`{3,}|~{3,})")
INDENTED_CODE = re.compile(r"(?: {4}|\t)\S")
HTML_PARAGRAPH = re.compile(r"\s*<p>(?:(?!<p[\s>]).)*</p>\s*$")
BLOCK_TAGS = ("pre", "code", "li", "td", "th")  # what the page repeats on purpose, as lines


def drop_repeated_lines(tree: Element, text: str, format: ReadFormat) -> str:
    """`text` (in `format`) without the lines that repeat an earlier one; see the module docstring."""
    lines = text.split("\n")
    repeats, echoes = _repeats(tree, lines, format)
    if not any(repeats) and not echoes:
        return text
    kept: list[str] = []
    gap = False  # a line was dropped since the last one kept: the blank lines around it go with it
    for number, line in enumerate(lines):
        if (
            number in echoes
            or repeats[number] >= COPY_WORDS
            or (repeats[number] and _in_copied_block(repeats, lines, number))
        ):
            gap = True
        elif line.strip():
            kept.append(line)
            gap = False
        elif not (gap and (not kept or not kept[-1].strip())):
            kept.append(line)
    while kept and not kept[-1].strip() and lines[-1].strip():
        kept.pop()
    return "\n".join(kept)


def _repeats(tree: Element, lines: list[str], format: ReadFormat) -> tuple[list[int], set[int]]:
    """Per line, its number of words if it repeats an earlier line and may be dropped, else 0; and the numbers of
    the lines that echo the line just before them (blank lines aside), which may be dropped too."""
    seen: set[str] = set()
    previous = ""  # the last line that was not blank, as a key
    echoes: set[int] = set()
    kept_as_is: set[str] | None = None  # the page's code lines, list items and cells, read at the first repeat
    fence: str | None = None  # the open markdown fence's marker
    repeats: list[int] = []
    for number, line in enumerate(lines):
        key = " ".join(line.split()).lower()
        words = len(key.split())
        fenced = fence is not None
        if format == "markdown":
            fence = _fence_after(line, fence)
            fenced = fenced or fence is not None or INDENTED_CODE.match(line) is not None
        droppable = key in seen and not fenced and _paragraph(line, format)
        repeat = droppable and words >= MIN_WORDS
        echo = droppable and key == previous and words >= ECHO_WORDS
        if repeat or echo:
            kept_as_is = _kept_as_is(tree) if kept_as_is is None else kept_as_is
            repeat = repeat and key not in kept_as_is
            if echo and key not in kept_as_is:
                echoes.add(number)
        repeats.append(words if repeat else 0)
        seen.add(key)
        previous = key or previous
    return repeats, echoes


def _fence_after(line: str, fence: str | None) -> str | None:
    """The markdown fence open after `line`, given the one open before it (CommonMark: a fence closes with the
    same character, at least as many times)."""
    found = FENCE.match(line)
    if found is None:
        return fence
    marker = found[1]
    if fence is None:
        return marker
    return None if marker[0] == fence[0] and len(marker) >= len(fence) and not line.strip()[len(marker) :] else fence


def _in_copied_block(repeats: list[int], lines: list[str], number: int) -> bool:
    """Whether the repeat at `number` sits in a run of repeats (blank lines aside) that holds a copy-long line."""
    for step in (-1, 1):
        other = number + step
        while 0 <= other < len(lines) and (repeats[other] or not lines[other].strip()):
            if repeats[other] >= COPY_WORDS:
                return True
            other += step
    return False


def _paragraph(line: str, format: ReadFormat) -> bool:
    """Whether `line` is a paragraph, not structure: in html a one-line <p>, elsewhere no row or list item."""
    if format == "html":
        return HTML_PARAGRAPH.match(line) is not None
    return STRUCTURE.match(line) is None


def _kept_as_is(tree: Element) -> set[str]:
    """The lines of the page's code blocks, list items and table cells, as keys: there repeating is the content
    (the text format does not mark them)."""
    keys: set[str] = set()
    for block in tree.iter(*BLOCK_TAGS):
        # lxml's own text walk, unless a <br> breaks the block's lines (0.2 ms a page that has repeats, then)
        text = _block_text(block) if next(block.iter("br"), None) is not None else "".join(block.itertext())
        keys.update(" ".join(line.split()).lower() for line in text.split("\n"))
    return keys


def _block_text(block: Element) -> str:
    """The text of `block` with its <br> elements as line breaks (WordPress writes code that way)."""
    pieces: list[str] = []
    depth = 0  # the block's own tail is not its text
    for event, element in etree.iterwalk(block, events=("start", "end")):
        depth += 1 if event == "start" else -1
        if event == "start":
            pieces.append("\n" if element.tag == "br" else element.text or "")
        elif depth and element.tail:
            pieces.append(element.tail)
    return "".join(pieces)
