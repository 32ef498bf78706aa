"""React's streamed content put where the page's scripts would put it.

A server-rendered React page (Next.js's app router, Remix, Gatsby ...) streams each part that waited for data
as a hidden `<div hidden id="S:1">` at the end of the body, with a small script that moves it into its
placeholder: `$RC("B:1","S:1")` fills a Suspense boundary's `<template id="B:1">`, `$RS("S:2","P:2")` a segment's
`<template id="P:2">` (`$RR` is $RC with stylesheets; pages under a strict CSP say the same with
`<template data-rci data-bid data-sid>` and `<template data-rsi data-sid data-pid>`). A reader that runs no
scripts sees the page's skeleton in place and its content hidden at the end; trafilatura keeps the skeleton.
On WCXB's dev split 33 pages stream so, among them home pages whose headings and sections all arrive this way.

The moves are made in document order, as the browser runs the scripts; a boundary's fallback (a spinner or a
skeleton, between comments the parse drops) stays beside the content, as it is mostly empty. A page without a
streamed part costs two substring searches.
"""

from __future__ import annotations

import re
from typing import Any

MARKERS = ('id="S:', "id='S:")  # how React writes every streamed part's container (and a rewriter might)
# $RC("B:1","S:1") and $RR("B:1","S:1",[...]): boundary, then content; $RS("S:2","P:2"): content, then placeholder
BOUNDARY_CALL = re.compile(r'\$R[CR]\("([^"]{1,64})","([^"]{1,64})"')
SEGMENT_CALL = re.compile(r'\$RS\("([^"]{1,64})","([^"]{1,64})"')
INSTRUCTIONS = "//script[contains(., '$R')] | //template[@data-rci or @data-rsi]"


def streamed(text: str) -> bool:
    """Whether the page's markup may hold streamed parts (cheap: substring searches)."""
    return any(marker in text for marker in MARKERS)


def place_streamed(tree: Any) -> int:
    """Move each streamed part into its placeholder, in document order; returns how many were moved."""
    by_id = {element.get("id"): element for element in tree.xpath("//*[contains(@id, ':')]")}
    moved = 0
    for content_id, placeholder_id in _moves(tree):
        content, placeholder = by_id.pop(content_id, None), by_id.pop(placeholder_id, None)
        if content is None or placeholder is None or placeholder.getparent() is None:
            continue
        if any(ancestor is content for ancestor in placeholder.iterancestors()):
            continue  # a placeholder inside its own content: nowhere sensible to put it
        _keep_tail_in_place(content)
        content.tail = placeholder.tail
        placeholder.getparent().replace(placeholder, content)
        content.attrib.pop("hidden", None)
        moved += 1
    return moved


def _moves(tree: Any) -> list[tuple[str, str]]:
    """(content id, placeholder id) for each instruction, in document order."""
    moves: list[tuple[str, str]] = []
    for element in tree.xpath(INSTRUCTIONS):
        if element.tag == "template":
            target = element.get("data-bid") if element.get("data-rci") is not None else element.get("data-pid")
            if target and (content := element.get("data-sid")):
                moves.append((content, target))
            continue
        script = element.text or ""
        calls = [(m.start(), m.group(2), m.group(1)) for m in BOUNDARY_CALL.finditer(script)]
        calls += [(m.start(), m.group(1), m.group(2)) for m in SEGMENT_CALL.finditer(script)]
        moves.extend((content, target) for _, content, target in sorted(calls))
    return moves


def _keep_tail_in_place(element: Any) -> None:
    """Leave the text after `element` where it is when the element moves (lxml moves an element's tail with it)."""
    if not element.tail:
        return
    previous, parent = element.getprevious(), element.getparent()
    if previous is not None:
        previous.tail = (previous.tail or "") + element.tail
    elif parent is not None:
        parent.text = (parent.text or "") + element.tail
    element.tail = None
