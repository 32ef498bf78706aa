"""Markdown for one element of the tree: what forum posts and grid cards read as when format="markdown".

trafilatura renders the article path; posts.py and card_grid.py pick elements themselves, and their markdown
must stay as faithful: headings (#), lists (- item), code (`inline` and fenced blocks), links ([text](absolute
URL)), bold and tables (pipes, a header rule after the first row). Hidden elements (scripts, styles,
templates) are skipped, as in html_tree.visible_text; other tags contribute their text, blocks apart.
"""

from __future__ import annotations

from collections.abc import Callable

from webreach.extract.preparation import html_tree, tags
from webreach.extract.tree import Element

HEADINGS = {f"h{level}": "#" * level for level in range(1, 7)}
BOLD = frozenset({"strong", "b"})
CELLS = frozenset({"td", "th"})
FENCE = "```"
Skip = Callable[[Element], bool] | None  # elements whose subtrees are left out


def to_markdown(element: Element, base_url: str = "", skip: Skip = None) -> str:
    """`element` and its subtree as markdown, links resolved against `base_url`, the subtrees of the elements
    `skip` names left out."""
    parts = _render(element, base_url, skip).split(FENCE)
    # blanks are laid out again everywhere but inside code fences (the odd parts), where they are the code's
    tidied = (part if index % 2 else _tidy_prose(part) for index, part in enumerate(parts))
    return FENCE.join(tidied).strip()


def _tidy_prose(text: str) -> str:
    lines = (html_tree.BLANK_RUN.sub(" ", line).rstrip() for line in text.split("\n"))
    return html_tree.BLANK_LINES.sub("\n\n", "\n".join(line if line.strip() else "" for line in lines))


def _render(element: Element, base_url: str, skip: Skip = None) -> str:
    tag = element.tag if isinstance(element.tag, str) else ""
    if tag in tags.HIDDEN_TAGS or element.get("hidden") is not None or (skip is not None and skip(element)):
        return ""
    if tag == "pre":
        return f"\n\n{FENCE}\n{''.join(element.itertext()).strip(chr(10))}\n{FENCE}\n\n"
    if tag == "br":
        return "\n"
    if tag == "table":
        return _table(element, base_url)
    inner = (element.text or "") + "".join(_render(child, base_url, skip) + (child.tail or "") for child in element)
    return _wrap(tag, element, inner, base_url)


def _wrap(tag: str, element: Element, inner: str, base_url: str) -> str:
    """`inner` (the element's rendered content) dressed as `tag` asks."""
    text = inner.strip()
    if not text:
        return ""
    if tag in HEADINGS:
        return f"\n\n{HEADINGS[tag]} {' '.join(text.split())}\n\n"
    if tag == "li":
        return "\n- " + text.replace("\n", "\n  ")
    if tag == "code":
        return f"`{text}`"
    if tag in BOLD:
        return f"**{text}**"
    if tag == "a" and (href := element.get("href")) and not href.startswith(("javascript:", "#")):
        target = html_tree.absolute_url(base_url, href)
        return f"[{' '.join(text.split())}]({target})" if target else text
    return f"\n\n{inner}\n\n" if tag in tags.BLOCK_TAGS else inner


def _table(table: Element, base_url: str) -> str:
    rows = []
    for row in table.iter("tr"):
        cells = [" ".join(_render(cell, base_url).split()).replace("|", "\\|") for cell in row if cell.tag in CELLS]
        if cells:
            rows.append("| " + " | ".join(cells) + " |")
    if not rows:
        return ""
    rule = "|" + "---|" * rows[0].count(" | ") + "---|"
    return "\n\n" + "\n".join([rows[0], rule, *rows[1:]]) + "\n\n"
