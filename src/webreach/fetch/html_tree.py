"""One parse of an HTML page, shared by the wall recognisers, the extraction cascade and the metadata readers.

The parser settings match trafilatura's own (comments and processing instructions dropped, no ids collected),
so handing it this tree gives the same result as handing it the bytes, without a second parse. Helpers here
only read the tree; trafilatura copies it before it prunes.
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree, html

from webreach.fetch.extract_errors import ExtractionFailedError

# elements whose text a reader never sees
HIDDEN_TAGS = frozenset({"script", "style", "noscript", "template", "svg", "head", "title", "iframe", "object"})
BLOCK_TAGS = frozenset(
    {"p", "div", "section", "article", "main", "header", "footer", "aside", "nav", "li", "ul", "ol", "dl", "dt",
     "dd", "h1", "h2", "h3", "h4", "h5", "h6", "table", "tr", "blockquote", "pre", "br", "hr", "form", "figure",
     "figcaption", "details", "summary", "address"}
)  # fmt: skip
XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
BLANK_RUN = re.compile(r"[ \t\r\f\v\u00a0]+")
BLANK_LINES = re.compile(r"\n\s*\n+")


def parse(text: str) -> Any:
    """The document's lxml tree; raises ExtractionFailedError when there is no document at all."""
    # lxml refuses str input that carries an encoding declaration; the text is already decoded
    text = XML_DECLARATION.sub("", text, count=1)
    if not text.strip():
        raise ExtractionFailedError("the page is empty")
    parser = html.HTMLParser(collect_ids=False, default_doctype=False, remove_comments=True, remove_pis=True)
    try:
        return html.document_fromstring(text, parser=parser)
    except (etree.ParserError, ValueError) as exc:
        raise ExtractionFailedError(f"the HTML could not be parsed ({exc})") from None


def body_of(tree: Any) -> Any:
    """The <body> element, or the root when the document has none (a bare fragment)."""
    body = tree.find("body")
    return body if body is not None else tree


def visible_text(tree: Any) -> str:
    """The text a reader would see, paragraphs kept apart by blank lines, scripts and templates left out."""
    parts: list[str] = []
    hidden = 0
    for event, element in etree.iterwalk(body_of(tree), events=("start", "end")):
        tag = element.tag if isinstance(element.tag, str) else ""
        conceals = tag in HIDDEN_TAGS or element.get("hidden") is not None
        if event == "start":
            hidden += conceals
            if not hidden and element.text:
                parts.append(element.text)
            continue
        hidden -= conceals
        if tag in BLOCK_TAGS:
            parts.append("\n" if tag == "br" else "\n\n")
        elif tag in ("td", "th"):
            parts.append(" ")
        if not hidden and element.tail:
            parts.append(element.tail)
    return tidy("".join(parts))


def tidy(text: str) -> str:
    """Collapse runs of blanks inside lines and of empty lines between paragraphs."""
    lines = (BLANK_RUN.sub(" ", line).strip() for line in text.split("\n"))
    return BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def language(tree: Any) -> str | None:
    """The page's declared language: <html lang>, then Content-Language, then og:locale (as `en-GB`)."""
    candidates = [
        tree.get("lang") or tree.get("{http://www.w3.org/XML/1998/namespace}lang"),
        *tree.xpath("//meta[translate(@http-equiv,'CONTENT-LAGU','content-lagu')='content-language']/@content"),
        *tree.xpath("//meta[@property='og:locale']/@content"),
    ]
    for value in candidates:
        if value and value.strip():
            return str(value).strip().split(",")[0].strip().replace("_", "-")
    return None


def title_tag(tree: Any) -> str | None:
    """The <title> text, whitespace collapsed."""
    found = " ".join((tree.findtext(".//title") or "").split())
    return found or None


HIDDEN_ROOTS = etree.XPath(
    ".//*[self::script or self::style or self::noscript or self::template or self::svg]"
    "[not(ancestor::*[self::script or self::style or self::noscript or self::template or self::svg])]"
)


def text_size(tree: Any) -> int:
    """A quick estimate of len(visible_text(tree)), a fraction of its cost on a large page."""
    body = body_of(tree)
    hidden = sum(_collapsed_length(element.text_content()) for element in HIDDEN_ROOTS(body))
    return _collapsed_length(body.text_content()) - hidden


def _collapsed_length(text: str) -> int:
    return len(" ".join(text.split()))
