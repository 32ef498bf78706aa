"""PDFs made at test time: a file writer for hand-built objects, and hostile ones small on disk whose pages' content
streams inflate to many megabytes."""

from __future__ import annotations

import zlib

from webreach.testing.pdfs import write_pdf

CHUNK = 1 << 20


def deflated_whitespace(size: int, *, tail: bytes = b"") -> bytes:
    """`size` bytes of spaces (then `tail`) deflated in chunks, so the test never holds the inflated form."""
    packer = zlib.compressobj(9)
    chunk = b" " * CHUNK
    parts = [packer.compress(chunk) for _ in range(size // CHUNK)]
    parts.append(packer.compress(b" " * (size % CHUNK) + tail))
    parts.append(packer.flush())
    return b"".join(parts)


def bomb_pdf(*, pages: int = 1, inflated: int = 70 * CHUNK) -> bytes:
    """A valid PDF of `pages` pages, each a FlateDecode content stream of `inflated` bytes of whitespace ending
    in one line of text: a few hundred kilobytes that a naive reader inflates to pages * inflated bytes."""
    stream = deflated_whitespace(inflated, tail=b"BT /F1 12 Tf 72 720 Td (still here) Tj ET")
    font = 3 + 2 * pages
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(pages))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode()]
    for index in range(pages):
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * index} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    return write_pdf(objects)
