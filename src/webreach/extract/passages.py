"""Passages: an extracted markdown document cut on its structure, each piece with a stable index and heading path.

    passages = cut(document, max_chars=PASSAGE_CHARS)

Blocks are read line by line: headings (which set the heading path and are not passages themselves), paragraphs,
list items, tables and fenced code. A block longer than `max_chars` is cut between sentences (paragraphs and list
items, never mid-sentence: an overlong sentence stays whole), between rows (tables: every piece repeats the header
rows) or between lines (code: every piece is fenced again). Short neighbours of one section are then joined (list
items with list items, a short paragraph with what follows) up to `max_chars`, so a passage is a readable unit.

Cutting is deterministic: the same document gives the same passages, so an anchor (`[ref§index]`, index from 1)
names the same text every time. `start`/`end` are the character range of the document the passage was read
from (a table piece's range covers its rows; the repeated header is outside it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Literal

from webreach.extract import markdown_fences

PASSAGE_CHARS = 700  # about 170 tokens of English prose: two to four sentences
MERGE_BELOW = 200  # a text passage shorter than this joins its neighbour when both fit

Kind = Literal["text", "list", "table", "code"]

HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
TABLE_ROW = re.compile(r"^[ \t]*\|")
TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-{3,}")
LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\S")
# a sentence ends at Latin punctuation followed by space, or at CJK punctuation (no space needed)
SENTENCE_END = re.compile(r"(?<=[.!?;])[\"')\]”’]*\s+|(?<=[。！？；])[」』）”]*\s*")
LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


@dataclass(frozen=True)
class Passage:
    """One piece of a document: `index` from 1 in page order, its heading path, and where it came from."""

    index: int
    text: str
    headings: tuple[str, ...]
    kind: Kind
    start: int
    end: int
    block: int  # the source block: pieces cut from one paragraph, table or code block share it


@dataclass(frozen=True)
class _Block:
    kind: Kind
    start: int
    end: int
    headings: tuple[str, ...]


def cut(document: str, max_chars: int = PASSAGE_CHARS) -> list[Passage]:
    """The passages of `document` (markdown or plain text) in page order, each at most about `max_chars`."""
    pieces: list[Passage] = []
    for number, block in enumerate(_blocks(document)):
        for text, start, end in _split(document, block, max_chars):
            pieces.append(Passage(0, text, block.headings, block.kind, start, end, number))
    joined = _join(pieces, max_chars)
    return [replace(piece, index=i) for i, piece in enumerate(joined, start=1)]


def heading_text(raw: str) -> str:
    """A heading as plain words: links reduced to their text, permalink marks and emphasis dropped."""
    text = LINK.sub(r"\1", raw).replace("¶", "").replace("\u200b", "")
    return re.sub(r"[*_`]+", "", text).strip()


def _lines(document: str) -> Iterator[tuple[int, str]]:
    """(offset, line without its newline) for every line."""
    offset = 0
    for line in document.splitlines(keepends=True):
        yield offset, line.rstrip("\r\n")
        offset += len(line)


def _blocks(document: str) -> Iterator[_Block]:
    """The document's blocks in order; headings update the path and yield nothing."""
    path: list[tuple[int, str]] = []
    current: tuple[Kind, int, int] | None = None  # kind, start, end of the open block
    fence: str | None = None
    for offset, line in _lines(document):
        end = offset + len(line)
        if fence is not None:  # inside code: only the closing fence ends it
            assert current is not None
            current = (current[0], current[1], end)
            if markdown_fences.closes(fence, line):
                yield _Block("code", current[1], end, _path(path))
                current, fence = None, None
            continue
        kind = _line_kind(line)
        ends = kind != "continuation" or (current is not None and current[0] in ("table", "code"))
        if current is not None and ends and not (kind == "table" and current[0] == "table"):
            yield _Block(current[0], current[1], current[2], _path(path))
            current = None
        if kind == "blank":
            continue
        if kind == "heading":
            match = HEADING.match(line)
            assert match is not None
            level = len(match.group(1))
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, heading_text(match.group(2))))
            continue
        if kind == "fence":
            fence, current = markdown_fences.opening(line), ("code", offset, end)
            continue
        if current is None:
            current = ("text" if kind == "continuation" else kind, offset, end)  # type: ignore[assignment]
        else:
            current = (current[0], current[1], end)
    if current is not None:
        yield _Block(current[0], current[1], current[2], _path(path))


