"""Pathological HTML made safe to parse: deep nesting flattened (the extractor), and markup that makes an HTML5
tree builder quadratic rewritten before it sees it (the engine parsers, `tame`).

libxml2 (under lxml) stops parsing at 256 open elements and drops everything after that point: a page that
opens 300 <div>s and never closes them loses its whole text, and recursive passes over a deep tree cost far
more than over a flat one. `flatten` scans the markup once, counting open elements roughly the way a parser
would (void elements, self-closed tags and raw-text elements such as <script> do not nest), and removes the
opening tags beyond MAX_DEPTH together with their closing tags, leaving their text where it was.
The count cannot follow every implied close of HTML's tree builder, so it overestimates depth on sloppy pages;
that is why html_tree.parse only calls it when the parser stopped on a resource limit, never on every page.

`tame` is for lexbor (the engines' parser), whose tree builder is quadratic on some markup: 100,000 `<div>` took
29 s, 20,000 `<div>x</b>` after three `<b>` 0.9 s (the adoption agency nests a little deeper each time), 20,000
closed `<option>`s in one `<select>` 5 s, 40,000 runs of text between table rows 20 s (each run is moved in front
of the table and appended to the text there by copying it), 8,000 runs of text each followed by an `<html lang=x>`
or `<body class=x>` start tag 1 s, growing with the square (a pasted-together page). It first scans the tags with
a stack of open names (an end tag closes the nearest open element of its name among the top STACK_REACH, as a tree
builder's implied closes would). Only when the scan finds depth past MAX_DEPTH, more than MAX_MISNESTED end tags
that close nothing or skip open elements, more than MAX_OPTIONS options, more than MAX_ROOTS <html>/<body> start
tags or more than MAX_FOSTERED runs of text straight inside a table does it rewrite the page, balanced: an end tag
is kept only when it closes the element on top; tags deeper than MAX_DEPTH, select/option tags and text straight
inside a table and every <html>/<body> start tag after the first of its name are dropped; other text is kept. Such
a page is hostile or broken: its results may come out incomplete, but it parses in linear time. The rewrite walks
tags one by one in Python (about 1 us each), so past MAX_REWRITTEN_TAGS the rest of the page simply loses its tags
in one C-level substitution: a 2.5 MB flood of `<b><div>x</b>` took 0.43 s to rewrite tag by tag, and 0.09 s with
the cap. The real result pages in ../shared/data stay far below every limit (depth 56, 5 misnested end tags, 69
options, no text straight inside a table) and are never rewritten. The scan costs about what lexbor's own parse
costs (0.5-1.5 ms for 300-500 KB), so pages under SCAN_FROM characters, which no markup can make slow, skip it.
"""

from __future__ import annotations

import itertools
import re

MAX_DEPTH = 200  # below libxml2's limit of 256, leaving room for <html>, <body> and implied wrappers
TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:_-]*)[^>]*>")
SCAN_FROM = 32_768  # characters; below this even the worst markup parses in a few milliseconds
MAX_MISNESTED = 1_000  # end tags that close nothing open; real result pages have up to about 200
MAX_OPTIONS = 500  # options in a page; result pages have a handful (language pickers)
STACK_REACH = 8  # how far below the top an end tag may find its element (implied closes of sloppy markup)
MAX_ROOTS = 100  # <html> and <body> start tags; a page has one of each
ROOT_TAGS = frozenset({"html", "body"})
OPTION_TAGS = frozenset({"select", "option", "optgroup", "datalist"})
MAX_REWRITTEN_TAGS = 50_000  # tags a rewrite walks one by one; result pages have about 5,000 in all
MAX_FOSTERED = 1_000  # runs of text straight inside a table (not in a cell); real pages have a few
TABLE_CONTEXT = frozenset({"table", "tbody", "thead", "tfoot", "tr"})
ANY_TAG = re.compile(r"</?[A-Za-z][^>]*>")
VOID_TAGS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
     "keygen", "basefont", "frame", "isindex"}
)  # fmt: skip
RAW_TEXT_TAGS = frozenset({"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"})


def flatten(markup: str, max_depth: int = MAX_DEPTH) -> str:
    """`markup` with the tags that would open an element deeper than `max_depth` removed (their text kept)."""
    parts: list[str] = []
    depth = dropped = position = 0
    end = markup.rfind(">") + 1  # past the last ">" no tag can match: stopping there keeps the search linear
    while (match := TAG.search(markup, position, end)) is not None:
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


def tame(markup: str, *, max_depth: int = MAX_DEPTH) -> str:
    """`markup` as is, or rewritten balanced when a tree builder would spend quadratic time on it (see above)."""
    if len(markup) < SCAN_FROM or not _pathological(markup, max_depth):
        return markup
    return _balanced(markup, max_depth)


