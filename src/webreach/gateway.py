"""Gateway: search, read and the stores, behind one object; Gateway.from_settings() is the composition root.

It owns everything with state or side effects (searching's clients and policy state, the reader, the session
store) so two gateways never share a breaker or a bucket by accident, and closing it releases them all. It knows
nothing of agent tools: those sit above it (tools/: Toolbox.over(gateway)) and use its search, read and stores.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

from webreach.clock import Clock, SystemClock
from webreach.config import JINA_READER_URL, ReadSettings, Settings
from webreach.extract.extracted import Extracted
from webreach.models import Page, ReadFormat, ReadRequest, SearchRequest, SearchResponse
from webreach.net.guard import OfflineResolver
from webreach.net.offline import OfflineScope, OfflineTransport
from webreach.read.service import Reading, extract_file, parse_resolve
from webreach.search.service import EngineStatus, Searching
from webreach.state.sessions import SessionStore, open_session_store

__all__ = ["EngineStatus", "Gateway", "search"]


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
        self.settings = settings
        self._clock = clock or SystemClock()
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
        resolver = OfflineResolver() if offline else None
        self._reading = Reading(
            self._read_settings(), resolver=resolver, clock=self._clock, user_agent=settings.user_agent, offline=offline
        )

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
        await self._reading.aclose()

    def _read_settings(self) -> ReadSettings:
        read = self.settings.read
        if self.settings.fake_web and read.jina_base_url == JINA_READER_URL:
            # offline runs: the Jina reader is played by the fake web too
            return read.model_copy(update={"jina_base_url": f"{self.settings.fake_web.rstrip('/')}/_pages/jina"})
        return read

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

    def engine_names(self) -> list[str]:
        """Every engine name (the registry's, so doors never import engines themselves)."""
        return self._searching.engine_names()

    def engine_statuses(self) -> list[EngineStatus]:
        """Kind, key status and breaker state of every engine."""
        return self._searching.engine_statuses()

    def reset_engine(self, name: str) -> None:
        """Close engine `name`'s circuit breaker and clear its stored suspension (InvalidInputError if unknown)."""
        self._searching.reset_breaker(name)

    def auto_order(self, query: str) -> list[str]:
        """The engines auto mode tries for `query`, in order."""
        return self._searching.auto_order(query)

    def parse_saved(
        self, name: str, body: bytes, *, status: int = 200, content_type: str = "text/html"
    ) -> SearchResponse:
        """Parse a saved response body with engine `name`, offline (how users check a parser after markup changes)."""
        return self._searching.parse_saved(name, body, status=status, content_type=content_type)

    # --- reading -------------------------------------------------------------------------------------------

    async def read(self, request: ReadRequest) -> Page:
        """Read request.url safely, as one window of clean text."""
        return await self._reading.read(request)

    async def extract_file(self, path: Path, *, url: str | None = None, format: ReadFormat = "markdown") -> Extracted:
        """Extract a local HTML or PDF file offline, as the reader would extract it from the web."""
        return await extract_file(path, url=url, format=format)

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
    def sessions(self) -> SessionStore:
        """The session store: numbered refs per session, shared by every door over this gateway."""
        return self._sessions


def search(query: str, *, engine: str = "auto", engines: Sequence[str] | None = None, **fields: Any) -> SearchResponse:
    """One-line synchronous search with settings from webreach.toml / WEBREACH_* (not for use inside an event loop)."""

    async def run() -> SearchResponse:
        async with Gateway.from_settings() as gateway:
            return await gateway.search(SearchRequest.create(query=query, **fields), engine=engine, engines=engines)

    return asyncio.run(run())
