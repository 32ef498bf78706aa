"""Bodies that are already text: plain text, JSON (pretty-printed), XML (RSS/Atom/RDF feeds listed as items).

Nothing here guesses at main content: the body is the content. Feeds are the exception worth the work, since an
agent reading a feed wants its entries, not its markup: they become a markdown list of linked titles with date
and a short summary (and, for format="json", a structured {"title", "items": [...]} value).
XML is parsed without entities, DTDs or network access, so a hostile document cannot reach files or hosts.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from typing import Any

from lxml import etree

import webreach.bounded_json as bounded_json
from webreach.extract.extracted import Extracted, paragraphs_html, preformatted_html
from webreach.extract.metadata import iso_date
from webreach.extract.preparation.xml_chars import xml_document_safe
from webreach.models import ReadFormat

SUMMARY_CHARS = 500
XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class FeedItem:
    """One entry of a feed."""

    title: str
    link: str | None
    date: str | None
    summary: str


def read_text(text: str, content_type: str, fmt: ReadFormat) -> Extracted:
    """Plain text as it is, line endings normalised."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    rendered = paragraphs_html(text) if fmt == "html" else text
    return Extracted(rendered, content_type, fmt, extractor="text")


def read_json(text: str, content_type: str, fmt: ReadFormat) -> Extracted:
    """JSON pretty-printed (an invalid document is passed through as text)."""
    try:
        value = bounded_json.loads(text)
    except ValueError:  # not JSON, or nested too deep to parse and print again safely: shown as it is
        return read_text(text, content_type, fmt)
    pretty = json.dumps(value, indent=2, ensure_ascii=False)
    rendered = preformatted_html(pretty) if fmt == "html" else pretty
    return Extracted(rendered, content_type, fmt, extractor="json", data=value)


def read_xml(text: str, content_type: str, fmt: ReadFormat) -> Extracted:
    """A feed rendered as a list of items; any other XML passed through as text."""
    root = parse_xml(text)
    if root is None or local_name(root) not in ("rss", "feed", "RDF"):
        rendered = preformatted_html(text) if fmt == "html" else text
        return Extracted(rendered, content_type, fmt, extractor="xml")
    channel = first(root, "channel") if local_name(root) != "feed" else root
    title = child_text(channel, "title") if channel is not None else None
    description = child_text(channel, "description", "subtitle") if channel is not None else None
    items = [feed_item(node) for node in root.iter("{*}item", "{*}entry")]
    markdown = render_feed(title, description, items, links=fmt != "text")
    rendered = paragraphs_html(render_feed(title, description, items, links=False)) if fmt == "html" else markdown
    data = {"title": title, "description": description, "items": [vars(item) for item in items]}
    return Extracted(rendered, content_type, fmt, title=title, extractor="feed", data=data)


def parse_xml(text: str) -> Any:
    """The root element, or None when the text is not well-formed enough to recover."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, recover=True)
    try:
        return etree.fromstring(xml_document_safe(XML_DECLARATION.sub("", text, count=1)).strip(), parser=parser)
    except (etree.XMLSyntaxError, ValueError):
        return None


def local_name(element: Any) -> str:
    """The tag without its namespace. Not etree.QName: the recovering parser keeps tag names QName refuses
    (`<titlsts:>`), and one such tag in a feed must not fail the read."""
    tag = element.tag
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def first(element: Any, *names: str) -> Any:
    """The first child of `element` with one of the local `names`, or None."""
    for child in element:
        if isinstance(child.tag, str) and local_name(child) in names:
            return child
    return None


def child_text(element: Any, *names: str) -> str | None:
    """The text of the first child named in `names`, with any HTML in it flattened."""
    child = first(element, *names)
    if child is None:
        return None
    text = " ".join(html.unescape(TAG.sub(" ", "".join(child.itertext()))).split())
    return text or None


def feed_item(node: Any) -> FeedItem:
    """An RSS <item> or Atom <entry>."""
    link = child_text(node, "link")
    for candidate in node:
        # Atom: <link href="..." rel="alternate"/> (rel defaults to alternate); RSS: <link>url</link>
        is_link = isinstance(candidate.tag, str) and local_name(candidate) == "link"
        if is_link and candidate.get("href") and candidate.get("rel", "alternate") == "alternate":
            link = candidate.get("href")
            break
    summary = child_text(node, "description", "summary", "content", "encoded") or ""
    if len(summary) > SUMMARY_CHARS:
        summary = summary[:SUMMARY_CHARS].rsplit(" ", 1)[0] + " …"
    raw_date = child_text(node, "pubDate", "published", "updated", "date")
    date = iso_date(raw_date) or raw_date
    return FeedItem(child_text(node, "title") or "(untitled)", link, date, summary)


def render_feed(title: str | None, description: str | None, items: list[FeedItem], *, links: bool) -> str:
    """The feed as markdown (`links`) or as plain text."""
    parts = [f"# {title}" if links else title] if title else []
    if description:
        parts.append(description)
    for item in items:
        heading = f"[{item.title}]({item.link})" if links and item.link else item.title
        lines = [f"## {heading}" if links else heading]
        if item.link and not links:
            lines.append(item.link)
        if item.date:
            lines.append(item.date)
        if item.summary:
            lines.append("")
            lines.append(item.summary)
        parts.append("\n".join(lines))
    return "\n\n".join(p for p in parts if p)
