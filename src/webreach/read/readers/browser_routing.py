"""The browser reader's interception: every request a page makes is served through the guarded fetcher.

Chromium never resolves or connects by itself: `Interceptor.handle` answers each routed request by calling the
injected fetcher (every URL checked by the SSRF guard, connections pinned to approved addresses) and fulfilling
the request with what came back. Redirects are followed here, one hop per fetch with `follow_redirects=False`,
because Playwright does not route the follow-up request of a fulfilled 3xx: handing Chromium a 3xx would let the
next hop go to the network unchecked. A redirected top-level navigation is not fulfilled at the old URL either:
it is aborted and the reader navigates to the final URL, whose response is already here, so the page's own URL
(and every relative link in it) is the real one.

A refusal (UrlNotAllowedError) aborts that request as blocked-by-client and is recorded with the rule; other
fetch failures abort it as failed; images, media and fonts are skipped unless asked for; a page gets a budget of
requests and bytes. When the refused or failed request is the page's own top-level navigation, the read fails
with that error (`Interceptor.raise_failure`), since what is left in the window is Chromium's error page.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol
from urllib.parse import urlsplit

from webreach.errors import (
    FetchError,
    FetchTimeoutError,
    FetchUnavailableError,
    TooManyRedirectsError,
    UrlNotAllowedError,
)
from webreach.net.fetcher import redirect_target

if TYPE_CHECKING:
    from playwright.async_api import Request, Route

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
PASSED_METHODS = frozenset({"GET", "HEAD", "POST"})
NETWORK_SCHEMES = frozenset({"http", "https"})
HEAVY_RESOURCE_TYPES = frozenset({"image", "media", "font"})
# what a page's request may carry to the site; cookies and credentials never leave through the fetcher
FORWARDED_HEADERS = frozenset({"accept", "accept-language", "content-type", "referer", "user-agent"})
# the fetcher hands back decoded bodies, and Chromium frames the fulfilled response itself
DROPPED_RESPONSE_HEADERS = frozenset(
    {"connection", "content-encoding", "content-length", "keep-alive", "location", "transfer-encoding"}
)
HTML_TYPES = ("text/html", "application/xhtml+xml")

BlockReason = Literal["refused", "skipped", "failed"]


class FetchedResponse(Protocol):
    """What the browser reader needs from the fetcher's answer (webreach.net.fetcher.Fetched has it)."""

    @property
    def status(self) -> int: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    @property
    def body(self) -> bytes: ...


class PageFetcher(Protocol):
    """The guarded fetcher (webreach.net.fetcher.Fetcher): checks every URL, raises UrlNotAllowedError.

    The reader calls it with follow_redirects=False (it follows hops itself) and raise_for_status=False (a 404
    of a script's fetch() is the script's business; the page's own status is in BrowserPage.status).
    """

    async def fetch(
        self,
        url: str,
        *,
        method: str = "GET",
        headers: dict[str, str] | None = None,
        body: bytes | None = None,
        follow_redirects: bool = True,
        raise_for_status: bool = True,
    ) -> FetchedResponse: ...


@dataclass(frozen=True, slots=True)
class BlockedRequest:
    """A request of the page that did not go out: refused by the guard, skipped by budget or type, or failed.

    `rule` is the guard's rule for refusals, the resource type or budget for skips, the error code for failures;
    `via` is the URL the page asked for when the blocked one is a later redirect hop of it.
    """

    url: str
    reason: BlockReason
    rule: str
    resource_type: str
    via: str | None = None


@dataclass(frozen=True, slots=True)
class InterceptLimits:
    """Per-page bounds: requests (redirect hops count), bytes of bodies, hops per request, skipped types."""

    max_requests: int = 150
    max_bytes: int = 20 * 1024 * 1024
    max_redirects: int = 10
    skip_resource_types: frozenset[str] = HEAVY_RESOURCE_TYPES


@dataclass(frozen=True, slots=True)
class Document:
    """The response that became (or would have become) the page's top-level document."""

    url: str
    status: int
    headers: Mapping[str, str]
    body: bytes

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    @property
    def is_html(self) -> bool:
        return self.content_type.split(";")[0].strip().lower() in HTML_TYPES or not self.content_type


class _Skip(Exception):
    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        self.rule = rule


