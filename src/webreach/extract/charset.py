"""Turning a body's bytes into text: which charset, and a decode that never fails.

Where the charset comes from, first answer wins:
1. A byte-order mark. It cannot be there by accident, so it beats the header (as in the WHATWG encoding spec).
2. The Content-Type header's charset parameter.
3. For HTML, `<meta charset>` or `<meta http-equiv="Content-Type">` in the first 4 KiB; for XML, the
   `<?xml encoding=...?>` declaration.
4. Bytes that are valid UTF-8 are UTF-8; otherwise charset-normalizer's guess when it is installed (trafilatura
   depends on it), else windows-1252, which maps nearly every byte.
A label is first mapped the way browsers map it (latin-1 and ascii mean windows-1252, gb2312 means GB18030...)
and must then name one of the web's real encodings: an unknown or bogus label (`utf-7`, `rot13`, `base64`,
`x-user-defined`) is ignored and the next source decides. One exception to header-first: a header naming a
single-byte Latin charset over a body that is valid, non-ASCII UTF-8 is the classic mislabel, and UTF-8 wins;
so does a header naming UTF-16 or UTF-32 (without a BOM) over a body of valid UTF-8 without NUL bytes, which
real UTF-16 text nearly always has (Latin script) or is not valid UTF-8 (other scripts): read as UTF-16, the
page would be a wall of CJK-looking nonsense.
Decoding always uses errors="replace".
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import Literal

CharsetSource = Literal["bom", "header", "meta", "utf-8", "detected", "fallback"]

META_SCAN_BYTES = 4096
DETECT_SAMPLE_BYTES = 64 * 1024

BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: its BOM starts with FF FE too
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# labels browsers read differently from Python's codec of the same name (WHATWG Encoding, "labels")
BROWSER_ALIASES = {
    "iso-8859-1": "cp1252", "iso8859-1": "cp1252", "latin1": "cp1252", "latin-1": "cp1252", "l1": "cp1252",
    "ascii": "cp1252", "us-ascii": "cp1252", "iso-8859-9": "cp1254", "latin5": "cp1254",
    "iso-8859-11": "cp874", "tis-620": "cp874", "gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030",
    "chinese": "gb18030", "csgb2312": "gb18030", "big5": "big5hkscs", "x-x-big5": "big5hkscs",
    "shift_jis": "cp932", "shift-jis": "cp932", "sjis": "cp932", "x-sjis": "cp932", "windows-31j": "cp932",
    "ms_kanji": "cp932", "euc-kr": "cp949", "ks_c_5601-1987": "cp949", "korean": "cp949",
    "x-mac-roman": "mac-roman", "macintosh": "mac-roman", "x-mac-cyrillic": "mac-cyrillic",
    "unicode": "utf-16-le", "utf-16": "utf-16-le", "ucs-2": "utf-16-le", "unicodefffe": "utf-16-be",
}  # fmt: skip
# Python codec names (codecs.lookup(...).name) of the encodings the web actually uses
WEB_CODECS = frozenset(
    {"utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "cp866", "koi8-r", "koi8-u", "mac-roman",
     "mac-cyrillic", "cp874", "cp1250", "cp1251", "cp1252", "cp1253", "cp1254", "cp1255", "cp1256", "cp1257",
     "cp1258", "gb18030", "big5hkscs", "euc_jp", "iso2022_jp", "cp932", "cp949", "iso8859-2", "iso8859-3",
     "iso8859-4", "iso8859-5", "iso8859-6", "iso8859-7", "iso8859-8", "iso8859-10", "iso8859-13", "iso8859-14",
     "iso8859-15", "iso8859-16"}
)  # fmt: skip
SINGLE_BYTE_LATIN = frozenset({"cp1252", "iso8859-15", "cp1254"})
WIDE_UTFS = ("utf-16", "utf-32")

META_CHARSET = re.compile(
    rb"""<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([A-Za-z0-9._:()-]+)"""  # charset= or content="...; charset=..."
    rb"""|<\?xml\b[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._-]+)""",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Decoded:
    """Text and where its charset came from (for diagnostics and tests)."""

    text: str
    encoding: str
    source: CharsetSource


def codec_for(label: str | None) -> str | None:
    """The Python codec a charset label means on the web, or None for unknown and non-web labels."""
    if not label:
        return None
    name = label.strip().strip("\"'").lower()
    name = BROWSER_ALIASES.get(name, name)
    try:
        codec = codecs.lookup(name).name
    except (LookupError, ValueError):
        return None
    codec = BROWSER_ALIASES.get(codec, codec)  # Python spells some aliases itself ("iso8859-1", "gbk")
    return codec if codec in WEB_CODECS else None


def decode(body: bytes, charset: str | None = None, *, markup: bool = True) -> Decoded:
    """Decode `body`; `charset` is the header's label, `markup` allows the meta/XML-declaration prescan."""
    for bom, codec in BOMS:
        if body.startswith(bom):
            return Decoded(body[len(bom) :].decode(codec, "replace"), codec, "bom")
    declared = codec_for(charset)
    if declared is not None:
        if declared in SINGLE_BYTE_LATIN and is_utf8_beyond_ascii(body):
            return Decoded(body.decode("utf-8", "replace"), "utf-8", "utf-8")
        if declared.startswith(WIDE_UTFS) and is_narrow_text(body):
            return Decoded(body.decode("utf-8", "replace"), "utf-8", "utf-8")
        return Decoded(body.decode(declared, "replace"), declared, "header")
    if markup:
        meta = meta_charset(body)
        if meta is not None:
            return Decoded(body.decode(meta, "replace"), meta, "meta")
    try:
        return Decoded(body.decode("utf-8"), "utf-8", "utf-8")
    except UnicodeDecodeError:
        pass
    guess = detect(body)
    if guess is not None:
        return Decoded(body.decode(guess, "replace"), guess, "detected")
    return Decoded(body.decode("cp1252", "replace"), "cp1252", "fallback")


def meta_charset(body: bytes) -> str | None:
    """The first usable charset declared in the document's head (meta tag or XML declaration)."""
    for match in META_CHARSET.finditer(body[:META_SCAN_BYTES]):
        label = (match.group(1) or match.group(2)).decode("ascii")
        codec = codec_for(label)
        if codec is None:
            continue
        # a meta tag readable as ASCII cannot be UTF-16/32 text: the page is really UTF-8 (HTML spec)
        return "utf-8" if codec.startswith(("utf-16", "utf-32")) else codec
    return None


def is_utf8_beyond_ascii(body: bytes) -> bool:
    """True when `body` has non-ASCII bytes and all of them form valid UTF-8."""
    return not body.isascii() and _is_utf8(body)


def is_narrow_text(body: bytes) -> bool:
    """True when `body` cannot be UTF-16 or UTF-32 text: valid UTF-8 without a single NUL byte."""
    return b"\x00" not in body and _is_utf8(body)


def _is_utf8(body: bytes) -> bool:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def detect(body: bytes) -> str | None:
    """charset-normalizer's best web codec for a sample of `body`, or None when it is absent or unsure."""
    try:
        from charset_normalizer import from_bytes
    except ImportError:  # optional: trafilatura brings it, a slim install may not have it
        return None
    best = from_bytes(body[:DETECT_SAMPLE_BYTES]).best()
    return codec_for(best.encoding) if best is not None else None
