"""One parse of an HTML page, shared by the wall recognisers, the extraction cascade and the metadata readers.

The parser settings match trafilatura's own (comments and processing instructions dropped, no ids collected),
so trafilatura takes this tree instead of the bytes, without a second parse. trafilatura copies the tree before
it prunes, and the helpers below only read it.

Six changes are made right after parsing. React's streamed parts are moved where its scripts would put them
(streamed.py). Cookie-consent dialogs are removed (consent_dialogs.py). Accordion and tab panels closed with
`hidden` are opened (disclosures.py). phpBB's author details beside each post go (post_profiles.py). The scripts go,
all but JSON-LD (drop_scripts). And whitespace in running text is laid out as a browser does (whitespace.py, CSS
`white-space: normal`): runs collapse to one space, and spaces at the edges of a block or a <br> go. Pretty-printed
sources (Prettier, template indentation) break lines and indent inside paragraphs and inline elements, and trafilatura's
markdown keeps such text verbatim: an agent would read "**JavaScript", a line break, eighteen spaces,
"Tutorial**". The tree, before extraction, is the place to fix it: there a source line break and a real one (<br>,
a new block) still differ, while in trafilatura's output both are newlines. Text whose whitespace is content stays
as written: <pre>, <code> (trafilatura fences one that spans lines), <textarea>, <listing>, <xmp>, anything under
an inline `white-space: pre*` style, and JSON-LD and styles. Non-breaking spaces are content too. Inside <pre> one
thing is added: the line break that syntax highlighters leave to CSS (whitespace.break_code_lines).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urljoin

from lxml import etree, html

import webreach.nesting as nesting
from webreach.attribute_floods import tame_attributes
from webreach.errors import READ_WITH_BROWSER, READ_WITH_JINA, ExtractionError, hint
from webreach.extract.preparation.consent_dialogs import has_consent_dialog, remove_consent_dialogs
from webreach.extract.preparation.disclosures import has_disclosures, open_disclosures
from webreach.extract.preparation.post_profiles import has_post_profiles, remove_post_profile_details
from webreach.extract.preparation.tags import BLOCK_TAGS, HIDDEN_TAGS, ancestor_ended, body_of, skip_subtree
from webreach.extract.preparation.whitespace import collapse_whitespace
from webreach.extract.preparation.xml_chars import xml_safe, xml_safe_utf8
from webreach.extract.streamed import place_streamed, streamed
from webreach.extract.tree import Element

XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
BLANK_RUN = re.compile(r"[ \t\r\f\v\u00a0]+")
BLANK_LINES = re.compile(r"\n\s*\n+")
FATAL = etree.ErrorLevels.FATAL
ELEMENT_CLASSES = etree.ElementDefaultClassLookup(
    element=html.HtmlElement, comment=html.HtmlComment, pi=html.HtmlProcessingInstruction, entity=html.HtmlEntity
)
EMPTY_HINT = hint("Try {} or {}, or another source for the same information.", READ_WITH_BROWSER, READ_WITH_JINA)


def parse(text: str, *, url: str | None = None) -> Element:
    """The document's lxml tree; raises ExtractionError (for `url`) when there is no document at all.

    About a tenth of an extraction: 2.22 ms a median page of the WCXB tune half (xml_safe_utf8, libxml2's parse,
    collapse_whitespace), 2.81 ms before both were made cheaper (timed in turn with the old code, ten runs a page)."""
    # the text is already decoded: a declaration would name an encoding it no longer has; attribute floods go
    text = tame_attributes(XML_DECLARATION.sub("", text, count=1))
    page = page_name(url)
    if not text or text.isspace():  # not text.strip(), which copies the page
        raise ExtractionError(f"No readable text: {page} is empty.", url=url, hint=EMPTY_HINT)
    markup = xml_safe_utf8(text)  # one stray control character would make lxml refuse its node's text: dropped
    try:
        tree, stopped = _parse_html(markup)
        if stopped:  # the parser gave up part way (nesting past its depth limit): flattened, the whole page parses
            tree, _ = _parse_html(nesting.flatten(xml_safe(text)).encode())
    except (etree.ParserError, ValueError) as exc:
        raise ExtractionError(
            f"No readable text: the HTML of {page} could not be parsed ({exc}).", url=url, hint=EMPTY_HINT
        ) from None
    if streamed(markup):  # React's streamed parts, moved where its scripts would move them (streamed.py)
        place_streamed(tree)
    if has_consent_dialog(markup):  # a cookie dialog is nobody's content (consent_dialogs.py)
        remove_consent_dialogs(tree)
    if has_disclosures(markup):  # an accordion's closed panels are content (disclosures.py)
        open_disclosures(tree)
    if has_post_profiles(markup):  # a phpBB poster's rank, post count and join date are not the thread's
        remove_post_profile_details(tree)
    drop_scripts(tree)
    collapse_whitespace(tree)
    return tree


def lighten(tree: Element, page: str) -> bool:
    """Whether `tree` holds more than MAX_ELEMENTS elements; if so its links and inline formatting are unwrapped
    (their text kept). Extraction costs about 30 us an element in trafilatura alone, link conversion the most: a
    1.3 MB document of 63,000 links and 63,000 headings took 4.1 s, 1.6 s lightened and read in fast mode. Real
    pages stay far below: the 1,678 pages of AEB and WCXB dev have at most 15,795 elements. `page` is the markup
    the tree was parsed from: libxml2 makes one element per start tag and implies a few (html, body, a paragraph;
    at most 0.85 of the "<" count on those pages, 5 elements for "<td>a<td>b<td>c"), so a page of fewer than
    MAX_ELEMENTS / 2 "<" is not counted (0.21 -> 0.07 ms a median WCXB page)."""
    if 2 * page.count("<") + IMPLIED_ELEMENTS <= MAX_ELEMENTS or sum(1 for _ in tree.iter()) <= MAX_ELEMENTS:
        return False
    etree.strip_tags(tree, *INLINE_TAGS)
    return True


def _parse_html(markup: bytes) -> tuple[Element, bool]:
    """The lxml tree of `markup` (UTF-8, whatever it declares), and whether the parser stopped early on a fatal
    error (the rest of it lost)."""
    parser = html.HTMLParser(
        collect_ids=False, default_doctype=False, remove_comments=True, remove_pis=True, encoding="utf-8"
    )
    # every element an HtmlElement, chosen in C: lxml.html's default lookup runs a Python function each time an
    # element is touched from Python (about a tenth of an extraction); nothing here or in trafilatura needs the
    # form and input subclasses it picks
    parser.set_element_class_lookup(ELEMENT_CLASSES)
    tree = html.document_fromstring(markup, parser=parser)
    return tree, any(error.level == FATAL for error in parser.error_log)


def drop_scripts(tree: Element) -> None:
    """Remove the page's scripts, in place, all but its JSON-LD (which metadata, the page kinds and trafilatura
    read). Nothing here runs them, and each reader that copies or walks the tree paid for their elements and text:
    the median WCXB page carries 48 KB of script, and an extraction ran 2.1% faster without it (per page, the
    median over a third of WCXB dev, each timed both ways in turn). The shells that consist of scripts are told
    from the markup (walls.find_js_shell). A walk, not an XPath (see _hidden_roots)."""
    for script in list(tree.iter("script")):
        if "ld+json" not in (script.get("type") or "").lower() and script.getparent() is not None:
            script.drop_tree()  # its tail stays in the text


def absolute_url(base: str, href: str) -> str | None:
    """`href` resolved against `base`; None for a link no URL parser takes (a malformed IPv6 host, `http://[::1`),
    which a hostile page must not turn into a failed read."""
    try:
        return urljoin(base, href)
    except ValueError:
        return None


def page_name(url: str | None) -> str:
    """How an error message names the page at `url`."""
    return f"the page at {url}" if url else "the page"


def visible_text(tree: Element, skip: Callable[[Element], bool] | None = None, max_chars: int | None = None) -> str:
    """The text a reader would see, paragraphs kept apart by blank lines, scripts and templates left out (and
    the subtrees of the elements `skip` names); with `max_chars`, the walk stops once it has gathered that many
    characters (the caller only wanted to know the text is that long). Elements end as in collapse_whitespace,
    from the children left in each open one: 0.70 -> 0.62 ms a call against iterwalk's events (2,331 calls on half
    of WCXB dev). A hidden subtree is walked past, its line breaks worked out in C (_hidden_breaks): an unsure
    page's main region 2.10 -> 1.87 ms, the same text on all 1,674 AEB and WCXB dev pages that parse."""
    parts: list[str] = []
    size = 0
    limit = max_chars if max_chars is not None else -1
    # per open element: [the element, its tag, children left]
    opened: list[list[Any]] = []
    elements = body_of(tree).iter()
    for element in elements:
        tag = element.tag if isinstance(element.tag, str) else ""
        children = len(element)
        if tag in HIDDEN_TAGS or element.get("hidden") is not None or (skip is not None and skip(element)):
            if children:  # its subtree, walked past, adds only its line breaks
                parts.append(_hidden_breaks(element))
                children = skip_subtree(elements, element)
        else:
            if tag in BLOCK_TAGS and tag != "br":  # a block starts a line, after text or not
                parts.append("\n\n")
            if text := element.text:
                parts.append(text)
                size += len(text)
        if size > limit >= 0:
            break
        if children:
            opened.append([element, tag, children])
            continue
        while True:  # the element ends here, and so does each ancestor it was the last child of
            if tag in BLOCK_TAGS:
                parts.append("\n" if tag == "br" else "\n\n")
            elif tag in ("td", "th"):
                parts.append(" ")
            if tail := element.tail:
                parts.append(tail)
                size += len(tail)
            if (ended := ancestor_ended(opened)) is None:
                break
            element, tag, _ = ended
    return tidy("".join(parts))


