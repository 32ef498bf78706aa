"""Gateway: the composition root; search, read and images for the tools, the control plane beside them.

Gateway.from_settings() builds the network seam once (the engines' transport, the reader's resolver and backend,
offline: the fake web) and the gateway over it. It owns everything with state or side effects (searching's clients
and policy state, the reader, the session and image stores, the ledger) so two gateways never share a breaker or a
bucket by accident, and closing it releases them all. The tools (tools/: Toolbox.over(gateway)) use its search,
read and images; operators' doors use `gateway.engines` and `gateway.config` (control.py). It knows nothing of tools.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import httpcore
import httpx

from webreach.accounts.service import Accounts
from webreach.clock import Clock, SystemClock
from webreach.config import JINA_READER_URL, EngineSettings, NetworkSettings, ReadSettings, Settings
from webreach.configdb.service import StoredConfig
from webreach.control import Config, Engines, StateBackends
from webreach.extract.extracted import Extracted
from webreach.models import Page, ReadFormat, ReadRequest, SearchRequest, SearchResponse
from webreach.net.fake_web import FakeWebBackend, FakeWebResolver
from webreach.net.offline import OfflineScope, OfflineTransport
from webreach.net.resolvers import Resolver, StaticResolver, system_resolver
from webreach.policies.parse_health import ParseHealth
from webreach.providers import Registry
from webreach.search.canary import CANARY_QUERY, CanaryResult
from webreach.search.service import EngineStatus, Searching
from webreach.state.backends import open_images, open_sessions
from webreach.state.breaker_followers import Pickup
from webreach.state.sessions import SessionStore
from webreach.telemetry import Tracing

if TYPE_CHECKING:
    from webreach.images.reverse.service import ReverseSearch
    from webreach.images.service import Images
    from webreach.images.storage import Storage
    from webreach.read.service import Reading

logger = logging.getLogger(__name__)

__all__ = ["CANARY_QUERY", "CanaryResult", "EngineStatus", "Gateway", "ParseHealth", "Pickup", "ReadOverrides"]
__all__ += ["Accounts", "search"]  # Accounts: the type of Gateway.accounts, for doors (they never import accounts/)


@dataclass(frozen=True)
class ReadOverrides:
    """Operator-only overrides for a gateway's reads (CLI --resolve/--allow-cidr/--timeout; never agents).

    `resolve` entries are curl-style "HOST:ADDR[,ADDR...]": those addresses replace DNS for HOST, and the guard
    still checks them.
    """

    resolve: Sequence[str] = ()
    allow_cidrs: Sequence[str] = ()
    timeout: float | None = None

    def answers(self) -> dict[str, list[str]]:
        """The --resolve table, host -> addresses (InvalidInputError on a malformed entry)."""
        answers: dict[str, list[str]] = {}
        if not self.resolve:
            return answers
        from webreach.read.service import parse_resolve  # the reader's import, only with --resolve

        for option in self.resolve:
            host, addresses = parse_resolve(option)
            answers.setdefault(host, []).extend(addresses)
        return answers


@dataclass(frozen=True)
class Network:
    """The network seam, built once by Gateway.from_settings: the engines' transport, the reader's resolver and
    connection backend, and the offline scope (the fake web) with the read overrides applied to the read settings.
    """

    transport: httpx.AsyncBaseTransport | None = None
    resolver: Resolver | None = None
    backend: httpcore.AsyncNetworkBackend | None = None
    offline: OfflineScope | None = None
    overrides: ReadOverrides = ReadOverrides()
    closers: tuple[Callable[[], Awaitable[None]], ...] = ()

    @classmethod
    def of(cls, settings: Settings, transport: httpx.AsyncBaseTransport | None, overrides: ReadOverrides) -> Network:
        """Online: the given transport (or httpx's) and the system's resolver. Offline (the fake web): no connection
        goes anywhere but the fake web, IP literals included, and no name is resolved by DNS (net/offline.py,
        net/fake_web.py), so a result of an offline search can still be read."""
        answers = overrides.answers()
        if not settings.fake_web:
            resolver = StaticResolver(answers, fallback=system_resolver()) if answers else None
            return cls(transport=transport, resolver=resolver, overrides=overrides)
        offline = OfflineScope.of(settings.fake_web)
        fake = FakeWebResolver(offline)
        return cls(
            transport=transport or OfflineTransport(offline), backend=FakeWebBackend(offline), offline=offline,
            resolver=StaticResolver(answers, fallback=fake) if answers else fake, overrides=overrides,
            closers=(fake.aclose,),
        )  # fmt: skip

    def read_settings(self, read: ReadSettings, network: NetworkSettings | None = None) -> ReadSettings:
        """`read` with the overrides and [network] proxy where [read] names no proxy of its own; offline: the guard
        allows the fake web's own address (and only it), Jina is played by it too, and no proxy is used (nothing
        leaves the machine)."""
        changes: dict[str, object] = {"allow_cidrs": [*read.allow_cidrs, *self.overrides.allow_cidrs]}
        default = network.proxy if network is not None else None
        changes["proxy"] = read.proxy if read.proxy is not None else default
        changes["jina_proxy"] = read.jina_proxy if read.jina_proxy is not None else default
        if self.overrides.timeout is not None:
            changes["timeout"] = self.overrides.timeout
        if self.offline is not None:
            changes["allow_cidrs"] = [*changes["allow_cidrs"], *self.offline.allowed_cidrs]  # type: ignore[misc]
            changes["proxy"] = changes["jina_proxy"] = None
            if read.jina_base_url == JINA_READER_URL:
                changes["jina_base_url"] = f"{self.offline.base_url}/_pages/jina"
        return read.model_copy(update=changes)


class Gateway:
    """Search, read and images for the agent tools, and the control plane (`engines`, `config`) for operators."""

    def __init__(
        self,
        settings: Settings,
        *,
        network: Network,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        providers: Registry | None = None,
        tracing: Tracing | None = None,
    ) -> None:
        self.clock = clock = clock or SystemClock()
        self._network = network
        self.tracing = tracing  # OpenTelemetry spans (telemetry.py); None: off, no span is made
        self.accounts = Accounts(settings.accounts, clock)  # its database opens on first use
        # the console's settings (configdb/): between the environment and webreach.toml, live on every server
        stored = StoredConfig(
            settings, database=lambda: self.accounts.ledger.database, url=self.accounts.url(), clock=clock
        )
        self.settings = settings = stored.load()
        self._searching = Searching(
            settings, clock=clock, transport=network.transport, rng=rng or random.Random(), registry=providers
        )
        self.sessions: SessionStore = open_sessions(
            settings, self._searching.redis, clock=clock,
            ttl=settings.tools.session_ttl_seconds, max_refs=settings.tools.max_refs_per_session,
        )  # fmt: skip
        self._reading: Reading | None = None  # built on the first read (`_reader`)
        self._images: Images | None = None  # built on first use (`images`)
        self.engines = Engines(self._searching, lambda: self.settings, clock)
        self.config = Config(stored, self.engines, self._apply, clock)
        self.state = StateBackends(self._searching, lambda: self.settings)
        if self.accounts.enabled:  # the engines each metered call tried, for the console's recent calls
            self._searching.add_attempt_listener(self.accounts.recent.note_attempt)
        if tracing is not None:
            self._searching.add_attempt_listener(tracing.attempt)

    @classmethod
    def from_settings(
        cls,
        settings: Settings | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        read_overrides: ReadOverrides | None = None,
        providers: Registry | None = None,
        tracing: Tracing | None = None,
    ) -> Gateway:
        """Build a gateway from settings (loaded from webreach.toml and WEBREACH_* when not given), its network
        seam built here once: `transport` for the engines (offline runs: the fake web's), `read_overrides` for
        the reader (InvalidInputError on a malformed --resolve entry). `providers`: the provider registry its
        services consult (default: every provider, webreach/providers.py). `tracing`: where spans go (default:
        OTLP when the OTEL_* variables ask for it, telemetry.py)."""
        settings = settings if settings is not None else Settings()
        network = Network.of(settings, transport, read_overrides or ReadOverrides())
        tracing = tracing if tracing is not None else _tracing()
        return cls(settings, network=network, clock=clock, rng=rng, providers=providers, tracing=tracing)

    async def __aenter__(self) -> Gateway:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close HTTP clients and stores."""
        await self._searching.aclose()
        self.sessions.close()
        self.accounts.close()
        if self._images is not None:
            await self._images.aclose()
        if self._reading is not None:
            await self._reading.aclose()
        for close in self._network.closers:
            await close()
        if self.tracing is not None:  # exports what is buffered: a blocking flush, off the loop
            await asyncio.to_thread(self.tracing.close)

    @property
    def _reader(self) -> Reading:
        """The reader, built on first use: its import (the extraction cascade, trafilatura, pypdf, the question
        ranker's numpy) is half a second of a CLI search's start-up that a search never needs (bench/startup.py)."""
        if self._reading is None:
            from webreach.read.service import Reading

            network, settings, offline = self._network, self.settings, self._network.offline
            self._reading = Reading(
                network.read_settings(settings.read, settings.network), resolver=network.resolver, clock=self.clock,
                user_agent=settings.user_agent, network_backend=network.backend, tracing=self.tracing,
                offline=dataclasses.replace(offline, routed=True) if offline is not None else None,
                bucket_store=self._searching.bucket_store,
            )  # fmt: skip
        return self._reading

    @property
    def images(self) -> Images:
        """Image search, crops, uploads and reverse search, built on first use: the images package (its models,
        decoders, the image store and the reverse backends' service) is a search's start-up it never needs."""
        if self._images is None:
            self._images = self._open_images()
        return self._images

    def _open_images(self) -> Images:
        from webreach.images.service import Images

        ttl = self.settings.tools.session_ttl_seconds
        store = open_images(self.settings, self._searching.redis, clock=self.clock, ttl=ttl)
        return Images(
            self.settings, store, fetch=self._fetch_image, search=self._searching.search, reverse=self._reverse_search,
            image_engines=self._searching.providers.names("image"),
        )  # fmt: skip

    def _reverse_search(self, storage: Storage) -> ReverseSearch:
        """The reverse-image backends over the search service's engine clients and under its policy stack (the
        same breakers, token buckets and transport as web search; policies/guarded.py)."""
        from webreach.images.reverse.service import ReverseSearch

        searching = self._searching
        return ReverseSearch(
            self.settings, backends=searching.providers.reverse_backends(), client_for=searching.engine_client,
            guard=searching.guarded_calls(), storage=storage, clock=self.clock,
        )  # fmt: skip

    async def _fetch_image(self, url: str, max_bytes: int) -> bytes:
        """An image's bytes from `url` through the reader's guard (SSRF rules, redirects re-checked, byte caps)."""
        fetcher = self._reader.fetcher
        budgets = dataclasses.replace(fetcher.budgets, max_raw_bytes=max_bytes, max_decoded_bytes=max_bytes)
        return (await fetcher.fetch(url, budgets=budgets)).body

    def _apply(self, settings: Settings) -> None:
        self.settings = settings
        self._searching.reconfigure(settings)
        if self._images is not None:  # images not opened yet open with the new settings when they are
            self._images.reconfigure(settings)
        if self._reading is not None:  # a reader not built yet takes the new settings when it is
            read = self._network.read_settings(settings.read, settings.network)
            if (read.proxy, read.jina_proxy) != (self._reading.settings.proxy, self._reading.settings.jina_proxy):
                self._reading.reroute(read)

    @contextlib.asynccontextmanager
    async def follow_shared_state(self, door: str) -> AsyncIterator[None]:
        """For a long-running door (`serve`, `mcp`), around serving: take in breaker changes other processes
        make (resets, suspensions, a deleted state file) while idle too, register this process as a running
        server that `webreach engines --reset` can wait for, and apply the console's settings when another
        process changes them (their version is read at most every CONFIG_POLL seconds, off the event loop)."""
        async with self._searching.follow_shared_state(door):
            task = asyncio.create_task(self.config.follow())
            try:
                yield
            finally:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    # --- for the tools: search, read, images ------------------------------------------------------------

    def search(
        self,
        request: SearchRequest,
        *,
        engine: str = "auto",
        engines: Sequence[str] | None = None,
    ) -> Coroutine[Any, Any, SearchResponse]:
        """Search with one named engine, 'auto' (fallback with hedging) or 'multi' (fan out and merge). Untraced,
        the search service's own coroutine is handed back (a coroutine per search fewer: a cached REST search is a
        few dozen microseconds of CPU in process, and each coroutine layer about one)."""
        if self.tracing is None:
            return self._searching.search(request, engine=engine, engines=engines)
        return self._traced_search(request, engine, engines, self.tracing)

    async def _traced_search(
        self, request: SearchRequest, engine: str, engines: Sequence[str] | None, tracing: Tracing
    ) -> SearchResponse:
        with tracing.span("search", {"webreach.search.engine": engine}) as span:
            response = await self._searching.search(request, engine=engine, engines=engines)
            span.set_attribute("webreach.search.results", len(response.results))
            return response

    def answers_at_once(self, request: SearchRequest, *, engine: str, engines: Sequence[str] | None) -> bool:
        """Whether search() would answer now from the in-process cache, with no engine call (search/service.py)."""
        return self._searching.answers_at_once(request, engine=engine, engines=engines)

    def engine_names(self) -> list[str]:
        """Every web engine name, for the tools' schema enums and their engine check."""
        return self._searching.engine_names()

    def check_engines(self) -> None:
        """InvalidInputError when the settings (the console's included) configure an engine that does not exist."""
        self.settings.check_engines(self.engine_names())

    def engine_settings(self) -> Mapping[str, EngineSettings]:
        """The configured engines' settings as they are now (the console's changes included)."""
        return self.settings.engines

    # --- reading -------------------------------------------------------------------------------------------

    async def read(self, request: ReadRequest) -> Page:
        """Read request.url safely, as one window of clean text."""
        if self.tracing is None:
            return await self._reader.read(request)
        # the host only: a URL's path or query may carry a signature or a token
        attributes = {"server.address": _host(request.url), "webreach.read.reader": request.reader}
        with self.tracing.span("read", attributes) as span:
            page = await self._reader.read(request)
            span.set_attributes({"webreach.read.reader_used": page.reader, "webreach.read.cached": page.cached})
            return page

    def count_tokens(self, text: str) -> int:
        """`text`'s length in o200k tokens (estimated when bpe-openai is not installed), as web_fetch counts."""
        return self._reader.tokenizer().count(text)

    async def extract_file(self, path: Path, *, url: str | None = None, format: ReadFormat = "markdown") -> Extracted:
        """Extract a local HTML or PDF file offline, as the reader would extract it from the web."""
        from webreach.read.service import extract_file

        return await extract_file(path, url=url, format=format, workers=self._reader.workers)


def _tracing() -> Tracing | None:
    """Tracing as the OTEL_* variables ask; without the `otel` extra, a warning and none (searches go on)."""
    try:
        return Tracing.from_environment()
    except ImportError:
        logger.warning("OTEL_* variables ask for traces, but the OpenTelemetry SDK is missing: "
                       "pip install 'webreach[otel]' (no traces meanwhile)")  # fmt: skip
        return None


def _host(url: str) -> str:
    return urllib.parse.urlsplit(url).hostname or ""


def search(query: str, *, engine: str = "auto", engines: Sequence[str] | None = None, **fields: Any) -> SearchResponse:
    """One-line synchronous search with settings from webreach.toml / WEBREACH_* (not for use inside an event loop)."""

    async def run() -> SearchResponse:
        async with Gateway.from_settings() as gateway:
            return await gateway.search(SearchRequest.create(query=query, **fields), engine=engine, engines=engines)

    return asyncio.run(run())


def fetch(url: str, **fields: Any) -> Page:
    """One-line synchronous read of `url` (ReadRequest's fields: start, max_chars, format, reader, question, ...)
    with settings from webreach.toml / WEBREACH_* (not for use inside an event loop), beside `search`."""

    async def run() -> Page:
        async with Gateway.from_settings() as gateway:
            return await gateway.read(ReadRequest.create(url=url, **fields))

    return asyncio.run(run())
