"""Headings put back over the sections a reading kept: trafilatura drops many of them.

    restore_headings(tree, text, format) -> text

trafilatura keeps the paragraphs it recovers from outside its main frame but not their headings (its recovery
pass looks for paragraphs, code, quotes and tables only), and in precision mode it deletes headings by link
density and at the end of a frame. A service page read that way is a run of paragraphs without the titles of its
sections, a catalogue a run of descriptions without the names of its items. Here a heading (h2-h6) whose own
text the reading does not hold is put back before the line its section's first words open: the text that
follows it in the page, up to the next heading of its level or above (an h2 over an h3 over a paragraph takes
the paragraph; a heading followed by another of its level has no section and is left out). h1 is the page's
title, which the metadata carries and trafilatura leaves out of a story (the article benchmark's truth leaves it
out too). Measured (WCXB dev, word F1 of format=text): tune half 0.8641 -> 0.8661, check half 0.8349 ->
0.8375 (services 0.816 -> 0.822 and 0.816 -> 0.823, listings 0.735 -> 0.739 and 0.652 -> 0.661), the article
benchmark 0.9705 -> 0.9707; 0.7 ms a median page.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

from webreach.extract import html_tree
from webreach.extract.extracted import seen_text
from webreach.models import ReadFormat

SECTION_HEADINGS = ("h2", "h3", "h4", "h5", "h6")
LEVELS = {f"h{level}": level for level in range(1, 7)}
OPENING_CHARS = 40  # how much of a section's text is matched against the reading's lines
MIN_OPENING = 12  # characters of words a line or an opening needs to be matched at all (a short line is ambiguous)
KEY_WORDS = 2  # lines are found by their first words, then compared whole
NOT_WORDS = re.compile(r"\W+")
# a line's first two words, after any markup that opens it (markdown's #, -, [, `; an html tag)
LINE_HEAD = re.compile(r"(?:[^\w<]|<[^>]*>)*(\w+)(?:[^\w<]|<[^>]*>)+(\w+)")
MAX_PIECES = 400  # text nodes and headings looked at after one heading before giving up on its section


def restore_headings(tree: Any, text: str, format: ReadFormat) -> str:
    """`text` (in `format`) with the headings of the sections it holds put back where their sections begin."""
    if not text.strip():
        return text
    seen = seen_text(text).lower()
    missing = [(heading, title) for heading in tree.iter(*SECTION_HEADINGS) if _missing(title := _shown(heading), seen)]
    if not missing:
        return text
    lines = text.split("\n")
    index = _line_index(lines)
    inserts: dict[int, list[tuple[int, str]]] = {}  # per line, the headings over it: (level, line of format)
    held = ""  # the reading's words, once a heading has a section in it: then it may still say the heading's words
    for heading, title in missing:
        line = _section_line(_words(_opening(heading)), lines, index)
        if line is None:
            continue
        over = inserts.setdefault(line, [])
        held = held or _words(seen)
        # two sections cannot open one line: a heading goes over a line only below the ones already there
        if (not over or LEVELS[heading.tag] > over[-1][0]) and (words := _words(title)) not in held:
            held += f" \n {words}"
            over.append((LEVELS[heading.tag], _heading_line(heading.tag, title, format, lines[line])))
    out: list[str] = []
    for number, line_text in enumerate(lines):
        out.extend(heading_line for _, heading_line in inserts.get(number, ()))
        out.append(line_text)
    return "\n".join(out)


def _missing(title: str, seen: str) -> bool:
    """Whether a heading saying `title` has words and the reading (lower-cased, markup left out) does not say it."""
    return bool(title) and title.lower() not in seen and any(character.isalnum() for character in title)


def _line_index(lines: list[str]) -> dict[str, list[int]]:
    """Line numbers by their first KEY_WORDS words, so each heading compares a few lines, not the whole reading."""
    index: dict[str, list[int]] = {}
    for number, line in enumerate(lines):
        if head := LINE_HEAD.match(line):
            index.setdefault(f"{head[1]} {head[2]}".lower(), []).append(number)
    return index


def _section_line(opening: str, lines: list[str], index: dict[str, list[int]]) -> int | None:
    """The number of the line of the reading that opens with `opening` (a section's first words), or whose words
    are the start of it (the section's first paragraph is short); None if there is none."""
    if len(opening) < MIN_OPENING:
        return None
    for number in index.get(" ".join(opening.split(" ", KEY_WORDS)[:KEY_WORDS]), ()):
        line = _words(seen_text(lines[number]))
        if line.startswith(opening) or (opening.startswith(line) and len(line) >= MIN_OPENING):
            return number
    return None


def _opening(heading: Any) -> str:
    """The first OPENING_CHARS characters of text after `heading`, before the next heading of its level or above;
    deeper headings are passed over (their sections are part of this one)."""
    level = LEVELS[heading.tag]
    pieces: list[str] = []
    size = 0
    for number, piece in enumerate(_after(heading)):
        if number >= MAX_PIECES:
            return ""
        if isinstance(piece, int):
            if piece <= level:
                break
        elif piece.strip():
            pieces.append(piece)
            size += len(piece.strip())
            if size >= OPENING_CHARS:
                break
    return " ".join(pieces)[: OPENING_CHARS * 2]


def _after(element: Any) -> Iterator[str | int]:
    """What follows `element` in document order: text, and a heading's level in place of the heading."""
    node = element
    while node is not None:
        if node.tail:
            yield node.tail
        sibling = node.getnext()
        while sibling is not None:
            yield from _inside(sibling)
            if sibling.tail:
                yield sibling.tail
            sibling = sibling.getnext()
        node = node.getparent()


def _inside(element: Any) -> Iterator[str | int]:
    """The text inside `element` in document order (a heading as its level), without recursion: pages nest deep."""
    stack: list[Any] = [element]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
            continue
        tag = item.tag
        if not isinstance(tag, str) or tag in html_tree.HIDDEN_TAGS:
            continue
        if tag in LEVELS:
            yield LEVELS[tag]
            continue
        if item.text:
            yield item.text
        for child in reversed(item):
            if child.tail:
                stack.append(child.tail)
            stack.append(child)


def _shown(heading: Any) -> str:
    """The heading's text as a reader sees it (a heading may carry a <style> or an icon's <svg>), collapsed."""
    if not len(heading):
        return " ".join((heading.text or "").split())
    pieces = [heading.text or ""]
    for child in heading:
        pieces.extend(piece for piece in _inside(child) if isinstance(piece, str))
        pieces.append(child.tail or "")
    return " ".join(" ".join(pieces).split())


def _heading_line(tag: str, title: str, format: ReadFormat, before: str) -> str:
    """The heading as a line of `format`, indented as the line it goes before in html."""
    if format == "markdown":
        return f"{'#' * LEVELS[tag]} {title}\n"
    if format == "html":
        indent = before[: len(before) - len(before.lstrip())]
        return f"{indent}<{tag}>{html.escape(title)}</{tag}>"
    return title


def _words(text: str) -> str:
    """`text` as its lower-cased words, one space apart."""
    return NOT_WORDS.sub(" ", text.lower()).strip()
