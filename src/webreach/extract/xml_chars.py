"""Text that lxml accepts: the characters XML 1.0 forbids, removed before a parser or a tree setter sees them.

lxml refuses to store text holding C0 control characters (other than tab, line feed and carriage return),
lone surrogates, U+FFFE or U+FFFF: `element.text = "a \\x01\\n b"` raises ValueError, so a page with one stray
control byte used to fail the whole read. Browsers show none of these characters, so dropping them changes
nothing a reader would see. The form feed is HTML whitespace, so it becomes a space instead.

An XML document can also name such a character by reference (`&#xD800;`): lxml's recovering XML parser then
stores bytes that are not UTF-8, and reading the element's text raised UnicodeDecodeError, failing a feed read.
`xml_document_safe` drops those references too, before the parser sees the document.
"""

from __future__ import annotations

import re

NOT_XML_CHARS = re.compile("[\x00-\x08\x0b\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
CHARACTER_REFERENCE = re.compile(r"&#(?:[xX]([0-9a-fA-F]+)|([0-9]+));")


def xml_safe(text: str) -> str:
    """`text` without the characters lxml refuses (form feeds become spaces); unchanged text is returned as is."""
    if "\f" in text:
        text = text.replace("\f", " ")
    return NOT_XML_CHARS.sub("", text)


def xml_document_safe(document: str) -> str:
    """`document` (XML markup) without the characters lxml refuses, written out or named by a reference."""
    return CHARACTER_REFERENCE.sub(_allowed_reference, xml_safe(document))


def _allowed_reference(match: re.Match[str]) -> str:
    hexadecimal, decimal = match.groups()
    digits = hexadecimal or decimal
    if len(digits) > 8:  # past U+10FFFF whatever the digits: no character
        return ""
    code = int(digits, 16 if hexadecimal else 10)
    if code > 0x10FFFF or NOT_XML_CHARS.match(chr(code)):
        return ""
    return match.group(0)
