"""Content sniffing: from a body, its Content-Type header and its URL, decide which extractor gets it.

The order, most trusted first:
1. A PDF header at the start or an unmistakable binary signature (PNG, JPEG, zip, gzip, ELF...) wins over any
   header: servers label PDFs `application/octet-stream` and images `text/html`. A `%PDF-` further into the
   first 1024 bytes (PDF readers allow leading junk) counts only under a generic or PDF Content-Type.
2. A specific declared media type: HTML, PDF, JSON, XML (XHTML goes to the HTML extractor, feeds stay XML), any
   `text/*`; `image/*`, `audio/*`, `video/*` and `font/*` are refused whatever the body looks like.
3. Missing or generic headers (`application/octet-stream`, unknown `application/*`): the body's first bytes
   (after a BOM) decide, with the URL's extension as a tie-break for text-like bodies.
Weak signatures (`BM`, `MZ`...) could open an ordinary text, so they only count when the header says nothing.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

ContentKind = Literal["html", "pdf", "json", "xml", "text", "binary"]

SNIFF_BYTES = 1024

# signatures that never start a text document
STRONG_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"II*\x00", "image/tiff"),
    (b"MM\x00*", "image/tiff"),
    (b"PK\x03\x04", "application/zip"),
    (b"\x1f\x8b", "application/gzip"),
    (b"7z\xbc\xaf\x27\x1c", "application/x-7z-compressed"),
    (b"Rar!\x1a\x07", "application/vnd.rar"),
    (b"\xfd7zXZ\x00", "application/x-xz"),
    (b"(\xb5/\xfd", "application/zstd"),
    (b"ID3", "audio/mpeg"),
    (b"OggS\x00", "application/ogg"),
    (b"fLaC", "audio/flac"),
    (b"\x1aE\xdf\xa3", "video/webm"),
    (b"\x00asm", "application/wasm"),
    (b"\x7fELF", "application/x-executable"),
    (b"wOFF", "font/woff"),
    (b"wOF2", "font/woff2"),
    (b"SQLite format 3\x00", "application/vnd.sqlite3"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "application/x-ole-storage"),
)
# signatures short or plain enough to begin a text ("BMW...", "MZ..."): trusted only without a header
WEAK_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"BM", "image/bmp"),
    (b"\x00\x00\x01\x00", "image/x-icon"),
    (b"MZ", "application/x-msdownload"),
    (b"BZh", "application/x-bzip2"),
    (b"OTTO", "font/otf"),
    (b"\x00\x01\x00\x00", "font/ttf"),
)
RIFF_KINDS = {b"WEBP": "image/webp", b"WAVE": "audio/wav", b"AVI ": "video/x-msvideo"}
FTYP_IMAGES = {b"avif": "image/avif", b"avis": "image/avif", b"heic": "image/heic", b"mif1": "image/heif"}

GENERIC_TYPES = frozenset(
    {"", "application/octet-stream", "binary/octet-stream", "application/unknown", "unknown/unknown",
     "application/x-unknown", "*/*", "application/force-download", "application/download"}
)  # fmt: skip
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml", "application/vnd.wap.xhtml+xml"})
PDF_TYPES = frozenset({"application/pdf", "application/x-pdf", "application/acrobat", "text/pdf"})
JSON_TYPES = frozenset({"application/json", "text/json", "application/x-json", "application/javascript+json"})
XML_TYPES = frozenset({"application/xml", "text/xml", "application/x-xml"})
REFUSED_FAMILIES = ("image/", "audio/", "video/", "font/", "model/")
# application/* types that are text an agent can read as it is
TEXT_APPLICATION_TYPES = frozenset(
    {"application/javascript", "application/x-javascript", "application/ecmascript", "application/x-ndjson",
     "application/yaml", "application/x-yaml", "application/toml", "application/x-sh", "application/sql",
     "application/x-httpd-php", "application/graphql", "application/csv"}
)  # fmt: skip
EXTENSION_KINDS: dict[str, ContentKind] = {
    "json": "json", "geojson": "json", "xml": "xml", "rss": "xml", "atom": "xml", "rdf": "xml",
    "htm": "html", "html": "html", "xhtml": "html",
}  # fmt: skip
COMPRESSION_SUFFIXES = frozenset({"gz", "gzip"})

HTML_START = re.compile(rb"<(?:!doctype\s+html|html|head|body|meta|title|script|div|p|a|table|iframe|h[1-6]|!--)\b")
MARKUP_ROOT = re.compile(rb"<(?!\?|!)([a-z][\w:.-]*)")


@dataclass(frozen=True)
class Sniffed:
    """What a body is: the extractor that gets it and the media type to report."""

    kind: ContentKind
    media_type: str
    charset: str | None = None  # the charset parameter of the header, as sent (charset.py judges it)


def parse_content_type(content_type: str | None) -> tuple[str, str | None]:
    """`text/html; charset="UTF-8"` -> ("text/html", "UTF-8"); a missing header gives ("", None)."""
    if not content_type:
        return "", None
    media, *params = content_type.split(";")
    charset = None
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip("\"'").strip() or None
    return media.strip().lower(), charset


def sniff(body: bytes, content_type: str | None, url: str = "") -> Sniffed:
    """Decide how to read `body`; never raises (refusing binaries is the extractor's call)."""
    declared, charset = parse_content_type(content_type)
    generic = declared in GENERIC_TYPES or "/" not in declared
    head = body[:SNIFF_BYTES]
    # a PDF may carry junk before its header; only trust a buried one when the header does not say otherwise
    if head.lstrip().startswith(b"%PDF-") or (b"%PDF-" in head and (generic or declared in PDF_TYPES)):
        return Sniffed("pdf", "application/pdf", charset)
    signature = binary_signature(head, weak=generic)
    if signature:
        return Sniffed("binary", signature, charset)
    if not generic:
        kind = declared_kind(declared, head)
        if kind is not None:
            return Sniffed(kind, declared, charset)
    kind = body_kind(head, url)
    media = {"html": "text/html", "json": "application/json", "xml": "application/xml", "text": "text/plain"}
    if kind == "binary":
        return Sniffed("binary", declared if not generic else "application/octet-stream", charset)
    return Sniffed(kind, media.get(kind, declared), charset)


def binary_signature(head: bytes, *, weak: bool) -> str | None:
    """The media type a known binary signature at the start of `head` gives, else None."""
    for magic, media in STRONG_SIGNATURES + (WEAK_SIGNATURES if weak else ()):
        if head.startswith(magic):
            return media
    if head.startswith(b"RIFF") and head[8:12] in RIFF_KINDS:
        return RIFF_KINDS[head[8:12]]
    if head[4:8] == b"ftyp":
        return FTYP_IMAGES.get(head[8:12], "video/mp4")
    return None


def declared_kind(declared: str, head: bytes) -> ContentKind | None:
    """The kind a specific Content-Type implies; None when it says too little (an unknown application/*)."""
    if declared in HTML_TYPES:
        return "html"
    if declared in PDF_TYPES:
        return "pdf"
    if declared in JSON_TYPES or declared.endswith("+json"):
        return "json"
    if declared.startswith(REFUSED_FAMILIES):  # before +xml: image/svg+xml is an image
        return "binary"
    if declared in XML_TYPES or declared.endswith("+xml"):
        return "html" if markup_root(head) == "html" else "xml"
    if declared.startswith("text/") or declared in TEXT_APPLICATION_TYPES:
        return "text"
    return None


def body_kind(head: bytes, url: str) -> ContentKind:
    """Sniff a body that came without a useful header."""
    text = sniff_text(head)
    if text is None:
        return "binary"
    start = text.lstrip().lower()
    if start.startswith(b"<?xml"):
        return "html" if markup_root(start) == "html" else "xml"
    if start.startswith(b"<") and HTML_START.match(start):
        return "html"
    if start.startswith(b"<") and markup_root(start) in ("rss", "feed", "rdf:rdf", "svg"):
        return "xml"
    if start.startswith((b"{", b"[")):
        return "json"
    return EXTENSION_KINDS.get(url_extension(url), "text")


def sniff_text(head: bytes) -> bytes | None:
    """`head` as ASCII-compatible bytes for sniffing (UTF-16/32 transcoded by their BOM), or None if binary."""
    for bom, codec in ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
                       (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")):  # fmt: skip
        if head.startswith(bom):
            usable = len(head[len(bom) :]) // 4 * 4  # whole code units only
            return head[len(bom) : len(bom) + usable].decode(codec, "replace").encode("utf-8")
    head = head.removeprefix(codecs.BOM_UTF8)
    if b"\x00" in head:
        return None
    controls = sum(1 for byte in head if byte < 0x20 and byte not in b"\t\n\r\f\x1b")
    return None if controls * 10 > len(head) else head


def markup_root(head: bytes) -> str | None:
    """The first element name in an XML/HTML prefix, lowercased (`html`, `rss`, `feed`...)."""
    match = MARKUP_ROOT.search(head.lower())
    return match.group(1).decode("ascii", "replace") if match else None


def url_extension(url: str) -> str:
    """`https://x/feed.rss?a=1` -> "rss", `file:///x/page.html.gz` -> "html"; "" when the path has no extension."""
    try:
        path = urlsplit(url).path
    except ValueError:
        return ""
    parts = path.rsplit("/", 1)[-1].lower().split(".")
    # once the body is decompressed, the extension that tells what it is sits before the compression suffix
    if len(parts) > 2 and parts[-1] in COMPRESSION_SUFFIXES:
        parts.pop()
    return parts[-1] if len(parts) > 1 else ""