def _hidden_breaks(element: Element) -> str:
    """What the subtree of a hidden `element` adds to visible_text: no text, but each block and <br> in it still
    ends a line and each cell adds a space, which tidy then reduces to a paragraph break, a line break, a space or
    nothing."""
    breaks, cells = 0, False
    for inner in element.iterdescendants(*BLOCK_TAGS, "td", "th"):
        if inner.tag not in BLOCK_TAGS:
            cells = True
            continue
        breaks += 1 if inner.tag == "br" else 2
        if breaks >= 2:
            return "\n\n"
    return "\n" if breaks else " " if cells else ""


def tidy(text: str) -> str:
    """Collapse runs of blanks inside lines and of empty lines between paragraphs. The blanks are collapsed over
    the whole text at once (they never span a line break), not line by line: a regex call per line was most of the
    cost on a page of many short lines."""
    lines = (line.strip() for line in BLANK_RUN.sub(" ", text).split("\n"))
    return BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def language(tree: Element) -> str | None:
    """The page's declared language: <html lang>, then Content-Language, then og:locale (as `en-GB`). The <meta>
    queries run only when <html lang> says nothing (0.27 ms a median WCXB page)."""
    candidates = itertools.chain(
        (tree.get("lang"), tree.get("{http://www.w3.org/XML/1998/namespace}lang")),
        itertools.chain.from_iterable(tree.xpath(query) for query in LANGUAGE_METAS),
    )
    for value in candidates:
        if value and value.strip():
            return str(value).strip().split(",")[0].strip().replace("_", "-")
    return None


