"""The result of extraction, and the renderings every content kind shares (json wrapper, minimal HTML).

Each reader (HTML cascade, PDF, text/JSON/XML) produces its content already in the asked format for markdown,
text and html. For format="json" it produces markdown (and, for JSON bodies and feeds, a structured value),
and `as_json` wraps it with the metadata: {"url", "title", ..., "content_type", "content"}.
"""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from dataclasses import dataclass, replace
from itertools import islice
from typing import Any

from webreach.models import METADATA_FIELDS, PageMetadata, ReadFormat

PARAGRAPH_BREAK = "\n\n"
WORD = re.compile(r"\w+")
MARKUP = re.compile(r"\]\([^)]*\)|<[^>]+>")  # a markdown link's target, an HTML tag: not words a reader sees


@dataclass(frozen=True)
class Extracted:
    """Extracted content in one format, with what was learned about the document."""

    text: str
    content_type: str
    format: ReadFormat = "markdown"
    title: str | None = None
    author: str | None = None
    date: str | None = None
    language: str | None = None
    canonical_url: str | None = None
    sitename: str | None = None
    extractor: str = ""  # which reader or cascade stage produced the text
    page_type: str | None = None  # the HTML page's kind when the classifier was sure (extract/kinds/page_type.py)
    data: Any = None  # a structured value for the json format (parsed JSON, feed items); else the text is used
    truncated: bool = False  # a budget cut the document short (a PDF's page or character budget): its end is missing

    def metadata(self) -> dict[str, str | None]:
        """The document's metadata fields (models.PageMetadata declares them)."""
        return {name: getattr(self, name) for name in METADATA_FIELDS}

    def page_metadata(self) -> PageMetadata:
        """The document's metadata, as a read Page returns it."""
        return PageMetadata(**self.metadata())


def as_json(extracted: Extracted, url: str) -> Extracted:
    """`extracted` with its text replaced by the json document format="json" promises."""
    document = {"url": url, **extracted.metadata(), "content_type": extracted.content_type}
    document["content"] = extracted.data if extracted.data is not None else extracted.text
    text = json.dumps(document, ensure_ascii=False)
    return replace(extracted, text=text, format="json", data=None)


def paragraphs_html(text: str, title: str | None = None) -> str:
    """Plain text as a minimal, escaped HTML document: one <p> per paragraph, lines kept with <br>."""
    heading = f"<h1>{html.escape(title)}</h1>\n" if title else ""
    return f"<html><body>\n{heading}{paragraph_elements(text)}\n</body></html>"


def paragraph_elements(text: str) -> str:
    """Plain text as escaped <p> elements, one per paragraph, lines kept with <br>."""
    parts = []
    for paragraph in text.split(PARAGRAPH_BREAK):
        if paragraph.strip():
            lines = "<br>\n".join(html.escape(line) for line in paragraph.strip().split("\n"))
            parts.append(f"<p>{lines}</p>")
    return "\n".join(parts)


def preformatted_html(text: str) -> str:
    """Text whose layout matters (JSON, source code) as an escaped <pre> block."""
    return f"<html><body><pre>{html.escape(text)}</pre></body></html>"


def seen_text(text: str) -> str:
    """Extracted `text` in any format as a reader sees it: markdown link targets and HTML tags left out."""
    return MARKUP.sub(" ", text)


def word_bag(text: str) -> Counter[str]:
    """The words a reader sees in extracted `text`, lower-cased and counted, to compare two readings."""
    return Counter(WORD.findall(seen_text(text).lower()))


def content_words(text: str, up_to: int | None = None) -> int:
    """Words a reader sees in extracted `text`; with `up_to`, counting stops past it, so a bound check on a long
    text costs what it costs on a short one (the repeated-block check on a median 1,800-word reading: 0.37 ms ->
    0.15 ms)."""
    seen = seen_text(text)
    if up_to is None:
        return len(WORD.findall(seen))
    return sum(1 for _ in islice(WORD.finditer(seen), up_to + 1))
