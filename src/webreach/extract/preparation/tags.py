"""HTML elements as a reader sees them (hidden, a block, the start and end of a line), and the steps of the walks
over a parsed page (html_tree.py, whitespace.py, the readings): where they start (the body), past a subtree, and
out of an element that ended."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from webreach.extract.tree import Element

# elements whose text a reader never sees
HIDDEN_TAGS = frozenset({"script", "style", "noscript", "template", "svg", "head", "title", "iframe", "object"})
BLOCK_TAGS = frozenset(
    {"p", "div", "section", "article", "main", "header", "footer", "aside", "nav", "li", "ul", "ol", "dl", "dt",
     "dd", "h1", "h2", "h3", "h4", "h5", "h6", "table", "tr", "blockquote", "pre", "br", "hr", "form", "figure",
     "figcaption", "details", "summary", "address"}
)  # fmt: skip
# elements that start and end a line: the spaces next to their edges are never seen
LINE_TAGS = BLOCK_TAGS | {"body", "td", "th", "caption", "thead", "tbody", "tfoot", "fieldset", "legend", "center"}


def skip_subtree(elements: Iterator[Element], element: Element) -> int:
    """Move `elements` (an iteration of the tree in document order) past the descendants of `element`; 0."""
    for _ in itertools.islice(elements, sum(1 for _ in element.iterdescendants())):
        pass
    return 0


def ancestor_ended(opened: list[list[Any]]) -> list[Any] | None:
    """After an element ends, in a walk that keeps a stack of its open elements (each entry's last item the
    children it has left): the parent's entry, popped, when that element was its last child, else None."""
    if not opened:
        return None
    opened[-1][-1] -= 1
    return None if opened[-1][-1] else opened.pop()


def body_of(tree: Element) -> Element:
    """The <body> element, or the root when the document has none (a bare fragment)."""
    body = tree.find("body")
    return body if body is not None else tree
