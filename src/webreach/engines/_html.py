"""Reading result markup: a node's text and attributes, its ancestors, and plain text out of HTML fragments."""

from __future__ import annotations

import html
from collections.abc import Iterator

from selectolax.lexbor import LexborHTMLParser, LexborNode


def text_of(node: LexborNode | None) -> str:
    """The node's text with whitespace collapsed; "" for a missing node."""
    return " ".join(node.text().split()) if node is not None else ""


def attribute(node: LexborNode | None, name: str) -> str:
    """The attribute's value, stripped; "" when the node or the attribute is missing."""
    return (node.attributes.get(name) or "").strip() if node is not None else ""


def ancestors(node: LexborNode) -> Iterator[LexborNode]:
    """The node's ancestors, nearest first."""
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def plain_text(fragment: str) -> str:
    """Text without tags (highlighting such as <strong>) and with entities unescaped, whitespace collapsed."""
    # the HTML parser unescapes entities as well; text without tags only needs the unescaping
    text = LexborHTMLParser(fragment).text() if "<" in fragment and ">" in fragment else html.unescape(fragment)
    return " ".join(text.split())
