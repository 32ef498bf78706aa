"""Pathologically deep HTML, flattened so the parser keeps the whole document and later passes stay linear.

libxml2 (under lxml) stops parsing at 256 open elements and drops everything after that point: a page that
opens 300 <div>s and never closes them loses its whole text, and recursive passes over a deep tree cost far
more than over a flat one. `flatten` scans the markup once, counting open elements roughly the way a parser
would (void elements, self-closed tags and raw-text elements such as <script> do not nest), and removes the
opening tags beyond MAX_DEPTH together with their closing tags, leaving their text where it was.
The count cannot follow every implied close of HTML's tree builder, so it overestimates depth on sloppy pages;
that is why html_tree.parse only calls it when the parser stopped on a resource limit, never on every page.
"""

from __future__ import annotations

import re

MAX_DEPTH = 200  # below libxml2's limit of 256, leaving room for <html>, <body> and implied wrappers
TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:_-]*)[^>]*>")
VOID_TAGS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
     "keygen", "basefont", "frame", "isindex"}
)  # fmt: skip
RAW_TEXT_TAGS = frozenset({"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"})


def flatten(markup: str, max_depth: int = MAX_DEPTH) -> str:
    """`markup` with the tags that would open an element deeper than `max_depth` removed (their text kept)."""
    parts: list[str] = []
    depth = dropped = position = 0
    while (match := TAG.search(markup, position)) is not None:
        closing, name = match.group(1) == "/", match.group(2).lower()
        parts.append(markup[position : match.start()])
        position = match.end()
        if closing:
            if dropped:
                dropped -= 1
                parts.append(" ")
                continue
            depth = max(depth - 1, 0)
        elif name in RAW_TEXT_TAGS:
            position = _raw_text_end(markup, name, position)
            parts.append(markup[match.start() : position])
            continue
        elif name not in VOID_TAGS and not match.group(0).endswith("/>"):
            if depth >= max_depth:
                dropped += 1
                parts.append(" ")  # the removed tag may have separated two words
                continue
            depth += 1
        parts.append(match.group(0))
    parts.append(markup[position:])
    return "".join(parts)


def _raw_text_end(markup: str, name: str, start: int) -> int:
    """Where the raw text of a <script> (or another raw-text element) opened at `start` ends, its close included."""
    close = re.compile(rf"</{name}\s*>", re.IGNORECASE).search(markup, start)
    return close.end() if close is not None else len(markup)
