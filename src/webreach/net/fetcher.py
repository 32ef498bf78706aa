"""Fetcher: one guarded HTTP read with redirects followed by webreach itself and every budget enforced.

- Redirects (301, 302, 303, 307, 308) are followed here, at most `max_redirects` (10) hops; every hop is checked
  by the guard again (scheme, userinfo, DNS, addresses) and sent over a connection pinned to what it approved.
  A redirect body is never read or decoded, only closed. A Location that resolves to a URL already visited is a
  loop (TooManyRedirectsError at once, not after ten hops). A redirect status without Location is an
  HttpStatusError (its status), since there is nothing to follow and no content to read.
- Crossing origin (scheme, host or port) drops Authorization, Cookie and Proxy-Authorization for the rest of
  the chain; no cookie jar exists at all, so nothing set by one hop is sent to another.
- 303 (and 301/302 after a POST) continue as GET without a body; 307/308 keep method and body.
- Budgets (`Budgets`): one total deadline over everything (DNS, connects, every hop, every body byte), so a
  server that drips one byte per read timeout still ends (FetchTimeoutError); per-operation connect and read
  timeouts below it; the header count and size (h11's own 100 KiB cap on a response head comes first and is
  reported the same way); the declared Content-Length and the raw bytes read; the decoded bytes (decoding.py).
- Messages name URLs with their userinfo masked (guard.mask_userinfo): a user:password@ never reaches output.
- Errors are typed: refusals UrlNotAllowedError, DNS HostResolutionError, connect failures, resets, truncated
  bodies and protocol errors FetchUnavailableError, 4xx/5xx HttpStatusError (with Retry-After) unless the
  caller asks for the response (`raise_for_status=False`, which readers use to show challenge pages to block
  detection).
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import TracebackType

import h11
import httpcore
import httpx

from webreach.clock import Clock, SystemClock
from webreach.errors import (
    FetchTimeoutError,
    FetchUnavailableError,
    HttpStatusError,
    ResponseTooLargeError,
    TooManyRedirectsError,
    UrlNotAllowedError,
)
from webreach.net.address_policy import refusal
from webreach.net.decoding import ACCEPT_ENCODING, BodyFull, BoundedDecoder, content_codings
from webreach.net.guard import ApprovedTarget, Guard, mask_userinfo, parse_url
from webreach.net.proxy import ProxyUrl
from webreach.net.transport import TARGET_EXTENSION, ConnectObserver, GuardedTransport
from webreach.retry_after import retry_after_seconds

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
CREDENTIAL_HEADERS = frozenset({"authorization", "cookie", "proxy-authorization"})
# the client decides these, never the caller: framing, the host the pin is for, and what we can decode
_OWN_HEADERS = frozenset({"host", "accept-encoding", "content-length", "transfer-encoding", "connection", "te"})
DEFAULT_USER_AGENT = "Mozilla/5.0 (compatible; webreach/0.1; +https://github.com/webreach/webreach)"
DEFAULT_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5"


@dataclass(frozen=True)
class Budgets:
    """What one fetch may cost; every limit ends in a typed error, never a hang or an unbounded buffer."""

    total_seconds: float = 20.0
    connect_seconds: float = 5.0
    read_seconds: float = 10.0
    max_raw_bytes: int = 10 * 1024 * 1024
    max_decoded_bytes: int = 20 * 1024 * 1024
    max_redirects: int = 10
    max_headers: int = 200
    max_header_bytes: int = 64 * 1024
    max_encodings: int = 2

    def timeouts(self) -> dict[str, float]:
        return {"connect": self.connect_seconds, "read": self.read_seconds, "write": self.read_seconds,
                "pool": self.connect_seconds}  # fmt: skip


@dataclass(frozen=True)
class Fetched:
    """One fetched response: the URL asked for, where redirects ended, and the decoded body."""

    url: str
    final_url: str
    status: int
    headers: httpx.Headers
    body: bytes
    content_type: str
    redirects: list[str] = field(default_factory=list)
    truncated: bool = False

    @property
    def media_type(self) -> str:
        """The Content-Type without parameters, lower-cased ("" when the server sent none)."""
        return self.content_type.split(";", 1)[0].strip().lower()


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port


def redirect_target(current: str | httpx.URL, location: str, first: str) -> httpx.URL:
    """The URL a redirect's Location names, resolved against `current`; UrlNotAllowedError (rule invalid_url)
    when no URL parser takes it (a malformed IPv6 host, an invalid port). `first` names the chain's start."""
    try:
        return httpx.URL(current).join(location.strip())
    except (httpx.InvalidURL, UnicodeError, ValueError) as exc:
        location = mask_userinfo(location)
        message = f"{mask_userinfo(first)} redirected to {location!r}, which is not a valid URL ({exc})."
        raise refusal(message, rule="invalid_url", url=location) from None