def lower_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Header names lower-cased, whatever mapping the fetcher returns."""
    return {name.lower(): value for name, value in headers.items()}


def url_key(url: str) -> tuple[str, str, int | None, str]:
    """What two spellings of one URL share (Chromium re-serializes what it was asked to load)."""
    parts = urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, parts.hostname or "", parts.port or default, f"{parts.path or '/'}?{parts.query}"


@dataclass
class Interceptor:
    """One page's routing state; `handle` is the route handler for every request of the page's context."""

    fetcher: PageFetcher
    limits: InterceptLimits
    is_main_frame: Callable[[Request], bool]
    deadline: float | None = None  # event-loop time by which every fetch for this page must be done
    browser_errors: tuple[type[Exception], ...] = ()  # the driver's own (page gone): left to the caller
    blocked: list[BlockedRequest] = field(default_factory=list)
    redirects: list[str] = field(default_factory=list)
    requests: int = 0
    bytes_fetched: int = 0
    document: Document | None = None
    raw: Document | None = None  # a top-level document that is not HTML, returned as fetched
    failure: FetchError | None = None
    next_navigation: str | None = None
    news: asyncio.Event = field(default_factory=asyncio.Event)  # set when the top-level navigation needs the reader
    _prefetched: Document | None = None

    async def handle(self, route: Route, request: Request) -> None:
        """Serve one request through the fetcher, or abort it and record why."""
        main = self.is_main_frame(request)
        try:
            await self._serve(route, request, main)
        except self.browser_errors:
            raise
        except UrlNotAllowedError as exc:
            self._block(request, main, exc.url or request.url, "refused", exc.rule, exc)
            await route.abort("blockedbyclient")
        except _Skip as exc:
            self._block(request, main, request.url, "skipped", exc.rule, None)
            await route.abort("blockedbyclient")
        except FetchError as exc:
            self._block(request, main, exc.url or request.url, "failed", exc.code, exc)
            await route.abort("timedout" if isinstance(exc, FetchTimeoutError) else "failed")
        except Exception as exc:  # fail closed: a request this code could not serve is aborted, never let through
            error = FetchUnavailableError(f"Serving {request.url} to the browser failed: {exc!r}", url=request.url)
            self._block(request, main, request.url, "failed", type(exc).__name__, error)
            await route.abort("failed")

    def raise_failure(self) -> None:
        """Raise the error that ended the page's own top-level navigation, if one did."""
        if self.failure is not None:
            raise self.failure

    def take_navigation(self) -> str | None:
        """The URL the page must be sent to next (a redirected top-level navigation), once."""
        target, self.next_navigation = self.next_navigation, None
        if self.failure is None and self.raw is None:
            self.news.clear()
        return target

    async def _serve(self, route: Route, request: Request, main: bool) -> None:
        scheme = urlsplit(request.url).scheme
        if scheme not in NETWORK_SCHEMES:
            raise UrlNotAllowedError(f"{scheme}: requests are not served", rule="scheme", url=request.url)
        if request.method not in PASSED_METHODS:
            raise _Skip(f"method_{request.method.lower()}")
        if not main and request.resource_type in self.limits.skip_resource_types:
            raise _Skip(request.resource_type)
        if main and self._prefetched is not None:
            prefetched, self._prefetched = self._prefetched, None
            if url_key(prefetched.url) == url_key(request.url):
                await self._serve_document(route, prefetched, hops=[])
                return
        forwarded = {k: v for k, v in request.headers.items() if k.lower() in FORWARDED_HEADERS}
        hops, document = await self._follow(request.url, request.method, forwarded, request.post_data_buffer, main)
        if main:
            await self._serve_document(route, document, hops)
        else:
            await route.fulfill(status=document.status, headers=_passed(document.headers), body=document.body)

    async def _serve_document(self, route: Route, document: Document, hops: list[str]) -> None:
        self.redirects.extend(hops)
        if not document.is_html:  # returned as fetched, for the extractor; Chromium would only download it
            self.raw = document
            self.news.set()
            await route.abort("aborted")
        elif hops:  # send the page itself to the final URL; that navigation is answered from _prefetched
            self._prefetched, self.next_navigation = document, document.url
            self.news.set()
            await route.abort("aborted")
        else:
            self.document = document
            await route.fulfill(status=document.status, headers=_passed(document.headers), body=document.body)

    async def _follow(
        self, url: str, method: str, headers: dict[str, str], body: bytes | None, main: bool
    ) -> tuple[list[str], Document]:
        """Fetch hop by hop (each hop checked by the fetcher's guard) until a response that is not a redirect."""
        hops: list[str] = []
        first, seen = url, {url}
        for _ in range(self.limits.max_redirects + 1):
            document = await self._fetch_one(url, method, headers, body, main)
            location = document.headers.get("location")
            if document.status not in REDIRECT_STATUSES or not location:
                return hops, document
            url = str(redirect_target(url, location, first))
            if url in seen:
                raise TooManyRedirectsError(f"Redirect loop back to {url}.", url=url)
            seen.add(url)
            hops.append(url)
            if (document.status == 303 and method != "HEAD") or (document.status in (301, 302) and method == "POST"):
                method, body = "GET", None
                headers.pop("content-type", None)
        raise TooManyRedirectsError(f"More than {self.limits.max_redirects} redirects.", url=url)

    async def _fetch_one(
        self, url: str, method: str, headers: dict[str, str], body: bytes | None, main: bool
    ) -> Document:
        if not main and self.requests >= self.limits.max_requests:
            raise _Skip("request_budget")
        if not main and self.bytes_fetched >= self.limits.max_bytes:
            raise _Skip("byte_budget")
        self.requests += 1
        try:
            async with asyncio.timeout_at(self.deadline):
                fetched = await self.fetcher.fetch(
                    url, method=method, headers=dict(headers), body=body, follow_redirects=False, raise_for_status=False
                )
        except TimeoutError as exc:
            raise FetchTimeoutError(f"Fetching {url} for the page timed out.", url=url) from exc
        self.bytes_fetched += len(fetched.body)
        return Document(url, fetched.status, lower_headers(fetched.headers), fetched.body)

    def _block(
        self, request: Request, main: bool, url: str, reason: BlockReason, rule: str, error: FetchError | None
    ) -> None:
        via = request.url if url != request.url else None
        self.blocked.append(BlockedRequest(url, reason, rule, request.resource_type, via))
        if main and error is not None:
            self.failure = error
            self.news.set()


def _passed(headers: Mapping[str, str]) -> dict[str, str]:
    return {name: value for name, value in headers.items() if name not in DROPPED_RESPONSE_HEADERS}