def _pathological(markup: str, max_depth: int) -> bool:
    """Whether `markup` nests past `max_depth`, misnests often, holds many options or much text straight inside
    a table (one pass, no output). It runs on every large result page, so the common steps are inlined: a
    finditer per stretch between raw-text elements, and an end tag that closes the element on top handled first.
    """
    counts = {"misnested": 0, "option": 0, "html": 0, "body": 0, "fostered": 0}
    stack: list[str] = []
    position, end = 0, markup.rfind(">") + 1
    while position < end:
        position = _scan_stretch(markup, position, end, stack, counts, max_depth)
        if position < 0:
            return True
    return False


def _scan_stretch(markup: str, start: int, end: int, stack: list[str], counts: dict[str, int], max_depth: int) -> int:
    """Scan tags from `start` to the next raw-text element; where to resume (`end` when done), -1 when a limit
    is passed."""
    previous = start
    for match in TAG.finditer(markup, start, end):
        if stack and stack[-1] in TABLE_CONTEXT and _fostered(markup, previous, match.start()):
            counts["fostered"] += 1
            if counts["fostered"] > MAX_FOSTERED:
                return -1
        previous = match.end()
        closing, name = match.group(1, 2)
        name = name.lower()
        if closing:
            if stack and stack[-1] == name:
                stack.pop()
                continue
            _close(stack, name)  # closes nothing open, or leaves elements open inside: misnested either way
            counts["misnested"] += 1
            if counts["misnested"] > MAX_MISNESTED:
                return -1
        elif name in RAW_TEXT_TAGS:
            return _raw_text_end(markup, name, previous)
        elif name not in VOID_TAGS and markup[previous - 2] != "/":
            if name in counts:  # option, html or body
                counts[name] += 1
                if counts[name] > (MAX_OPTIONS if name == "option" else MAX_ROOTS):
                    return -1
            stack.append(name)
            if len(stack) > max_depth:
                return -1
    return end


def _fostered(markup: str, start: int, stop: int) -> bool:
    """Whether markup[start:stop], text between two tags inside a table but outside its cells, is not blank: an
    HTML5 tree builder moves such text in front of the table ("foster parenting"), and lexbor appends each run
    to the text already there by copying it, so 40,000 runs interleaved with rows took 20 s."""
    return stop > start and not markup[start:stop].isspace()


def _close(stack: list[str], name: str) -> list[str] | None:
    """Pop `name` and what is open above it, when it is among the top STACK_REACH; the names popped, top first."""
    for back in range(1, min(len(stack), STACK_REACH) + 1):
        if stack[-back] == name:
            popped = stack[-back:][::-1]
            del stack[-back:]
            return popped
    return None


def _balanced(markup: str, max_depth: int) -> str:
    """`markup` rewritten so that every end tag closes the element on top (others are dropped), nothing nests past
    `max_depth`, no select/option tag and no second <html> or <body> start tag remains. Tags kept are copied in
    runs, not one by one; past the depth cap, everything up to the end tag of the element on top loses its tags in
    one C-level substitution."""
    parts: list[str] = []
    stack: list[str] = []
    closers: dict[str, re.Pattern[str]] = {}
    opened: set[str] = set()
    copied = position = 0  # markup[:copied] is in parts; the scan resumes at position
    end = markup.rfind(">") + 1
    search = TAG.search
    for walked in itertools.count():
        if (match := search(markup, position, end)) is None:
            break
        if walked == MAX_REWRITTEN_TAGS:
            parts += (markup[copied : match.start()], ANY_TAG.sub(" ", markup[match.start() :]))
            return "".join(parts)
        if stack and stack[-1] in TABLE_CONTEXT and _fostered(markup, position, match.start()):
            parts += (markup[copied:position], " ")  # text the tree builder would move out of the table
            copied = match.start()
        position = match.end()
        closing, name = match.group(1, 2)
        name = name.lower()
        if closing:
            if stack and stack[-1] == name:
                stack.pop()
                continue
        elif name in RAW_TEXT_TAGS:
            position = _raw_text_end(markup, name, position)
            continue
        elif name in VOID_TAGS or match.group(0).endswith("/>"):
            continue
        elif name not in OPTION_TAGS and not (name in ROOT_TAGS and name in opened):
            opened.add(name)
            if len(stack) < max_depth:
                stack.append(name)
                continue
            # at the cap: no tag until the top's end tag can open or close anything, so all of them go at once
            stop = _close_of(markup, stack[-1], position, closers)
            parts += (markup[copied : match.start()], ANY_TAG.sub(" ", markup[match.start() : stop]))
            copied = position = stop
            continue
        # an end tag that closes nothing on top, or a select/option tag: dropped, its neighbours kept apart
        parts += (markup[copied : match.start()], " ")
        copied = position
    parts.append(markup[copied:])
    return "".join(parts)


def _close_of(markup: str, name: str, start: int, closers: dict[str, re.Pattern[str]]) -> int:
    """Where the next end tag of `name` after `start` begins (the end of `markup` when there is none)."""
    if name not in closers:  # tag names are letters, digits, ":", "_" and "-": nothing to escape
        closers[name] = re.compile(rf"</{name}\s*>", re.IGNORECASE)
    close = closers[name].search(markup, start)
    return close.start() if close is not None else len(markup)
