"""Reading: the read service the Gateway owns. A URL in, one window of its extracted content out (a Page).

    reading = Reading(ReadSettings(), user_agent=..., clock=...)
    page = await reading.read(ReadRequest.create(url="https://example.com/", max_chars=4000))
    await reading.aclose()

It composes net/ (the guarded client), extract/ and the readers: one Guard (the operator's allow_cidrs; metadata
always denied), one pinned Fetcher with the read budgets, interstitial resolution, the optional robots.txt check,
the readers in their configured order (direct, browser, jina; reader='auto' moves on as readers/__init__.py
describes), the extractor and the window. The Jina reader gets a guard of its own with no allow_cidrs, so an
intranet page the operator allowed is never handed to a third party. `[read] proxy` (the fetcher's, so the direct
and browser readers, interstitials, robots.txt and image fetches) and `[read] jina_proxy` route them through a
proxy; the gateway fills both from `[network] proxy` (Network.read_settings).

Extracted documents are cached in memory (read/page_cache.py) for `cache_ttl` seconds, keyed by reader choice,
format and URL (the URL asked for and the final one), so paging through a long document with `start` fetches it
once; a window served from the cache says `cached=True`. A request with a question or a passage number gets
passages instead of a window (read/question_read.py), from the same cached document.

Operator-only overrides (`with_overrides`: curl-style `--resolve HOST:ADDR[,ADDR]`, extra `--allow-cidr`, a
`--timeout`) build a separate Reading with its own cache, so a pinned answer never leaks into ordinary reads.
They are CLI options, never agent tool arguments: an agent that could set them could reach anything.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from ipaddress import ip_address
from pathlib import Path
from types import TracebackType

import httpcore

from webreach.clock import Clock, SystemClock
from webreach.config import JINA_FREE_RATE, JINA_KEYED_RATE, MIB, ReadSettings, effective_proxy
from webreach.errors import (
    ExtractionError,
    FetchUnavailableError,
    InvalidInputError,
    ResponseTooLargeError,
    WebreachError,
)
from webreach.extract.cascade import ExtractOptions
from webreach.extract.extracted import Extracted
from webreach.extract.worker import ExtractionWorkers, WorkerBudget
from webreach.local_files import read_local
from webreach.models import Page, ReadFormat, ReadRequest
from webreach.net.address_policy import AddressPolicy
from webreach.net.decoding import BoundedDecoder
from webreach.net.fetcher import DEFAULT_USER_AGENT, Budgets, Fetcher
from webreach.net.guard import Guard
from webreach.net.offline import OfflineScope, OfflineTransport
from webreach.net.proxy import ProxyUrl
from webreach.net.resolvers import Resolver, StaticResolver, system_resolver
from webreach.net.robots import RobotsPolicy
from webreach.net.transport import ConnectObserver
from webreach.read.interstitials import Interstitials
from webreach.read.page_cache import PageCache
from webreach.read.question_read import QuestionReading
from webreach.read.readers import Reader, ReaderChain, ReadResult, as_fetch_error
from webreach.read.readers.direct import DirectReader, RenderedPage, RenderedReader, Renderer
from webreach.read.readers.jina import JinaReader
from webreach.read.readers.reader_pace import ReaderPace
from webreach.read.window import Tokenizer, load_tokenizer, window
from webreach.state.bucket_store import BucketStore
from webreach.telemetry import Tracing

FILE_SECONDS = 120.0  # a local file has no fetch deadline; this bounds a hostile PDF's extraction


def read_budgets(settings: ReadSettings) -> Budgets:
    """The fetch budgets the read settings describe."""
    return Budgets(
        total_seconds=settings.timeout,
        connect_seconds=min(settings.connect_timeout, settings.timeout),
        read_seconds=min(settings.read_timeout, settings.timeout),
        max_raw_bytes=settings.max_raw_bytes,
        max_decoded_bytes=settings.max_decoded_bytes,
        max_redirects=settings.max_redirects,
    )


class _LazyRenderer:
    """The browser reader, built on first use: Playwright is an optional extra and slow to import."""

    def __init__(self, make: Callable[[], Renderer]) -> None:
        self._make = make
        self._renderer: Renderer | None = None

    async def read(self, url: str, seconds: float | None = None) -> RenderedPage:
        if self._renderer is None:
            self._renderer = self._make()
        return await self._renderer.read(url, seconds)

    async def aclose(self) -> None:
        if self._renderer is not None:
            await self._renderer.aclose()


class Reading:
    """Reads pages safely: guard, fetcher, interstitials, robots, readers, extraction, window and cache."""

    def __init__(
        self,
        settings: ReadSettings | None = None,
        *,
        resolver: Resolver | None = None,
        clock: Clock | None = None,
        user_agent: str = DEFAULT_USER_AGENT,
        renderer: Renderer | None = None,
        network_backend: httpcore.AsyncNetworkBackend | None = None,
        connect_observer: ConnectObserver | None = None,
        extract_options: ExtractOptions | None = None,
        tokenizer: Tokenizer | None = None,
        workers: ExtractionWorkers | None = None,
        offline: OfflineScope | None = None,
        tracing: Tracing | None = None,
        bucket_store: BucketStore | None = None,
    ) -> None:
        self.settings = settings = settings or ReadSettings()
        self._bucket_store = bucket_store  # third-party readers' pace (the engines' store: shared across replicas)
        self.clock: Clock = clock or SystemClock()
        self.user_agent = user_agent
        self.resolver: Resolver = resolver or system_resolver()
        self._seams = (network_backend, connect_observer)
        self.offline = offline  # fake-web mode: nothing but the fake web is reachable (net/offline.py)
        self.guard = Guard(AddressPolicy(settings.allow_cidrs), self.resolver, offline)
        proxy = effective_proxy(settings.proxy, None)  # the gateway folds [network] proxy in (Network.read_settings)
        self.fetcher = Fetcher(
            self.guard, budgets=read_budgets(settings), clock=self.clock, user_agent=user_agent,
            network_backend=network_backend, connect_observer=connect_observer,
            proxy=ProxyUrl.parse(proxy) if proxy else None,
        )  # fmt: skip
        self.interstitials = Interstitials(self.fetcher, max_hops=settings.max_interstitials)
        self.robots = (
            RobotsPolicy(self.fetcher, token=settings.robots_token, clock=self.clock, timeout=settings.robots_timeout)
            if settings.robots
            else None
        )
        self.renderer = renderer if renderer is not None else _LazyRenderer(self._browser)
        self._owns_workers = workers is None  # children this Reading started, stopped by its aclose
        self.workers = workers or ExtractionWorkers(
            WorkerBudget(
                max_concurrent=settings.extract_workers,
                memory_bytes=settings.extract_memory,
                pool_size=settings.extract_pool,
            ),
            tracing=tracing,
        )
        self.jina = self._jina()
        readers: dict[str, Reader] = {
            "direct": DirectReader(self.fetcher, self.interstitials, extract_options, self.workers),
            "browser": RenderedReader(self.renderer, self.fetcher, extract_options, self.workers),
            "jina": self.jina,
        }
        self.chain = ReaderChain(readers, settings.reader_order)
        self.cache = PageCache(self.clock, ttl=settings.cache_ttl, max_entries=settings.cache_max_entries)
        self._tokenizer = tokenizer  # loaded on first use of max_tokens (the exact one when installed)
        self.questions = QuestionReading(self.cache, self.tokenizer)

    def reroute(self, settings: ReadSettings) -> None:
        """Take the proxies of `settings` ([read] proxy and jina_proxy, [network] proxy folded in by the gateway)
        from the next fetch on: the console changed [network] proxy while the server runs. The guard is the same
        one, so the SSRF rule holds through the new proxy as through the old."""
        proxy = effective_proxy(settings.proxy, None)
        self.fetcher.transport.reroute(ProxyUrl.parse(proxy) if proxy else None)
        self.jina.reroute(effective_proxy(settings.jina_proxy, None))
        self.settings = self.settings.model_copy(update={"proxy": settings.proxy, "jina_proxy": settings.jina_proxy})

    def _jina(self) -> JinaReader:
        # a strict guard of its own: pages the operator allowed in private networks never go to a third party; in
        # fake-web mode the fake web's scope decides, as for every other reader (its sites resolve to loopback)
        settings = self.settings
        key = settings.jina_api_key.get_secret_value() if settings.jina_api_key else None
        transport = OfflineTransport(self.offline) if self.offline is not None else None
        return JinaReader(
            Guard(AddressPolicy(), self.resolver, self.offline), base_url=settings.jina_base_url, api_key=key,
            timeout=settings.jina_timeout, transport=transport, workers=self.workers,
            pace=ReaderPace(
                "jina", settings.jina_rate_per_minute or (JINA_KEYED_RATE if key else JINA_FREE_RATE),
                store=self._bucket_store, clock=self.clock,
            ),
            proxy=effective_proxy(settings.jina_proxy, None),
        )  # fmt: skip

    def _browser(self) -> Renderer:
        from webreach.read.readers.browser import BrowserReader

        settings = self.settings
        return BrowserReader(
            self.fetcher, executable_path=settings.browser_executable, timeout=settings.browser_timeout,
            user_agent=None,
        )  # fmt: skip

    async def read(self, request: ReadRequest) -> Page:
        """One window of the page at request.url."""
        target = request.url
        if not target:
            raise InvalidInputError("Nothing to read: the URL is empty.", hint="Give an http(s) URL.")
        key = f"{request.reader}\n{request.format}\n"
        result = self.cache.get(key + target)
        cached = result is not None
        if result is None:
            self.workers.warm()  # the first read of a server starts an extraction child while it fetches
            if self.robots is not None:
                await self.robots.check(target)
            # the read's timeout is one total deadline across every reader reader='auto' tries
            result = await self.chain.read(target, request, seconds=self.settings.timeout)
            self.cache.put([key + target, key + result.final_url], result)
        if request.question is not None or request.passage is not None:
            return await self.questions.page(result, request, target, key + result.final_url, cached=cached)
        return self._page(result, request, target, cached=cached)

    def _page(self, result: ReadResult, request: ReadRequest, url: str, *, cached: bool) -> Page:
        tokenizer = self.tokenizer() if request.max_tokens is not None else None
        shown = window(result.extracted.text, request.start, request.max_chars, request.max_tokens, tokenizer)
        meta = result.extracted
        return Page(
            url=url, final_url=result.final_url, status=result.status, content_type=result.content_type,
            **meta.page_metadata().model_dump(),
            page_type=meta.page_type, format=meta.format, content=shown.content,
            start=shown.start, total_chars=shown.total_chars, next_start=shown.next_start, truncated=meta.truncated,
            tokens=shown.tokens, tokens_estimated=shown.tokens_estimated, reader=result.reader, cached=cached,
        )  # fmt: skip

    def tokenizer(self) -> Tokenizer:
        if self._tokenizer is None:
            self._tokenizer = load_tokenizer()
        return self._tokenizer

    async def resolve_link(self, url: str) -> str:
        """Where a redirect link (Baidu /link?url=...) points, without reading the target page."""
        return await self.interstitials.resolve_link(url)

    def with_overrides(
        self,
        *,
        resolve: Mapping[str, Sequence[str]] | None = None,
        allow_cidrs: Sequence[str] = (),
        timeout: float | None = None,
    ) -> Reading:
        """A separate Reading with curl-style --resolve answers, extra allowed CIDRs or another timeout."""
        changes: dict[str, object] = {"allow_cidrs": [*self.settings.allow_cidrs, *allow_cidrs]}
        if timeout is not None:
            changes["timeout"] = timeout
        settings = self.settings.model_copy(update=changes)
        resolver = StaticResolver(resolve, fallback=self.resolver) if resolve else self.resolver
        backend, observer = self._seams
        return Reading(
            settings, resolver=resolver, clock=self.clock, user_agent=self.user_agent, network_backend=backend,
            connect_observer=observer, offline=self.offline,
        )  # fmt: skip

    async def aclose(self) -> None:
        await self.fetcher.aclose()
        await self.jina.aclose()
        await self.renderer.aclose()
        if self._owns_workers:
            await self.workers.aclose()

    async def __aenter__(self) -> Reading:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


def parse_resolve(option: str) -> tuple[str, tuple[str, ...]]:
    """`HOST:ADDR[,ADDR...]` (curl's `HOST:PORT:ADDR` also accepted, the port ignored) -> (host, addresses)."""
    host, sep, rest = option.strip().partition(":")
    if not sep or not host or not rest:
        raise InvalidInputError(f"--resolve {option!r}: expected HOST:ADDR[,ADDR...], e.g. example.com:93.184.216.34")
    for candidate in (rest, rest.partition(":")[2] if rest.partition(":")[0].isdigit() else ""):
        try:
            return host, tuple(str(ip_address(a.strip().strip("[]"))) for a in candidate.split(","))
        except ValueError:
            continue
    raise InvalidInputError(f"--resolve {option!r}: {rest!r} is not a comma-separated list of IP addresses.")


def _load_local(path: Path, max_bytes: int, where: str) -> bytes:
    """The file's bytes (gunzipped when it is gzip), at most max_bytes; on a worker thread."""
    try:  # at most max_bytes + 1: a device or FIFO says size 0 and could run on forever (/dev/zero)
        body = read_local(path, max_bytes)  # and never waits on a FIFO nobody writes to
    except OSError as exc:  # a directory, no permission, or gone since stat()
        raise _unreadable(path, exc) from None
    if len(body) > max_bytes:
        raise ResponseTooLargeError(f"{path} has over {max_bytes:,} bytes.", url=where)
    named = path.suffix.lower() == ".gz"
    if not (named or body.startswith(b"\x1f\x8b")):
        return body
    decoder = BoundedDecoder(["gzip"], limit=max_bytes, url=where)
    try:
        decoder.feed(body)
        body = decoder.finish()
    except ResponseTooLargeError:
        raise ResponseTooLargeError(f"{path} decompresses to over {max_bytes:,} bytes.", url=where) from None
    except FetchUnavailableError:  # corrupt or cut off: unlike a network read, trying again cannot help
        message, hint = f"{path} is not a readable gzip file (corrupt or truncated).", "Check it with `gzip -t`."
        raise ExtractionError(message, url=where, hint=hint) from None
    return body  # sniffing reads the type hint of page.html.gz from its inner extension


async def extract_file(
    path: Path,
    *,
    url: str | None = None,
    format: ReadFormat = "markdown",
    max_bytes: int = 50 * MIB,
    seconds: float = FILE_SECONDS,
    workers: ExtractionWorkers | None = None,
) -> Extracted:
    """Extract a local HTML, PDF, text or JSON file offline (`webreach extract`); errors as FetchErrors.

    The file is extracted in a child process under the worker budgets (extract/worker.py: `workers`, else
    children started for this call and stopped after it) and given `seconds`: a hostile PDF or page ends in
    FetchTimeoutError or ResponseTooLargeError, not a hung command.

    A file that cannot be read (missing, a directory, no permission) is InvalidInputError naming the file and
    the operating system's reason.

    A gzip-compressed file (named *.gz, or starting with gzip's magic bytes) is decompressed first, in bounded
    steps (net/decoding.py): the decompressed content may not pass `max_bytes` either, so a gzip bomb costs at
    most that much memory before it is refused with ResponseTooLargeError.
    """
    try:
        size = path.stat().st_size
    except OSError as exc:  # missing, no permission, a symlink loop
        raise _unreadable(path, exc) from None
    where = url or path.resolve().as_uri()
    if size > max_bytes:
        raise ResponseTooLargeError(f"{path} has {size:,} bytes, over the {max_bytes:,} byte limit.", url=where)

    body = await asyncio.to_thread(_load_local, path, max_bytes, where)
    own = workers is None
    workers = workers or ExtractionWorkers()
    try:
        return await workers.extract(body, content_type=None, url=where, format=format, seconds=seconds)
    except WebreachError as exc:
        raise as_fetch_error(exc, where) from None
    finally:
        if own:
            await workers.aclose()


def _unreadable(path: Path, exc: OSError) -> InvalidInputError:
    """A local file that cannot be read is the caller's input problem, named with the OS's reason."""
    return InvalidInputError(f"cannot read {path}: {exc.strerror or exc}", hint="Check the path and its permissions.")
