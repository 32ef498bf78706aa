"""Page readers: direct (the guarded fetcher), browser (Chromium, every request through that fetcher) and jina.

A reader turns a URL into the whole extracted document (`ReadResult`); windowing and caching happen above it,
in reading.py. `ReaderChain` picks the reader: the one named, or for reader="auto" the configured order
(default direct, browser, jina), moving on only when the previous reader's failure is one another reader can
cure, decided by the error's code, never its message:

    needs_browser      -> browser, then jina     (a JavaScript shell)
    extraction_failed  -> browser, then jina     (nothing readable came out)
    captcha, blocked   -> jina                   (a bot wall; Jina reads from its own network)

A reader that is not available here (code not_configured: no Chromium, jina switched off) or not now (throttled:
Jina at its rate, reader_pace.py) is skipped. A refusal
by the guard (url_not_allowed) is never retried elsewhere, and neither are timeouts, HTTP errors or transport
failures: another reader would not change them. When every candidate failed, the first error is raised, since
it describes the page itself, unless the browser rendered the page and still found no text (rendered_empty): then
that is raised, since "read it with the browser" has just been done.

The chain's `seconds` is the read's total deadline, across every reader it tries: each reader is given what is
left of it (`seconds=`) and bounds its own work by that, below its own budget (the browser's 30 s, Jina's 30 s),
so reader="auto" on a JavaScript shell ends within the read's timeout, not the sum of its readers' budgets. A
reader that overruns anyway is cut off a grace period later; no reader starts once nothing is left, and then the
first reader's error stands (it describes the page). The clock is the event loop's, which the fetcher, the browser
and the extraction workers measure their deadlines on too.

The extractor raises the FetchError classes of errors.py itself (PageBlockedError, NeedsBrowserError,
ExtractionError, UnsupportedContentError); `as_fetch_error` only makes sure one names the URL that was read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from webreach.errors import FetchError, FetchTimeoutError, NotConfiguredError, WebreachError
from webreach.extract.extracted import Extracted
from webreach.models import ReadRequest

DEFAULT_ORDER = ("direct", "browser", "jina")
# after a failure with this code, which readers are worth a try
CURES: Mapping[str, frozenset[str]] = {
    "needs_browser": frozenset({"browser", "jina"}),
    "extraction_failed": frozenset({"browser", "jina"}),
    "captcha": frozenset({"jina"}),
    "blocked": frozenset({"jina"}),
}
UNAVAILABLE = "not_configured"
THROTTLED = "throttled"  # a reader paced out for now (the Jina reader at its rate): the next may read it
RENDERED_EMPTY = "rendered_empty"
# how long past the total deadline a reader that ignores its `seconds` may run (closing a browser context)
GRACE_SECONDS = 1.0


@dataclass(frozen=True)
class ReadResult:
    """One page read whole: where it came from and its extracted content (not yet windowed)."""

    url: str
    final_url: str
    status: int
    extracted: Extracted
    reader: str
    redirects: tuple[str, ...] = ()

    @property
    def content_type(self) -> str:
        return self.extracted.content_type


class Reader(Protocol):
    """Reads one URL into a ReadResult in `request.format` within `seconds` (None: its own budget); raises typed
    FetchErrors."""

    name: str

    async def read(self, url: str, request: ReadRequest, *, seconds: float | None = None) -> ReadResult: ...


def as_fetch_error(exc: WebreachError, url: str) -> WebreachError:
    """`exc` with `url` attached when it is a FetchError that does not name its page yet; anything else unchanged."""
    if isinstance(exc, FetchError) and exc.url is None:
        exc.url = url
    return exc


class ReaderChain:
    """The reader a request names, or the configured fallback order for reader='auto'."""

    def __init__(self, readers: Mapping[str, Reader], order: Sequence[str] = DEFAULT_ORDER) -> None:
        self.readers = dict(readers)
        self.order = tuple(order)

    async def read(self, url: str, request: ReadRequest, *, seconds: float | None = None) -> ReadResult:
        """Read `url` with the reader the request names, or the fallback order; all of it within `seconds`."""
        if seconds is None:
            return await self._read(url, request, None)
        loop = asyncio.get_running_loop()
        ends = loop.time() + seconds
        try:
            async with asyncio.timeout(seconds + GRACE_SECONDS):
                return await self._read(url, request, ends)
        except TimeoutError:
            raise FetchTimeoutError(
                f"Reading {url} did not finish within its {seconds:g} s deadline (every reader tried counts).",
                url=url,
            ) from None

    async def _read(self, url: str, request: ReadRequest, ends: float | None) -> ReadResult:
        if request.reader != "auto":
            reader = self.readers.get(request.reader)
            if reader is None:
                raise NotConfiguredError(
                    f"The {request.reader} reader is not available here.",
                    hint=f"Use one of: auto, {', '.join(self.readers)}.",
                )
            return await reader.read(url, request, seconds=_left(ends))
        first: WebreachError | None = None
        unavailable: WebreachError | None = None
        for name in self.order:
            reader = self.readers.get(name)
            if reader is None or (first is not None and name not in CURES.get(first.code, frozenset())):
                continue
            left = _left(ends)
            if left is not None and left <= 0 and first is not None:
                break  # the deadline is spent: the first reader's error describes the page
            try:
                return await reader.read(url, request, seconds=left)
            except WebreachError as exc:
                if exc.code in (UNAVAILABLE, THROTTLED):
                    unavailable = unavailable or exc  # not installed or switched off here: the next may be
                elif first is not None:
                    if exc.code == RENDERED_EMPTY:
                        first = exc  # the browser did what the first error asked for: its finding is the news
                    continue  # a fallback failed too: the first error still describes the page best
                elif exc.code not in CURES:
                    raise
                else:
                    first = exc
        if first is not None:
            raise first
        raise unavailable or NotConfiguredError("No reader is configured.", hint="Set read.reader_order.")


def _left(ends: float | None) -> float | None:
    """Seconds left until `ends` (loop time), or None when the read has no total deadline."""
    return None if ends is None else max(0.0, ends - asyncio.get_running_loop().time())
