"""The direct reader (guarded fetch, interstitials, extraction) and the adapter that makes the browser a Reader.

Both end in `extract_result`: the body goes to the extractor in a child process (extract/worker.py) that is killed
when the read's deadline passes: a PDF or a very large body to a fresh child, a bounded number at once, any other
page to one of a few reusable children (extract/pool.py), so no page can hold a thread or the server's memory past
its deadline (a reader built without workers, in tests, extracts in a thread). The direct reader's deadline is the
fetch budget's total seconds, counted from the start of the read, so fetching and extracting together stay within
it; a reader chain with less time left than that passes `seconds`, which then bounds the fetch, the interstitials
and the extraction (the browser alike).
For an error status (anything from 300 up that was not followed) the body is still extracted, only to find bot
walls: a 403 or 503 challenge page becomes PageBlockedError (captcha or blocked), which tells the agent more
than "HTTP 403"; any other error page is an HttpStatusError.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from typing import Protocol

from webreach.errors import ExtractionError, FetchTimeoutError, NeedsBrowserError, RenderedEmptyError, WebreachError
from webreach.extract.cascade import ExtractOptions, extract
from webreach.extract.worker import ExtractionWorkers
from webreach.models import ReadRequest
from webreach.net.fetcher import Fetcher
from webreach.read.interstitials import Interstitials
from webreach.read.readers import ReadResult, as_fetch_error
from webreach.read.readers.browser_routing import FetchedResponse

WALL_CODES = frozenset({"captcha", "blocked"})


class FetchedPage(FetchedResponse, Protocol):
    """What a reader got back for a URL (status, headers, body, and these): the fetcher's Fetched and the browser's
    rendered page both are one."""

    @property
    def final_url(self) -> str: ...
    @property
    def content_type(self) -> str: ...
    @property
    def redirects(self) -> Sequence[str]: ...


async def extract_result(
    page: FetchedPage,
    *,
    url: str,
    request: ReadRequest,
    reader: str,
    fetcher: Fetcher,
    options: ExtractOptions | None = None,
    workers: ExtractionWorkers | None = None,
    seconds: float | None = None,
) -> ReadResult:
    """Extract `page` (what `reader` got for `url`) into a ReadResult, a heavy body by `workers` within `seconds`
    (default: the fetch budget); an error status raises the fetcher's HttpStatusError unless the page turns out to
    be a bot wall."""
    failed = page.status >= 300
    status_error = fetcher.status_error(url, page.status, page.headers) if failed else None
    content_type = page.content_type or None
    try:
        if workers is not None:
            time_left = fetcher.budgets.total_seconds if seconds is None else seconds
            extracted = await workers.extract(
                page.body, content_type=content_type, url=page.final_url, format=request.format, options=options,
                seconds=time_left,
            )  # fmt: skip
        else:
            extracted = await asyncio.to_thread(
                extract, page.body, content_type=content_type, url=page.final_url, format=request.format,
                options=options,
            )  # fmt: skip
    except WebreachError as exc:
        converted = as_fetch_error(exc, page.final_url)
        if status_error is not None and converted.code not in WALL_CODES:
            raise status_error from None
        raise converted from None
    if status_error is not None:
        raise status_error
    return ReadResult(url, page.final_url, page.status, extracted, reader, tuple(page.redirects))


class DirectReader:
    """Fetch through the guard, step through interstitial pages, extract."""

    name = "direct"

    def __init__(
        self,
        fetcher: Fetcher,
        interstitials: Interstitials | None = None,
        options: ExtractOptions | None = None,
        workers: ExtractionWorkers | None = None,
    ) -> None:
        self.fetcher = fetcher
        self.interstitials = interstitials if interstitials is not None else Interstitials(fetcher)
        self.options = options
        self.workers = workers

    async def read(self, url: str, request: ReadRequest, *, seconds: float | None = None) -> ReadResult:
        loop = asyncio.get_running_loop()
        started = loop.time()  # the fetcher's deadlines run on the loop's clock too
        budgets = self.fetcher.budgets
        total = budgets.total_seconds if seconds is None else min(budgets.total_seconds, seconds)
        if total < budgets.total_seconds:  # what the reader chain has left is less than a fetch's own budget
            budgets = dataclasses.replace(
                budgets, total_seconds=total, connect_seconds=min(budgets.connect_seconds, total),
                read_seconds=min(budgets.read_seconds, total),
            )  # fmt: skip
        fetched = await self.fetcher.fetch(url, raise_for_status=False, budgets=budgets)
        if fetched.status < 300:
            try:
                async with asyncio.timeout(max(0.0, total - (loop.time() - started))):
                    fetched = await self.interstitials.follow(fetched)
            except TimeoutError:
                raise FetchTimeoutError(
                    f"Reading {url} did not finish within its {total:g} s deadline.", url=url
                ) from None
        time_left = total - (loop.time() - started)
        return await extract_result(
            fetched, url=url, request=request, reader=self.name, fetcher=self.fetcher, options=self.options,
            workers=self.workers, seconds=time_left,
        )  # fmt: skip


class RenderedPage(FetchedPage, Protocol):
    """What the browser reader returns (webreach.read.readers.browser.BrowserPage has it)."""

    @property
    def redirects(self) -> tuple[str, ...]: ...


class Renderer(Protocol):
    """The browser reader's shape: render a URL (every request through the guarded fetcher)."""

    async def read(self, url: str, seconds: float | None = None) -> RenderedPage: ...

    async def aclose(self) -> None: ...


class RenderedReader:
    """The browser as a Reader: render the page, then extract the rendered DOM like any other page."""

    name = "browser"

    def __init__(
        self,
        renderer: Renderer,
        fetcher: Fetcher,
        options: ExtractOptions | None = None,
        workers: ExtractionWorkers | None = None,
    ) -> None:
        self.renderer = renderer
        self.fetcher = fetcher
        self.options = options
        self.workers = workers

    async def read(self, url: str, request: ReadRequest, *, seconds: float | None = None) -> ReadResult:
        loop = asyncio.get_running_loop()
        started = loop.time()
        page = await self.renderer.read(url, seconds)
        time_left = None if seconds is None else seconds - (loop.time() - started)
        try:
            return await extract_result(
                page, url=url, request=request, reader=self.name, fetcher=self.fetcher, options=self.options,
                workers=self.workers, seconds=time_left,
            )  # fmt: skip
        except (NeedsBrowserError, ExtractionError) as exc:
            # the scripts already ran: "use the browser" would send the caller in a circle
            raise RenderedEmptyError(
                f"The browser rendered {url} and the page still holds no readable text ({exc.message})", url=url
            ) from exc

    async def aclose(self) -> None:
        await self.renderer.aclose()
