"""Gateway: search, read and the stores, behind one object; Gateway.from_settings() is the composition root.

It owns everything with state or side effects (searching's clients and policy state, the reader, the session
store) so two gateways never share a breaker or a bucket by accident, and closing it releases them all. It knows
nothing of agent tools: those sit above it (tools/: Toolbox.over(gateway)) and use its search, read and stores.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

from webreach.accounts.service import Accounts
from webreach.clock import Clock, SystemClock
from webreach.config import JINA_READER_URL, ReadSettings, Settings
from webreach.configdb.service import StoredConfig
from webreach.errors import InvalidInputError, UnknownEngineError
from webreach.extract.extracted import Extracted
from webreach.images.reverse import REVERSE_BACKENDS
from webreach.images.reverse.service import ReverseSearch, backends_of
from webreach.images.service import Images
from webreach.images.storage import Storage
from webreach.models import EngineAttempt, Page, ReadFormat, ReadRequest, SearchRequest, SearchResponse
from webreach.net.fake_web import FakeWebBackend, FakeWebResolver
from webreach.net.offline import OfflineScope, OfflineTransport
from webreach.policies.parse_health import ParseHealth
from webreach.read.service import Reading, extract_file, parse_resolve
from webreach.search.canary import CANARY_QUERY, CanaryResult
from webreach.search.service import EngineStatus, Searching
from webreach.state.breaker_followers import Pickup
from webreach.state.image_store import ImageStore
from webreach.state.sessions import SessionStore, open_session_store
from webreach.state.sqlite_file import default_state_path

logger = logging.getLogger(__name__)
CONFIG_POLL = 1.0  # seconds between looks at the console settings' version, per long-running server
__all__ = [
    "CANARY_QUERY",
    "Accounts",  # the type of Gateway.accounts, for doors that annotate with it (doors never import accounts/)
    "CanaryResult",
    "EngineStatus",
    "Gateway",
    "ParseHealth",
    "Pickup",
    "search",
]


class Gateway:
    """Search, read and run agent tools: everything a front door needs, behind one object."""

    def __init__(
        self,
        settings: Settings,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Clock | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self._clock = clock or SystemClock()
        self._accounts = Accounts(settings.accounts, self._clock)  # its database opens on first use
        # the console's settings (configdb/): between the environment and webreach.toml, live on every server
        self._config = StoredConfig(
            settings, database=lambda: self._accounts.ledger.database, url=self._accounts.url(), clock=self._clock
        )
        self.settings = settings = self._config.load()
        # offline runs (the fake web): no connection goes anywhere but the fake web, IP literals included, and
        # no name is resolved at all, not even by DNS (net/offline.py)
        offline = OfflineScope.of(settings.fake_web) if settings.fake_web else None
        if transport is None and offline is not None:
            transport = OfflineTransport(offline)
        self._searching = Searching(settings, clock=self._clock, transport=transport, rng=rng or random.Random())
        self._sessions = open_session_store(
            settings.state.backend,
            settings.state.path,
            clock=self._clock,
            ttl=settings.tools.session_ttl_seconds,
            max_refs=settings.tools.max_refs_per_session,
        )
        # offline runs (the fake web): names are resolved by the fake web and every read connects to it, so nothing
        # leaves the machine, not even DNS, and a result of an offline search can still be read (net/fake_web.py)
        self._fake_web_resolver = FakeWebResolver(offline) if offline is not None else None
        self._reading = Reading(
            self._read_settings(offline), resolver=self._fake_web_resolver, clock=self._clock,
            user_agent=settings.user_agent, network_backend=FakeWebBackend(offline) if offline else None,
            offline=dataclasses.replace(offline, routed=True) if offline is not None else None,
        )  # fmt: skip
        self._images = self._open_images()
        if self._accounts.enabled:  # the engines each metered call tried, for the console's recent calls
            self._searching.add_attempt_listener(self._accounts.recent.note_attempt)

    @classmethod
    def from_settings(
        cls,
        settings: Settings | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Clock | None = None,
    ) -> Gateway:
        """Build a gateway from settings (loaded from webreach.toml and WEBREACH_* when not given)."""
        return cls(settings if settings is not None else Settings(), transport=transport, clock=clock)

    async def __aenter__(self) -> Gateway:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close HTTP clients and stores."""
        await self._searching.aclose()
        self._sessions.close()
        self._accounts.close()
        await self._images.aclose()
        await self._reading.aclose()
        if self._fake_web_resolver is not None:
            await self._fake_web_resolver.aclose()

    def _read_settings(self, offline: OfflineScope | None) -> ReadSettings:
        read = self.settings.read
        if offline is None:
            return read
        # offline runs: the guard allows the fake web's own address (and only it), and Jina is played by it too
        changes: dict[str, object] = {"allow_cidrs": [*read.allow_cidrs, *offline.allowed_cidrs]}
        if read.jina_base_url == JINA_READER_URL:
            changes["jina_base_url"] = f"{offline.base_url}/_pages/jina"
        return read.model_copy(update=changes)

    def _open_images(self) -> Images:
        state = self.settings.state
        store = ImageStore(
            (state.path or default_state_path()) if state.backend == "sqlite" else None,
            clock=self._clock, ttl=self.settings.tools.session_ttl_seconds,
            max_bytes=self.settings.images.store_max_bytes, max_images=self.settings.images.store_max_images,
        )  # fmt: skip
        return Images(
            self.settings, store, fetch=self._fetch_image, search=self._searching.search, reverse=self._reverse_search
        )

    def _reverse_search(self, storage: Storage) -> ReverseSearch:
        """The reverse-image backends over the search service's engine clients and under its policy stack (the
        same breakers, token buckets and transport as web search; policies/guarded.py)."""
        return ReverseSearch(
            self.settings, client_for=self._searching.engine_client, guard=self._searching.guarded_calls(),
            storage=storage, clock=self._clock,
        )  # fmt: skip

    async def _fetch_image(self, url: str, max_bytes: int) -> bytes:
        """An image's bytes from `url` through the reader's guard (SSRF rules, redirects re-checked, byte caps)."""
        fetcher = self._reading.fetcher
        budgets = dataclasses.replace(fetcher.budgets, max_raw_bytes=max_bytes, max_decoded_bytes=max_bytes)
        return (await fetcher.fetch(url, budgets=budgets)).body

    # --- search -----------------------------------------------------------------------------------------

    async def search(
        self,
        request: SearchRequest,
        *,
        engine: str = "auto",
        engines: Sequence[str] | None = None,
    ) -> SearchResponse:
        """Search with one named engine, 'auto' (fallback with hedging) or 'multi' (fan out and merge)."""
        return await self._searching.search(request, engine=engine, engines=engines)

    def add_attempt_listener(self, listener: Callable[[EngineAttempt], None]) -> None:
        """Tell `listener` of every engine attempt the moment it ends, while the search goes on (CLI -v)."""
        self._searching.add_attempt_listener(listener)

    def engine_names(self) -> list[str]:
        """Every web engine name (the registry's, so doors never import engines themselves)."""
        return self._searching.engine_names()

    def breaker_names(self) -> list[str]:
        """Every name with a circuit breaker: web engines, image engines, reverse-image backends."""
        return [*self._searching.engine_names(), *self._searching.image_engine_names(), *REVERSE_BACKENDS]

    def engine_statuses(self) -> list[EngineStatus]:
        """Kind, key status and breaker state of every engine: web search's, image search's (vertical "images")
        and reverse image search's backends (vertical "reverse")."""
        reverse = backends_of(self.settings, self._clock)
        return self._searching.engine_statuses(reverse=[backend.rules for backend in reverse.values()])

    def guess_engine(self, body: bytes) -> str:
        """The engine a saved results page most looks like (InvalidInputError when it is none of them)."""
        return self._searching.guess_engine(body)

    def parse_health(self) -> list[ParseHealth]:
        """Each scraped engine's parse health: its last parse mode and how many recent answers needed the generic
        parser (recorded in the state file, so it covers every process sharing it)."""
        return self._searching.parse_health()

    async def canary(self, query: str = CANARY_QUERY, engines: Sequence[str] | None = None) -> list[CanaryResult]:
        """Run `query` against each configured engine (or those named), bypassing the cache, and say per engine
        whether its own parser read the answer (ok), only the generic one did, nothing did, or it was blocked."""
        return await self._searching.canary(query, engines)

    async def probe(self, name: str, query: str = CANARY_QUERY) -> CanaryResult:
        """Test engine `name` with one real search through its runtime stack and credentials, leaving its breaker
        as it is and charging no agent (the console's "Test connection")."""
        return await self._searching.probe(name, query)

    def count_tokens(self, text: str) -> int:
        """`text`'s length in o200k tokens (estimated when bpe-openai is not installed), as web_fetch counts."""
        return self._reading.tokenizer().count(text)

    def reset_engine(self, name: str) -> None:
        """Close engine `name`'s circuit breaker (a web or image engine's, or a reverse-image backend's) and clear
        its stored suspension (InvalidInputError if unknown)."""
        self._searching.reset_breaker(name, others=REVERSE_BACKENDS)

    @contextlib.asynccontextmanager
    async def follow_shared_state(self, door: str) -> AsyncIterator[None]:
        """For a long-running door (`serve`, `mcp`), around serving: take in breaker changes other processes
        make (resets, suspensions, a deleted state file) while idle too, register this process as a running
        server that `webreach engines --reset` can wait for, and apply the console's settings when another
        process changes them (their version is read at most every CONFIG_POLL seconds, off the event loop)."""
        async with self._searching.follow_shared_state(door):
            task = asyncio.create_task(self._follow_config())
            try:
                yield
            finally:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def _follow_config(self) -> None:
        while True:
            await self._clock.sleep(CONFIG_POLL)
            try:
                changed = await asyncio.to_thread(self._config.poll)
                if changed is not None:
                    self._apply(changed)
            except Exception:  # a bug here must not stop the server following later changes
                logger.exception("console settings: could not apply a change")

    # --- the console's settings ------------------------------------------------------------------------------

    @property
    def stored_config(self) -> StoredConfig:
        """The console's settings in the database: per-field sources, the version applied, its problem if any."""
        return self._config

    def configure(self, changes: Mapping[tuple[str, str], Any]) -> None:
        """Store console settings ((scope, field) -> value, None to remove the console's value) and apply them here
        at once (other servers within CONFIG_POLL). Engine names are checked against the registry."""
        valid = set(self.engine_names())
        for scope, field in changes:
            if scope.startswith("engine:"):
                UnknownEngineError.check(scope[7:], valid)
            order = changes[(scope, field)] if field in ("auto_order", "auto_order_zh") else None
            unknown = sorted(set(order) - valid) if isinstance(order, list) else []  # other shapes: check_value
            if unknown:
                raise InvalidInputError(f"unknown engines in {field}: {', '.join(unknown)}")
        self._apply(self._config.write(dict(changes)))

    def _apply(self, settings: Settings) -> None:
        self.settings = settings
        self._searching.reconfigure(settings)
        self._images.reconfigure(settings)

    async def reset_pickups(self) -> list[Pickup]:
        """After reset_engine: whether each running server has picked the reset up (waits 3 s at most)."""
        return await self._searching.pickups()

    def auto_order(self, query: str) -> list[str]:
        """The engines auto mode tries for `query`, in order."""
        return self._searching.auto_order(query)

    def parse_saved(
        self,
        name: str,
        body: bytes,
        *,
        status: int = 200,
        content_type: str = "text/html",
        headers: Sequence[tuple[bytes, bytes]] | None = None,
    ) -> SearchResponse:
        """Parse a saved response body with engine `name`, offline (how users check a parser after markup changes);
        `headers`, raw as they arrived, replace the Content-Type alone. Hits, or the engine's typed error."""
        return self._searching.parse_saved(name, body, status=status, content_type=content_type, headers=headers)

    # --- reading -------------------------------------------------------------------------------------------

    async def read(self, request: ReadRequest) -> Page:
        """Read request.url safely, as one window of clean text."""
        return await self._reading.read(request)

    async def extract_file(self, path: Path, *, url: str | None = None, format: ReadFormat = "markdown") -> Extracted:
        """Extract a local HTML or PDF file offline, as the reader would extract it from the web."""
        return await extract_file(path, url=url, format=format, workers=self._reading.workers)

    async def override_reading(
        self,
        *,
        resolve: Sequence[str] = (),
        allow_cidrs: Sequence[str] = (),
        timeout: float | None = None,
    ) -> None:
        """Operator-only overrides for this gateway's reads (CLI --resolve/--allow-cidr/--timeout; never agents).

        `resolve` entries are curl-style "HOST:ADDR[,ADDR...]": those addresses replace DNS for HOST, and the
        guard still checks them.
        """
        answers: dict[str, list[str]] = {}
        for option in resolve:
            host, addresses = parse_resolve(option)
            answers.setdefault(host, []).extend(addresses)
        previous = self._reading
        self._reading = previous.with_overrides(resolve=answers or None, allow_cidrs=allow_cidrs, timeout=timeout)
        await previous.aclose()

    # --- stores -------------------------------------------------------------------------------------------

    @property
    def clock(self) -> Clock:
        """The time seam every component of this gateway reads."""
        return self._clock

    @property
    def accounts(self) -> Accounts:
        """Agents, keys, credits, quotas and idempotency keys (accounts/), over the ledger database."""
        return self._accounts

    @property
    def images(self) -> Images:
        """Session images named by tokens, crops and image search (images/)."""
        return self._images

    @property
    def sessions(self) -> SessionStore:
        """The session store: numbered refs per session, shared by every door over this gateway."""
        return self._sessions


def search(query: str, *, engine: str = "auto", engines: Sequence[str] | None = None, **fields: Any) -> SearchResponse:
    """One-line synchronous search with settings from webreach.toml / WEBREACH_* (not for use inside an event loop)."""

    async def run() -> SearchResponse:
        async with Gateway.from_settings() as gateway:
            return await gateway.search(SearchRequest.create(query=query, **fields), engine=engine, engines=engines)

    return asyncio.run(run())
