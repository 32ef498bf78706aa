"""A markup change on demand: every class and id of a page renamed, as when an engine ships new markup.

Used by the mutation tests and bench/generic_parser.py --mutate to check that the generic parser still finds
a page's results once the engine's own selectors (which name classes and ids) find nothing.
"""

from __future__ import annotations

import re
import zlib

_NAMED = re.compile(r"""\b(class|id)=(["'])(.*?)\2""", re.S)


def rename_classes(html: str) -> str:
    """`html` with every class and id token replaced by a meaningless one (the same token for the same name)."""

    def rename(match: re.Match[str]) -> str:
        quote = match.group(2)
        tokens = " ".join(f"x{zlib.crc32(token.encode()) % 10**6:06d}" for token in match.group(3).split())
        return f"{match.group(1)}={quote}{tokens}{quote}"

    return _NAMED.sub(rename, html)