def _hop_refused(first: str, exc: UrlNotAllowedError) -> UrlNotAllowedError:
    """A refusal at a redirect hop, saying so (the agent asked for `first`, not for the refused URL)."""
    message = f"{mask_userinfo(first)} redirected to a refused URL. {exc.message}"
    return refusal(message, rule=exc.rule, url=exc.url, address=exc.address)


def _head_too_large(exc: BaseException) -> bool:
    """Whether h11 refused the response head as too large (its 431 hint), anywhere in the cause chain."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, h11.RemoteProtocolError) and seen.error_status_hint == 431:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


class Fetcher:
    """Guarded GETs (and other methods) with manual redirects and budgets; owns its pinned transport."""

    def __init__(
        self,
        guard: Guard,
        *,
        budgets: Budgets | None = None,
        clock: Clock | None = None,
        user_agent: str = DEFAULT_USER_AGENT,
        network_backend: httpcore.AsyncNetworkBackend | None = None,
        connect_observer: ConnectObserver | None = None,
        ssl_context: ssl.SSLContext | None = None,
        proxy: ProxyUrl | None = None,
    ) -> None:
        self.guard = guard
        self.budgets = budgets or Budgets()
        self.clock: Clock = clock or SystemClock()
        self.user_agent = user_agent
        self.transport = GuardedTransport(
            guard, network_backend=network_backend, connect_observer=connect_observer, ssl_context=ssl_context,
            proxy=proxy,
        )  # fmt: skip

    async def __aenter__(self) -> Fetcher:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.transport.aclose()

    async def fetch(
        self,
        url: str,
        *,
        method: str = "GET",
        headers: Mapping[str, str] | None = None,
        body: bytes | None = None,
        follow_redirects: bool = True,
        raise_for_status: bool = True,
        budgets: Budgets | None = None,
        truncate: bool = False,
    ) -> Fetched:
        """Fetch `url` within the budgets (`truncate`: keep the first max_decoded_bytes instead of refusing)."""
        limits = budgets or self.budgets
        hop = _Hop(url=str(url), method=method.upper(), headers=self._headers(headers), body=body)
        try:
            async with asyncio.timeout(limits.total_seconds):
                return await self._follow(hop, limits, follow_redirects, raise_for_status, truncate)
        except TimeoutError:
            shown = mask_userinfo(url)
            raise FetchTimeoutError(
                f"Reading {shown} did not finish within its {limits.total_seconds:g} s deadline.", url=shown
            ) from None

    def _headers(self, given: Mapping[str, str] | None) -> dict[str, str]:
        headers = {"user-agent": self.user_agent, "accept": DEFAULT_ACCEPT}
        for name, value in (given or {}).items():
            if name.lower() not in _OWN_HEADERS:
                headers[name.lower()] = value
        headers["accept-encoding"] = ACCEPT_ENCODING
        return headers

    async def _follow(
        self, hop: _Hop, limits: Budgets, follow: bool, raise_for_status: bool, truncate: bool
    ) -> Fetched:
        first, current = hop.url, hop.url
        shown = mask_userinfo(first)  # `first` as messages name it
        redirects: list[str] = []
        seen: set[str] = set()
        while True:
            try:
                target = await self.guard.check(current)
            except UrlNotAllowedError as exc:
                if not redirects:
                    raise
                raise _hop_refused(first, exc) from exc
            seen.add(str(target.url.copy_with(fragment=None)))
            response = await self._send(target, hop, limits, shown)
            try:
                self._check_head(response, limits, shown)
                status = response.status_code
                if follow and status in REDIRECT_STATUSES:
                    current = self._next_hop(response, target, hop, seen, len(redirects), limits, shown)
                    redirects.append(current)
                    if response.headers.get("content-length") == "0":
                        await response.aread()  # nothing to read, and the connection can then serve the next hop
                    continue
                if raise_for_status and status >= 400:
                    raise self.status_error(shown, status, response.headers)
                content_type = response.headers.get("content-type", "")
                data, cut = (b"", False)
                if status not in REDIRECT_STATUSES and hop.method != "HEAD":
                    data, cut = await self._read_body(response, limits, shown, content_type, truncate)
                return Fetched(
                    url=first, final_url=str(target.url), status=status, headers=response.headers, body=data,
                    content_type=content_type, redirects=redirects, truncated=cut,
                )  # fmt: skip
            finally:
                await response.aclose()  # a redirect's body is closed unread

    def _next_hop(
        self,
        response: httpx.Response,
        target: ApprovedTarget,
        hop: _Hop,
        seen: set[str],
        count: int,
        limits: Budgets,
        first: str,
    ) -> str:
        """The URL the redirect points to, with `hop` adjusted (method, body, credentials) for it.

        `first` is the URL the chain started from, as messages name it (userinfo masked).
        """
        status = response.status_code
        location = response.headers.get("location", "").strip()
        if not location:
            raise HttpStatusError(
                f"{mask_userinfo(target.url)} answered {status} (a redirect) without a Location header.",
                status=status,
                url=first,
            )
        next_url = redirect_target(target.url, location, first).copy_with(fragment=None)
        try:
            parsed = parse_url(next_url)  # the guard's form checks, before counting or resolving
        except UrlNotAllowedError as exc:
            raise _hop_refused(first, exc) from exc
        if str(parsed.url) in seen:
            raise TooManyRedirectsError(
                f"{first} redirects in a loop (back to {mask_userinfo(parsed.url)}).", url=first
            )
        if count >= limits.max_redirects:
            raise TooManyRedirectsError(f"{first} redirects more than {limits.max_redirects} times.", url=first)
        if _origin(parsed.url) != _origin(target.url):
            hop.headers = {k: v for k, v in hop.headers.items() if k not in CREDENTIAL_HEADERS}
        if (status == 303 and hop.method != "HEAD") or (status in (301, 302) and hop.method == "POST"):
            hop.method, hop.body = "GET", None
            hop.headers = {k: v for k, v in hop.headers.items() if k != "content-type"}
        return str(parsed.url)

    async def _send(self, target: ApprovedTarget, hop: _Hop, limits: Budgets, first: str) -> httpx.Response:
        extensions = {"timeout": limits.timeouts(), TARGET_EXTENSION: target}
        request = httpx.Request(hop.method, target.url, headers=hop.headers, content=hop.body, extensions=extensions)
        try:
            return await self.transport.handle_async_request(request)
        except httpx.TransportError as exc:
            raise self._transport_error(exc, first) from exc

    @staticmethod
    def _transport_error(exc: httpx.TransportError, url: str) -> Exception:
        url = mask_userinfo(url)
        if isinstance(exc, httpx.TimeoutException):
            return FetchTimeoutError(f"Reading {url} timed out ({type(exc).__name__}).", url=url)
        if _head_too_large(exc):
            return ResponseTooLargeError(f"The response head from {url} is too large.", url=url)
        what = "broke the HTTP protocol" if isinstance(exc, httpx.ProtocolError) else "could not be read"
        if isinstance(exc, httpx.ProxyError):  # the message names the proxy with its credentials masked
            what = "could not be read through the proxy"
        return FetchUnavailableError(f"{url} {what}: {exc}.", url=url)

    @staticmethod
    def _check_head(response: httpx.Response, limits: Budgets, url: str) -> None:
        raw = response.headers.raw
        size = sum(len(name) + len(value) + 4 for name, value in raw)
        if len(raw) > limits.max_headers or size > limits.max_header_bytes:
            raise ResponseTooLargeError(
                f"{url} sent {len(raw)} response headers ({size:,} bytes); the limits are "
                f"{limits.max_headers} headers and {limits.max_header_bytes:,} bytes.",
                url=url,
            )

    def status_error(self, url: str, status: int, headers: Mapping[str, str]) -> HttpStatusError:
        """The HttpStatusError for an error status (with Retry-After, in seconds from now, when the server sent it)."""
        reason = httpx.codes.get_reason_phrase(status)
        url = mask_userinfo(url)
        return HttpStatusError(
            f"{url} answered HTTP {status}{' ' + reason if reason else ''}.",
            status=status,
            url=url,
            retry_after=retry_after_seconds(headers, now=self.clock.now()),
        )

    async def _read_body(
        self, response: httpx.Response, limits: Budgets, url: str, content_type: str, truncate: bool
    ) -> tuple[bytes, bool]:
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limits.max_raw_bytes and not truncate:
            raise ResponseTooLargeError(
                f"{url} declares {int(declared):,} bytes, over the {limits.max_raw_bytes:,} byte budget.", url=url
            )
        codings = content_codings(
            response.headers.get("content-encoding"), max_codings=limits.max_encodings, content_type=content_type,
            url=url,
        )  # fmt: skip
        decoder = BoundedDecoder(codings, limit=limits.max_decoded_bytes, url=url, truncate=truncate)
        raw = 0
        try:
            async for chunk in response.aiter_raw():
                raw += len(chunk)
                if raw > limits.max_raw_bytes:
                    raise ResponseTooLargeError(
                        f"The body of {url} is over the {limits.max_raw_bytes:,} byte budget.", url=url
                    )
                decoder.feed(chunk)
            return decoder.finish(), False
        except BodyFull:
            return decoder.partial(), True
        except httpx.TransportError as exc:
            raise self._transport_error(exc, url) from exc


@dataclass
class _Hop:
    """What the next request of a chain sends (redirects change method, body and credentials)."""

    url: str
    method: str
    headers: dict[str, str]
    body: bytes | None
