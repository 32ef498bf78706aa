"""The browser reader: pages whose content only exists after JavaScript runs, rendered in Debian's Chromium.

    reader = BrowserReader(fetcher)            # fetcher: the guarded Fetcher (PageFetcher protocol)
    page = await reader.read("https://example.com/app")
    page.body, page.content_type, page.final_url      # the rendered DOM as UTF-8 HTML, for the extractor
    page.refused                                       # what the guard refused (URL, rule), for the meta
    await reader.aclose()

As a Reader: readers.direct.RenderedReader(BrowserReader(fetcher), fetcher) renders, then extracts.

Chromium is driven through Playwright (the `browser` extra) with `executable_path`, never a downloaded browser.
One browser per reader, started on first use and reused; every read gets a fresh context (no cookies, storage or
cache carried between reads), closed afterwards. The total deadline covers the whole read.

Chromium never resolves or connects by itself: every request of the page is intercepted and served through the
injected fetcher (browser_routing.py), so the SSRF guard sees every URL, redirect hops included. Should anything
slip past interception, the launch flags leave Chromium no way out: every host name resolves to nothing, all
traffic is sent to a proxy on a loopback port that is bound but never listens (loopback included, which Chromium
would otherwise bypass), WebRTC may not send UDP outside that proxy, QUIC is off; service workers are blocked,
WebSockets are closed at once and downloads refused. The tests check these doors against loopback listeners,
with interception off for the name and proxy doors.

Refused requests (URL and rule) are in `BrowserPage.blocked`, for the page's meta. A refused or failed top-level
navigation, the first one or one started by a script, fails the read with that error (UrlNotAllowedError for a
refusal). Without Chromium or Playwright, `read` raises BrowserUnavailableError, which reader="auto" skips.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType, TracebackType
from typing import TYPE_CHECKING

from webreach.errors import (
    BrowserUnavailableError,
    FetchTimeoutError,
    FetchUnavailableError,
    TooManyRedirectsError,
)
from webreach.net.guard import parse_url
from webreach.read.readers.browser_routing import (
    BlockedRequest,
    Document,
    InterceptLimits,
    Interceptor,
    PageFetcher,
)

try:
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import TimeoutError as PlaywrightTimeoutError
    from playwright.async_api import async_playwright
except ImportError:  # the `browser` extra is not installed: read() says so with BrowserUnavailableError
    PlaywrightError = PlaywrightTimeoutError = OSError  # type: ignore[assignment]  # nothing raises them then
    async_playwright = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Page, Playwright, Request, Route, WebSocketRoute

    from webreach.net.fetcher import Fetcher
    from webreach.read.readers.direct import Renderer

    def _fetcher_fits(fetcher: Fetcher) -> PageFetcher:  # mypy's proof that the real Fetcher can be injected
        return fetcher

    def _renderer_fits(reader: BrowserReader) -> Renderer:  # ... and that RenderedReader can drive this reader
        return reader


DEFAULT_EXECUTABLE = "/usr/bin/chromium"
BASE_FLAGS = (
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--dns-prefetch-disable",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--proxy-bypass-list=<-loopback>",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
)
CLOSE_TIMEOUT = 5.0
_META_CHARSET = re.compile(r"""(<meta\b[^>]*?charset\s*=\s*["']?)[\w.:-]+""", re.IGNORECASE)


@dataclass(frozen=True)
class BrowserPage:
    """A page as the browser left it: the rendered DOM as UTF-8 HTML (or the body as fetched, when not HTML)."""

    url: str
    final_url: str
    status: int
    headers: Mapping[str, str]
    body: bytes
    content_type: str
    redirects: tuple[str, ...]
    rendered: bool
    blocked: tuple[BlockedRequest, ...]
    requests: int
    bytes_fetched: int

    @property
    def refused(self) -> tuple[BlockedRequest, ...]:
        """The requests the SSRF guard refused (URL and rule), for the page's meta."""
        return tuple(b for b in self.blocked if b.reason == "refused")


def find_chromium(executable_path: str | None = None) -> str | None:
    """The Chromium to drive: the given path, else /usr/bin/chromium, else `chromium` on PATH; None if absent."""
    candidates = [executable_path] if executable_path else [DEFAULT_EXECUTABLE, shutil.which("chromium")]
    return next((c for c in candidates if c and os.path.isfile(c) and os.access(c, os.X_OK)), None)


class BrowserReader:
    """Reads pages in headless Chromium, every request served through the guarded fetcher."""

    def __init__(
        self,
        fetcher: PageFetcher,
        *,
        executable_path: str | None = None,
        timeout: float = 30.0,
        idle_timeout: float = 2.0,
        load_timeout: float = 15.0,
        limits: InterceptLimits | None = None,
        user_agent: str | None = None,
        max_pages: int = 2,
        launch_timeout: float = 20.0,
    ) -> None:
        self.fetcher = fetcher
        self.executable_path = executable_path
        self.timeout = timeout
        self.idle_timeout = idle_timeout
        self.load_timeout = load_timeout
        self.limits = limits if limits is not None else InterceptLimits()
        self.user_agent = user_agent
        self.launch_timeout = launch_timeout
        self._pages = asyncio.Semaphore(max_pages)
        self._lock = asyncio.Lock()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._sinkhole: socket.socket | None = None

    def is_available(self) -> bool:
        """Whether Playwright and Chromium are installed (without starting anything)."""
        return async_playwright is not None and find_chromium(self.executable_path) is not None

    async def read(self, url: str, seconds: float | None = None) -> BrowserPage:
        """Render the page at `url` within `seconds` (at most the reader's timeout); typed FetchError subclasses on
        failure (UrlNotAllowedError when refused)."""
        loop = asyncio.get_running_loop()
        ends = loop.time() + (self.timeout if seconds is None else min(self.timeout, seconds))
        parse_url(url)  # file:, chrome: and other schemes never reach Chromium, which would load them itself
        browser = await self._ensure_browser()
        async with self._pages:
            timeout = ends - loop.time()  # starting Chromium and waiting for a free page count too
            try:
                context = await self._new_context(browser)
            except PlaywrightError as exc:
                raise FetchUnavailableError(f"The browser failed to open a page: {_first_line(exc)}", url=url) from exc
            tasks: set[asyncio.Task[None]] = set()
            try:
                async with asyncio.timeout(timeout):
                    return await self._read_in(context, tasks, url, timeout)
            except TimeoutError as exc:
                raise FetchTimeoutError(f"Reading {url} in the browser took over {timeout:.1f} s.", url=url) from exc
            except PlaywrightError as exc:
                raise FetchUnavailableError(f"The browser failed on {url}: {_first_line(exc)}", url=url) from exc
            finally:
                await _close_context(context, tasks)

    async def aclose(self) -> None:
        """Close the browser and Playwright; the next read starts them again."""
        async with self._lock:
            browser, self._browser = self._browser, None
            playwright, self._playwright = self._playwright, None
            sinkhole, self._sinkhole = self._sinkhole, None
            with contextlib.suppress(PlaywrightError, TimeoutError):
                async with asyncio.timeout(CLOSE_TIMEOUT):
                    if browser is not None:
                        await browser.close()
                    if playwright is not None:
                        await playwright.stop()
            if sinkhole is not None:
                sinkhole.close()

    async def __aenter__(self) -> BrowserReader:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    # -- one read ----------------------------------------------------------------------------------------------

    async def _read_in(
        self, context: BrowserContext, tasks: set[asyncio.Task[None]], url: str, timeout: float
    ) -> BrowserPage:
        page = await context.new_page()
        deadline = asyncio.get_running_loop().time() + timeout
        interceptor = Interceptor(
            self.fetcher, self.limits, _main_frame_check(page), deadline=deadline, browser_errors=(PlaywrightError,)
        )

        async def on_route(route: Route, request: Request) -> None:
            task = asyncio.current_task()
            if task is not None:
                tasks.add(task)
            try:
                await interceptor.handle(route, request)
            except PlaywrightError:
                pass  # the page or context closed while the fetcher worked: nothing left to answer
            finally:
                tasks.discard(task)

        async def on_websocket(websocket: WebSocketRoute) -> None:
            interceptor.blocked.append(BlockedRequest(websocket.url, "refused", "websocket", "websocket"))
            with contextlib.suppress(PlaywrightError):
                await websocket.close()

        await context.route("**/*", on_route)
        await context.route_web_socket("**/*", on_websocket)
        html = await self._render(page, interceptor, url)
        return _result(url, page.url, interceptor, html)

    async def _render(self, page: Page, interceptor: Interceptor, url: str) -> str | None:
        """Navigate (again, after each top-level redirect) until the page settles; its DOM, or None if not HTML."""
        target: str | None = url
        for _ in range(self.limits.max_redirects + 2):
            if target is not None:
                await _goto(page, interceptor, target)
            await self._settle(page, interceptor)
            if interceptor.raw is not None:
                return None
            interceptor.raise_failure()
            target = interceptor.take_navigation()
            if target is None:
                with contextlib.suppress(PlaywrightError):  # a script started another navigation: settle again
                    return await page.content()
        raise TooManyRedirectsError(f"{url} kept redirecting or navigating in the browser.", url=url)

    async def _settle(self, page: Page, interceptor: Interceptor) -> None:
        """Wait for the load event and a quiet network (each bounded), or until the interceptor has news.

        News (a redirected, refused or non-HTML top-level navigation) ends the wait at once: Chromium never fires
        load for a document whose script started a navigation that was then aborted.
        """

        async def quiet() -> None:
            with contextlib.suppress(PlaywrightTimeoutError):  # a page that never finishes is read as it is
                await page.wait_for_load_state("load", timeout=self.load_timeout * 1000)
            with contextlib.suppress(PlaywrightTimeoutError):
                await page.wait_for_load_state("networkidle", timeout=self.idle_timeout * 1000)

        waiters = [asyncio.ensure_future(quiet()), asyncio.ensure_future(interceptor.news.wait())]
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()
            await asyncio.gather(*waiters, return_exceptions=True)
        error = None if waiters[0].cancelled() else waiters[0].exception()
        if error is not None:
            raise error  # the page or the browser went away

    # -- the browser -------------------------------------------------------------------------------------------

    async def _ensure_browser(self) -> Browser:
        async with self._lock:
            if self._browser is not None and self._browser.is_connected():
                return self._browser
            self._browser = await self._launch()
            return self._browser

    async def _launch(self) -> Browser:
        executable = find_chromium(self.executable_path)
        if async_playwright is None:
            raise BrowserUnavailableError("The browser reader needs Playwright, which is not installed.")
        if executable is None:
            where = self.executable_path or f"{DEFAULT_EXECUTABLE} or on PATH"
            raise BrowserUnavailableError(f"The browser reader needs Chromium, which is not installed ({where}).")
        if self._sinkhole is None:
            self._sinkhole = _sinkhole()
        if self._playwright is None:
            self._playwright = await async_playwright().start()
        try:
            return await self._playwright.chromium.launch(
                executable_path=executable,
                headless=True,
                args=chromium_flags(self._sinkhole.getsockname()[1]),
                timeout=self.launch_timeout * 1000,
            )
        except PlaywrightError as exc:
            raise BrowserUnavailableError(f"Chromium at {executable} did not start: {_first_line(exc)}") from exc

    async def _new_context(self, browser: Browser) -> BrowserContext:
        major = browser.version.split(".")[0]
        user_agent = self.user_agent or (
            f"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{major}.0.0.0 Safari/537.36"
        )
        context = await browser.new_context(service_workers="block", accept_downloads=False, user_agent=user_agent)
        context.set_default_timeout(self.timeout * 1000)
        return context


def chromium_flags(sinkhole_port: int) -> list[str]:
    """Chromium's flags: quiet, and unable to reach anything, with all traffic sent to a port nobody listens on."""
    return [*BASE_FLAGS, f"--proxy-server=http://127.0.0.1:{sinkhole_port}"]


def _sinkhole() -> socket.socket:
    """A loopback port that is bound but never listens: connecting to it is refused at once, and stays so."""
    hole = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    hole.bind(("127.0.0.1", 0))
    return hole


def _main_frame_check(page: Page) -> Callable[[Request], bool]:
    def is_main_frame(request: Request) -> bool:
        try:
            return request.is_navigation_request() and request.frame == page.main_frame
        except PlaywrightError:  # requests of service workers have no frame
            return False

    return is_main_frame


async def _goto(page: Page, interceptor: Interceptor, target: str) -> None:
    try:
        await page.goto(target, wait_until="commit")  # then _settle, which also watches the interceptor
    except PlaywrightTimeoutError as exc:
        interceptor.raise_failure()
        raise FetchTimeoutError(f"The browser did not finish loading {target}.", url=target) from exc
    except PlaywrightError as exc:
        interceptor.raise_failure()  # refused or failed in the fetcher: that error, not Chromium's
        if interceptor.raw is None and interceptor.next_navigation is None:
            raise FetchUnavailableError(f"The browser could not load {target}: {_first_line(exc)}", url=target) from exc


def _result(url: str, final_url: str, interceptor: Interceptor, html: str | None) -> BrowserPage:
    document = interceptor.raw or interceptor.document or Document(final_url, 200, {}, b"")
    if html is None:
        body, content_type = document.body, document.content_type
    else:  # the DOM is serialized as UTF-8 whatever the page declared; its meta must not say otherwise
        body, content_type = _META_CHARSET.sub(r"\g<1>utf-8", html).encode(), "text/html; charset=utf-8"
    return BrowserPage(
        url=url,
        final_url=document.url if html is None else final_url,
        status=document.status,
        headers=MappingProxyType(dict(document.headers)),
        body=body,
        content_type=content_type,
        redirects=tuple(interceptor.redirects),
        rendered=html is not None,
        blocked=tuple(interceptor.blocked),
        requests=interceptor.requests,
        bytes_fetched=interceptor.bytes_fetched,
    )


async def _close_context(context: BrowserContext, tasks: set[asyncio.Task[None]]) -> None:
    """Stop the route handlers still waiting on the fetcher, then close the context, bounded."""
    pending = [task for task in tasks if task is not asyncio.current_task()]
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    with contextlib.suppress(PlaywrightError, TimeoutError):
        async with asyncio.timeout(CLOSE_TIMEOUT):
            await context.close()


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
