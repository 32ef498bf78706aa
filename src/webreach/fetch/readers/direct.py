"""The direct reader (guarded fetch, interstitials, extraction) and the adapter that makes the browser a Reader.

Both end in `extract_result`: the body goes to the extractor (in a worker thread, so a slow PDF or a huge page
does not stall other reads on the event loop). For an error status (anything from 300 up that was not followed)
the body is still extracted, only to find bot walls: a 403 or 503 challenge page becomes PageBlockedError
(captcha or blocked), which tells the agent more than "HTTP 403"; any other error page is an HttpStatusError.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Protocol

from webreach.errors import HttpStatusError, WebreachError
from webreach.fetch.extract import ExtractOptions, extract
from webreach.fetch.fetcher import Fetcher
from webreach.fetch.interstitials import Interstitials
from webreach.fetch.readers import ReadResult, as_fetch_error
from webreach.models import ReadFormat, ReadRequest

WALL_CODES = frozenset({"captcha", "blocked"})


async def extract_result(
    body: bytes,
    *,
    content_type: str,
    status: int,
    url: str,
    final_url: str,
    format: ReadFormat,
    reader: str,
    status_error: HttpStatusError | None,
    redirects: Sequence[str] = (),
    options: ExtractOptions | None = None,
) -> ReadResult:
    """Extract `body` into a ReadResult; `status_error` is raised for error pages that are not bot walls."""
    try:
        extracted = await asyncio.to_thread(
            extract, body, content_type=content_type or None, url=final_url, format=format, options=options
        )
    except WebreachError as exc:
        converted = as_fetch_error(exc, final_url)
        if status_error is not None and converted.error_code not in WALL_CODES:
            raise status_error from None
        raise converted from None
    if status_error is not None:
        raise status_error
    return ReadResult(url, final_url, status, extracted, reader, tuple(redirects))


class DirectReader:
    """Fetch through the guard, step through interstitial pages, extract."""

    name = "direct"

    def __init__(
        self, fetcher: Fetcher, interstitials: Interstitials | None = None, options: ExtractOptions | None = None
    ) -> None:
        self.fetcher = fetcher
        self.interstitials = interstitials if interstitials is not None else Interstitials(fetcher)
        self.options = options

    async def read(self, url: str, request: ReadRequest) -> ReadResult:
        fetched = await self.fetcher.fetch(url, raise_for_status=False)
        if fetched.status < 300:
            fetched = await self.interstitials.follow(fetched)
        failed = fetched.status >= 300
        return await extract_result(
            fetched.body,
            content_type=fetched.content_type,
            status=fetched.status,
            url=url,
            final_url=fetched.final_url,
            format=request.format,
            reader=self.name,
            status_error=self.fetcher.status_error(url, fetched.status, fetched.headers) if failed else None,
            redirects=fetched.redirects,
            options=self.options,
        )


class RenderedPage(Protocol):
    """What the browser reader returns (webreach.fetch.readers.browser.BrowserPage has it)."""

    @property
    def final_url(self) -> str: ...
    @property
    def status(self) -> int: ...
    @property
    def headers(self) -> Mapping[str, str]: ...
    @property
    def body(self) -> bytes: ...
    @property
    def content_type(self) -> str: ...
    @property
    def redirects(self) -> tuple[str, ...]: ...


class Renderer(Protocol):
    """The browser reader's shape: render a URL (every request through the guarded fetcher)."""

    async def read(self, url: str) -> RenderedPage: ...

    async def aclose(self) -> None: ...


class RenderedReader:
    """The browser as a Reader: render the page, then extract the rendered DOM like any other page."""

    name = "browser"

    def __init__(self, renderer: Renderer, fetcher: Fetcher, options: ExtractOptions | None = None) -> None:
        self.renderer = renderer
        self.fetcher = fetcher
        self.options = options

    async def read(self, url: str, request: ReadRequest) -> ReadResult:
        page = await self.renderer.read(url)
        failed = page.status >= 300
        return await extract_result(
            page.body,
            content_type=page.content_type,
            status=page.status,
            url=url,
            final_url=page.final_url,
            format=request.format,
            reader=self.name,
            status_error=self.fetcher.status_error(url, page.status, page.headers) if failed else None,
            redirects=page.redirects,
            options=self.options,
        )

    async def aclose(self) -> None:
        await self.renderer.aclose()
