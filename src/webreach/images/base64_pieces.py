"""Base64 of megabyte images in pieces, for worker threads: binascii holds the GIL for a whole call (20-40 ms for a
6 MB photo on a busy machine), and while it does the event loop's thread cannot run; in 1 MB pieces the GIL can
change hands between them, so the loop waits a few milliseconds at most.
"""

from __future__ import annotations

import base64

PIECE = 1 << 20  # characters of base64 (a multiple of 4) or bytes of data (a multiple of 3) per call


def b64decode(text: str) -> bytes:
    """The bytes of strict base64 `text` (binascii.Error / ValueError as base64.b64decode(validate=True) raises)."""
    if len(text) % 4:
        raise ValueError("base64 text is not a multiple of 4 characters long")
    return b"".join(base64.b64decode(text[i : i + PIECE], validate=True) for i in range(0, len(text), PIECE))


def b64encode(data: bytes) -> str:
    """`data` as base64 text."""
    step = PIECE // 4 * 3
    view = memoryview(data)
    return "".join(base64.b64encode(view[i : i + step]).decode("ascii") for i in range(0, len(data), step))
