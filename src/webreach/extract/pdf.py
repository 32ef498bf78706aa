"""PDF to text with pypdf: the text layer page by page, title/author/date from the document information.

Pages are joined with a marker ("--- page 2 ---") so an agent reading a window knows where it is. An encrypted
PDF is opened with the empty user password (most "encrypted" PDFs only restrict printing or copying); one that
needs a real password, a broken file, or one without a text layer (a scan) raises ExtractionError.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pypdf import PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError

from webreach.errors import ExtractionError

PAGE_MARKER = "\n\n--- page {number} ---\n\n"
DEFAULT_MAX_PAGES = 500
PASSWORD_HINT = "The document needs a password webreach does not have; look for another copy or source."
BROKEN_HINT = "The file is not a readable PDF; try reader='jina' or another source for the same document."
SCAN_HINT = "The PDF holds page images without text (OCR is not done); try reader='jina' or another source."


@dataclass(frozen=True)
class PdfText:
    """What a PDF yielded."""

    text: str
    pages: int
    title: str | None = None
    author: str | None = None
    date: str | None = None


def read_pdf(body: bytes, *, max_pages: int = DEFAULT_MAX_PAGES, url: str | None = None) -> PdfText:
    """The text of the first `max_pages` pages of `body`; raises ExtractionError (for `url`) when there is none."""
    try:
        reader = PdfReader(io.BytesIO(body))
        if reader.is_encrypted and not reader.decrypt(""):
            raise _failed("the PDF is encrypted with a password", url, PASSWORD_HINT)
        texts = [page.extract_text() or "" for page in reader.pages[:max_pages]]
        total = len(reader.pages)
        info = _info(reader)
    except ExtractionError:
        raise
    except (FileNotDecryptedError, DependencyError):
        raise _failed("the PDF is encrypted and cannot be opened", url, PASSWORD_HINT) from None
    except Exception as exc:  # hostile input: pypdf can fail in many ways on a broken file
        raise _failed(f"the PDF is damaged or not a PDF ({type(exc).__name__})", url, BROKEN_HINT) from None
    if not any(text.strip() for text in texts):
        raise _failed("the PDF has no text layer (a scanned document?)", url, SCAN_HINT)
    parts = [texts[0].strip()]
    for number, text in enumerate(texts[1:], start=2):
        parts.append(PAGE_MARKER.format(number=number) + text.strip())
    if total > max_pages:
        parts.append(f"\n\n[{total - max_pages} more pages not extracted]")
    return PdfText("".join(parts), total, **info)


def _failed(reason: str, url: str | None, hint: str) -> ExtractionError:
    where = f" in {url}" if url else ""
    return ExtractionError(f"No readable text{where}: {reason}.", url=url, hint=hint)


def _info(reader: PdfReader) -> dict[str, Any]:
    """Title, author and creation date from the document information dictionary, when readable."""
    try:
        meta = reader.metadata
    except Exception:  # a damaged info dictionary must not cost us the text
        return {}
    if meta is None:
        return {}
    return {"title": _clean(meta.title), "author": _clean(meta.author), "date": _date(meta)}


def _clean(value: Any) -> str | None:
    text = " ".join(str(value).split()) if value is not None else ""
    return text or None


def _date(meta: Any) -> str | None:
    try:
        created: datetime | None = meta.creation_date
    except (ValueError, TypeError):  # malformed date strings are common
        return None
    return created.date().isoformat() if created else None
