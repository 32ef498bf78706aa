"""Reading result markup: the page parsed (tamed first), a node's text and attributes, its ancestors, and plain
text out of HTML fragments."""

from __future__ import annotations

import html
from collections.abc import Iterator
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from webreach.attribute_floods import tame_attributes
from webreach.nesting import tame

if TYPE_CHECKING:  # selectolax loads with the first page parsed, not with the engines' helpers
    from selectolax.lexbor import LexborHTMLParser, LexborNode

# result blocks a parser reads at most: a search asks for 50 results at most (models.MAX_LIMIT), and some blocks
# are ads or cards that yield none; a hostile page of 100,000 blocks would otherwise build 100,000 hits
MAX_ITEMS = 100


def parse_html(markup: str) -> LexborHTMLParser:
    """The page's tree; markup that would make the parser quadratic is rewritten first (attribute floods, then
    nesting: attribute_floods.tame_attributes, nesting.tame)."""
    from selectolax.lexbor import LexborHTMLParser  # loaded with the first page parsed (issue 38, idle memory)

    return LexborHTMLParser(tame(tame_attributes(markup)))


def text_of(node: LexborNode | None) -> str:
    """The node's text with whitespace collapsed; "" for a missing node."""
    return " ".join(node.text().split()) if node is not None else ""


def attribute(node: LexborNode | None, name: str) -> str:
    """The attribute's value, stripped; "" when the node or the attribute is missing, and for an href no URL
    parser accepts (a malformed IPv6 host such as `http://[::1/`), which is no link to follow."""
    value = (node.attributes.get(name) or "").strip() if node is not None else ""
    if name == "href" and "[" in value:
        try:
            urlsplit(value)
        except ValueError:
            return ""
    return value


def host_of(url: str) -> str | None:
    """The URL's host name, or None (also for a URL no parser accepts, such as a malformed IPv6 host)."""
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


def ancestors(node: LexborNode) -> Iterator[LexborNode]:
    """The node's ancestors, nearest first."""
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def plain_text(fragment: str) -> str:
    """Text without tags (highlighting such as <strong>) and with entities unescaped, whitespace collapsed."""
    if not isinstance(fragment, str):  # an API answer's number or list where text belongs: no text
        return ""
    # the HTML parser unescapes entities as well; text without tags only needs the unescaping. parse_html: an API
    # field can hold a flood of nested tags as well as a page can (a brave_api title of 800 KB took minutes)
    text = parse_html(fragment).text() if "<" in fragment and ">" in fragment else html.unescape(fragment)
    return " ".join(text.split())
