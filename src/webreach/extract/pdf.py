"""PDF to text with pypdf: the text layer page by page, title/author/date from the document information.

Pages are joined with a marker ("--- page 2 ---") so an agent reading a window knows where it is. An encrypted
PDF is opened with the empty user password (most "encrypted" PDFs only restrict printing or copying); one that
needs a real password, a broken file, or one without a text layer (a scan) raises ExtractionError.

Budgets, since a small hostile file can inflate to gigabytes: at most `max_pages` pages; a decoded content
stream over `max_stream_bytes` is refused by pypdf itself (its limits set for this call only, through its
context-scoped configuration) and that page is skipped with a note; text stops at `max_chars`; and with
`seconds`, no page is started after that many seconds (the pages left are noted). A single page can still
take long, which is why the readers run PDFs in a worker process they can kill (worker.py). A PDF whose every
page was over the stream budget raises ResponseTooLargeError.
"""

from __future__ import annotations

import io
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pypdf import Configuration, PdfReader, apply_configuration
from pypdf.errors import DependencyError, FileNotDecryptedError, LimitReachedError

from webreach.errors import READ_WITH_JINA, ExtractionError, Hint, ResponseTooLargeError, hint

PAGE_MARKER = "\n\n--- page {number} ---\n\n"
DEFAULT_MAX_PAGES = 500
DEFAULT_MAX_CHARS = 5_000_000  # about 2,000 dense pages: more than any agent reads, bounded for the result's IPC
DEFAULT_MAX_STREAM_BYTES = 16 * 1024 * 1024  # text pages decode to kilobytes; dense vector maps to a few MB
OVERSIZED_PAGE = "[page not extracted: its content inflates past the size budget]"
OVERSIZED_HINT = "The document is built to exhaust readers, or far larger than a read allows; try another source."
PASSWORD_HINT = "The document needs a password webreach does not have; look for another copy or source."
BROKEN_HINT = hint("The file is not a readable PDF; try {} or another source for the same document.", READ_WITH_JINA)
SCAN_HINT = hint("The PDF holds page images without text (OCR is not done); try {} or another source.", READ_WITH_JINA)


@dataclass(frozen=True)
class PdfText:
    """What a PDF yielded."""

    text: str
    pages: int
    title: str | None = None
    author: str | None = None
    date: str | None = None
    truncated: bool = False  # a page, character or time budget stopped extraction before the last page


def read_pdf(
    body: bytes,
    *,
    max_pages: int = DEFAULT_MAX_PAGES,
    max_chars: int = DEFAULT_MAX_CHARS,
    max_stream_bytes: int = DEFAULT_MAX_STREAM_BYTES,
    seconds: float | None = None,
    url: str | None = None,
) -> PdfText:
    """The text of the first `max_pages` pages of `body` within the budgets above; raises ExtractionError (for
    `url`) when there is none, ResponseTooLargeError when every page was over the stream budget."""
    deadline = time.monotonic() + seconds if seconds is not None else None
    try:
        with _stream_limits(max_stream_bytes):
            reader = PdfReader(io.BytesIO(body))
            if reader.is_encrypted and not reader.decrypt(""):
                raise _failed("the PDF is encrypted with a password", url, PASSWORD_HINT)
            pages = _Pages(max_chars, deadline)
            for page in reader.pages[:max_pages]:
                if not pages.add(page):
                    break
            total = len(reader.pages)
            info = _info(reader)
    except (ExtractionError, MemoryError):  # out of memory is a budget (see last_resort.py), not a damaged file
        raise
    except (FileNotDecryptedError, DependencyError):
        raise _failed("the PDF is encrypted and cannot be opened", url, PASSWORD_HINT) from None
    except Exception as exc:  # hostile input: pypdf can fail in many ways on a broken file
        raise _failed(f"the PDF is damaged or not a PDF ({type(exc).__name__})", url, BROKEN_HINT) from None
    return pages.result(total, max_pages, info, url, max_stream_bytes)


class _Pages:
    """Page texts gathered under the character and time budgets, with the notes a reader of the result needs."""

    def __init__(self, max_chars: int, deadline: float | None) -> None:
        self.texts: list[str] = []
        self.chars = 0
        self.max_chars = max_chars
        self.deadline = deadline
        self.oversized = 0  # pages skipped because a content stream inflated past the budget
        self.stopped = ""  # why extraction ended before the last page, when it did

    def add(self, page: Any) -> bool:
        """Extract one more page; False when a budget says to stop before it."""
        # the first page is always tried: a worker that runs out of time on it is killed from outside
        if self.texts and self.deadline is not None and time.monotonic() > self.deadline:
            self.stopped = "the time budget ran out"
            return False
        if self.chars >= self.max_chars:
            self.stopped = f"the {self.max_chars:,} character budget was reached"
            return False
        try:
            text = (page.extract_text() or "").strip()
        except LimitReachedError:
            self.oversized += 1
            text = OVERSIZED_PAGE
        text = text[: self.max_chars - self.chars]
        self.texts.append(text)
        self.chars += len(text)
        return True

    def result(
        self, total: int, max_pages: int, info: dict[str, Any], url: str | None, max_stream_bytes: int
    ) -> PdfText:
        if self.oversized and self.oversized == len(self.texts):
            raise ResponseTooLargeError(
                f"No readable text{_where(url)}: its pages inflate past {max_stream_bytes:,} bytes each.",
                url=url,
                hint=OVERSIZED_HINT,
            )
        if not any(text.strip() and text != OVERSIZED_PAGE for text in self.texts):
            raise _failed("the PDF has no text layer (a scanned document?)", url, SCAN_HINT)
        parts = [self.texts[0]]
        for number, text in enumerate(self.texts[1:], start=2):
            parts.append(PAGE_MARKER.format(number=number) + text)
        left = total - len(self.texts)
        if left > 0:
            reason = self.stopped or f"the {max_pages:,} page budget was reached"
            parts.append(f"\n\n[{left} more pages not extracted: {reason}]")
        return PdfText("".join(parts), total, **info, truncated=left > 0)


def _stream_limits(cap: int) -> AbstractContextManager[Configuration]:
    """pypdf's decoded-size limits, all at `cap`, for the calls inside the block (a context variable, not global)."""
    return apply_configuration(
        zlib_maximum_output_length=cap,
        lzw_maximum_output_length=cap,
        run_length_maximum_output_length=cap,
        brotli_maximum_output_length=cap,
        array_based_stream_maximum_output_length=cap,
        maximum_declared_stream_length=cap,
    )


def _where(url: str | None) -> str:
    return f" in {url}" if url else ""


def _failed(reason: str, url: str | None, hint: str | Hint) -> ExtractionError:
    return ExtractionError(f"No readable text{_where(url)}: {reason}.", url=url, hint=hint)


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
