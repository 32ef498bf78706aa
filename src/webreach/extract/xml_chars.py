"""Text that lxml accepts: the characters XML 1.0 forbids, removed before a parser or a tree setter sees them.

lxml refuses to store text holding C0 control characters (other than tab, line feed and carriage return),
lone surrogates, U+FFFE or U+FFFF: `element.text = "a \\x01\\n b"` raises ValueError, so a page with one stray
control byte used to fail the whole read. Browsers show none of these characters, so dropping them changes
nothing a reader would see. The form feed is HTML whitespace, so it becomes a space instead.
"""

from __future__ import annotations

import re

NOT_XML_CHARS = re.compile("[\x00-\x08\x0b\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_safe(text: str) -> str:
    """`text` without the characters lxml refuses (form feeds become spaces); unchanged text is returned as is."""
    if "\f" in text:
        text = text.replace("\f", " ")
    return NOT_XML_CHARS.sub("", text)