def _line_kind(line: str) -> str:
    """blank, heading, fence, table, list (an item's first line) or continuation (text going on)."""
    if not line.strip():
        return "blank"
    if HEADING.match(line):
        return "heading"
    if markdown_fences.opening(line):
        return "fence"
    if TABLE_ROW.match(line):
        return "table"
    if LIST_ITEM.match(line):
        return "list"
    return "continuation"


def _path(path: list[tuple[int, str]]) -> tuple[str, ...]:
    return tuple(text for _, text in path if text)


def _split(document: str, block: _Block, max_chars: int) -> Iterator[tuple[str, int, int]]:
    """(text, start, end) pieces of one block, each within max_chars unless one unit alone is longer."""
    text = document[block.start : block.end]
    if len(text) <= max_chars:
        yield text.strip(), block.start, block.end
        return
    if block.kind == "table":
        pieces = list(_split_rows(text, block.start, max_chars))
    elif block.kind == "code":
        pieces = list(_split_code(text, block.start, max_chars))
    else:
        pieces = list(_pack(text, block.start, [m.end() for m in SENTENCE_END.finditer(text)], max_chars))
    if not pieces:  # nothing to cut between (a table of header rows only)
        pieces = [(text.strip(), block.start, block.end)]
    # the first and last pieces reach the block's edges (a table's header rows, a code block's fences)
    pieces[0] = (pieces[0][0], block.start, pieces[0][2])
    pieces[-1] = (pieces[-1][0], pieces[-1][1], block.end)
    yield from pieces


def _pack(text: str, base: int, cuts: list[int], max_chars: int, prefix: str = "") -> Iterator[tuple[str, int, int]]:
    """Greedy pieces of text[0:len] cut only at `cuts` (offsets into text), each within max_chars if possible."""
    bounds = [c for c in cuts if 0 < c < len(text)] + [len(text)]
    start = 0
    last = 0
    for bound in bounds:
        if bound - start > max_chars - len(prefix) and last > start:
            yield prefix + text[start:last].strip(), base + start, base + last
            start = last
        last = bound
    if start < len(text) and text[start:].strip():
        yield prefix + text[start:].strip(), base + start, base + len(text)


def _line_ends(text: str) -> list[int]:
    return [m.end() for m in re.finditer(r"\n", text)]


def _split_rows(text: str, base: int, max_chars: int) -> Iterator[tuple[str, int, int]]:
    """A long table cut between rows; every piece repeats the header rows."""
    lines = text.split("\n")
    # the header: the rows down to the |---| rule, or the first row of a table written without one
    header_lines = 2 if len(lines) > 2 and TABLE_RULE.match(lines[1]) else 1
    header_end = sum(len(line) + 1 for line in lines[:header_lines])
    header = text[:header_end]
    body = text[header_end:]
    yield from _pack(body, base + header_end, _line_ends(body), max_chars, prefix=header)


def _split_code(text: str, base: int, max_chars: int) -> Iterator[tuple[str, int, int]]:
    """A long code block cut between lines; every piece is fenced again so it still reads as code."""
    first_end = text.find("\n") + 1
    opening = text[:first_end]
    fence = opening.strip()[:3]
    closing_at = text.rstrip().rfind("\n") + 1
    body = text[first_end:closing_at]
    for piece, start, end in _pack(body, base + first_end, _line_ends(body), max_chars - 8, prefix=opening):
        yield piece + "\n" + fence, start, end


def _join(pieces: list[Passage], max_chars: int) -> list[Passage]:
    """Short neighbours of one section joined: list items together, a short text with what follows."""
    joined: list[Passage] = []
    for piece in pieces:
        previous = joined[-1] if joined else None
        if previous is not None and _joinable(previous, piece, max_chars):
            separator = "\n" if previous.kind == piece.kind == "list" else "\n\n"
            kind: Kind = piece.kind if piece.kind != "text" else previous.kind
            joined[-1] = replace(previous, text=previous.text + separator + piece.text, end=piece.end, kind=kind)
        else:
            joined.append(piece)
    return joined


def _joinable(previous: Passage, piece: Passage, max_chars: int) -> bool:
    if previous.headings != piece.headings or previous.block == piece.block:
        return False
    if len(previous.text) + len(piece.text) + 2 > max_chars:
        return False
    if piece.kind in ("table", "code"):  # an introduction ("like this:") stays with its table or code
        return previous.kind == "text" and len(previous.text) < MERGE_BELOW and previous.text.endswith(":")
    if previous.kind in ("table", "code"):
        return False
    both_lists = previous.kind == piece.kind == "list"
    return both_lists or len(previous.text) < MERGE_BELOW or len(piece.text) < MERGE_BELOW
