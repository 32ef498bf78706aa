"""PDFs written by hand, for the fake web's own report and for tests: a file writer for numbered objects, and a
text PDF (one Helvetica line per page, an information dictionary), small and valid for any reader."""

from __future__ import annotations

from collections.abc import Sequence


def write_pdf(objects: list[bytes], *, trailer: str = "") -> bytes:
    """A PDF file of `objects` (numbered from 1, the first the catalog) with its cross-reference table;
    `trailer` adds entries to the trailer dictionary (e.g. "/Info 9 0 R")."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    extra = f" {trailer}" if trailer else ""
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R{extra} >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def text_pdf(pages: Sequence[str], *, title: str, author: str, created: str, font_size: int = 12) -> bytes:
    """One Helvetica text line per page (an empty string: a page with no text layer), and an information dictionary
    with `title`, `author` and `created` (a PDF date, e.g. "D:20240305100000Z")."""
    count = len(pages)
    font, info = 3 + 2 * count, 4 + 2 * count
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(count))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode()]
    for index, text in enumerate(pages):
        content = f"BT /F1 {font_size} Tf 72 720 Td ({text}) Tj ET".encode() if text else b""
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * index} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    objects.append(f"<< /Title ({title}) /Author ({author}) /CreationDate ({created}) >>".encode())
    return write_pdf(objects, trailer=f"/Info {info} 0 R")