def title_tag(tree: Element) -> str | None:
    """The <title> text, whitespace collapsed."""
    found = " ".join((tree.findtext(".//title") or "").split())
    return found or None


LANGUAGE_METAS = (
    "//meta[translate(@http-equiv,'CONTENT-LAGU','content-lagu')='content-language']/@content",
    "//meta[@property='og:locale']/@content",
)
HIDDEN_ROOT_TAGS = ("script", "style", "noscript", "template", "svg")
MAX_ELEMENTS = 100_000
IMPLIED_ELEMENTS = 8  # html, head, body and the like, which libxml2 adds without a tag
INLINE_TAGS = ("a", "span", "b", "i", "em", "strong", "font", "u", "small", "abbr", "cite", "code", "mark", "sub")


def text_size(tree: Element) -> int:
    """A quick estimate of len(visible_text(tree)), a fraction of its cost on a large page."""
    body = body_of(tree)
    hidden = sum(_collapsed_length(element.text_content()) for element in _hidden_roots(body))
    return _collapsed_length(body.text_content()) - hidden


def _hidden_roots(body: Element) -> Iterator[Element]:
    """The script, style, noscript, template and svg elements not inside another one. A walk in document order
    with an ancestor check, not an XPath with an ancestor predicate: libxml2 took 4.6 s on a page of 17,788
    scripts (its node sets are merged pairwise), this takes milliseconds."""
    for element in body.iter(*HIDDEN_ROOT_TAGS):
        if not any(ancestor.tag in HIDDEN_ROOT_TAGS for ancestor in element.iterancestors()):
            yield element


def _collapsed_length(text: str) -> int:
    return len(" ".join(text.split()))
