"""Whitespace in a parsed page's running text laid out as a browser lays it out (CSS `white-space: normal`), in
place, and highlighted code's lines ended (html_tree.py's module docstring says why and what stays as written)."""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from webreach.extract.preparation.tags import LINE_TAGS, ancestor_ended, body_of, skip_subtree
from webreach.extract.preparation.xml_chars import xml_safe
from webreach.extract.tree import Element

HTML_SPACE = re.compile(r"[ \t\n\r\f]+")  # HTML's ASCII whitespace; NBSP is content and stays
HTML_BLANKS = " \t\n\r\f"
CODE_LINES = etree.XPath(".//span[contains(concat(' ', normalize-space(@class), ' '), ' line ')]")
# elements whose whitespace is content (trafilatura fences a <code> that spans lines), and scripts and styles,
# whose text no reader sees: the collapsing pass leaves their subtrees alone
SPACED_TAGS = frozenset({"pre", "code", "textarea", "listing", "xmp", "plaintext", "script", "style"})


def collapse_whitespace(tree: Element) -> None:
    """Collapse runs of whitespace in the body's running text to one space, in place (see the module docstring).

    One pass over the elements in document order, by lxml's C iterator, the subtrees that keep their whitespace
    skipped. A text node (an element's text, after its start; its tail, after its end) is settled when the next
    element starts or ends, which says whether a line edge follows it: every text node is read once and written at
    most once. The ends are worked out from the number of children left in each open element, which costs less
    than iterwalk's end events. Over the 716 pages of the WCXB tune half this takes 0.97 ms a median page, against
    1.21 ms for the walk it replaced (start events only, then a second look at each block's neighbours); both lay
    out every one of the 1,678 AEB and WCXB dev pages identically (bench/html_parse.py times the phases)."""
    root = body_of(tree)
    if root.tag in LINE_TAGS:
        _trim_before(root)
    elements = root.iter()
    opened: list[list[Any]] = []  # per open element: [the element, whether it is a line element, children left]
    owner, is_tail, text, lead = root, False, None, False  # the text node waiting to be settled
    for element in elements:
        tag = element.tag
        line = tag in LINE_TAGS
        if text:
            _settle(owner, is_tail, text, lead, line)
        text = None
        children = len(element)
        if not isinstance(tag, str) or tag in SPACED_TAGS or ((style := element.get("style")) and _pre_style(style)):
            if tag == "pre":
                break_code_lines(element)
            children = skip_subtree(elements, element)
        elif text := element.text:
            owner, is_tail, lead = element, False, line
        if children:
            opened.append([element, line, children])
            continue
        while True:  # the element ends here, and so does each ancestor it was the last child of
            if text:
                _settle(owner, is_tail, text, lead, line)
            text = element.tail
            owner, is_tail, lead = element, True, line
            if (ended := ancestor_ended(opened)) is None:
                break
            element, line, _ = ended
    if text:  # the root's tail
        _settle(owner, is_tail, text, lead, False)


def break_code_lines(pre: Element) -> None:
    """End each line of highlighted code in `pre` with a line break where the source has none. Shiki (VitePress,
    Astro, Tailwind's and HashiCorp's docs) puts every line in a <span class="line"> that CSS shows as a block,
    often with nothing between them: read as text, "npm create vite@latest my-project" and "cd my-project" ran
    together into "my-projectcd my-project"."""
    lines = CODE_LINES(pre)
    for line in lines[:-1]:
        # Chroma (Hugo) ends each line inside its span: "code\n" is already a line
        if "\n" not in _text_after(line, pre) and not _last_text(line).endswith("\n"):
            line.tail = "\n" + (line.tail or "")


def _last_text(element: Element) -> str:
    """The last text node inside `element` ("" when it holds none)."""
    last = ""
    for text in element.itertext():
        if text:
            last = text
    return last


def _text_after(element: Element, container: Element) -> str:
    """The text that follows `element` inside `container`, up to the next element ("" when none does)."""
    while not element.tail and element.getnext() is None and element.getparent() is not container:
        element = element.getparent()
    return element.tail or ""


def _settle(owner: Element, is_tail: bool, text: str, lead: bool, trail: bool) -> None:
    """Write `owner`'s text or tail, `text`, laid out: its runs of blanks collapsed, and the blank at a line
    edge (`lead` at its start, `trail` at its end) dropped. The write is skipped when nothing changed: setting text
    is not free."""
    if text.isspace() and not text.strip(HTML_BLANKS):  # formatting between tags, most text nodes of a page
        new = "" if lead or trail else " "
    else:
        new = HTML_SPACE.sub(" ", text) if _loose(text) else text  # now every blank run is one space
        if lead and new[0] == " ":
            new = new[1:]
        if trail and new[-1] == " ":
            new = new[:-1]
    if new == text:
        return
    try:
        if is_tail:
            owner.tail = new
        else:
            owner.text = new
    except ValueError:  # a reference to a control character (&#1;): lxml stores it, then refuses it
        setattr(owner, "tail" if is_tail else "text", xml_safe(new))


def _trim_before(element: Element) -> None:
    """Drop the blanks that end the text just before `element`, which starts a line."""
    previous = element.getprevious()
    if previous is not None:
        if (tail := previous.tail) and tail[-1] in HTML_BLANKS:
            previous.tail = tail.rstrip(HTML_BLANKS)
    elif (parent := element.getparent()) is not None and (text := parent.text) and text[-1] in HTML_BLANKS:
        parent.text = text.rstrip(HTML_BLANKS)


def _pre_style(style: str) -> bool:
    return "white-space" in style and "pre" in style


def _loose(text: str) -> bool:
    """Whether `text` has whitespace to collapse (cheaper than running the substitution on every node)."""
    return "\n" in text or "  " in text or "\t" in text or "\r" in text or "\f" in text
