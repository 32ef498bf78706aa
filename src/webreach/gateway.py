"""Gateway: the one object every front door talks to, and Gateway.from_settings(), the composition root.

It owns everything with state or side effects (HTTP clients, policy state, warm-up tokens, the cache store)
so two gateways never share a breaker or a bucket by accident, and closing it releases them all.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict

from webreach import engines as registry
from webreach.clock import Clock, SystemClock
from webreach.config import JINA_READER_URL, EngineSettings, ReadSettings, Settings
from webreach.engine_client import EngineCaller, TokenCache
from webreach.engines import Engine
from webreach.errors import AllEnginesFailedError, InvalidInputError, NotConfiguredError
from webreach.fetch.extracted import Extracted
from webreach.fetch.reading import Reading, extract_file, parse_resolve
from webreach.models import EngineAttempt, Page, ReadFormat, ReadRequest, SearchMeta, SearchRequest, SearchResponse
from webreach.policies import PolicyState, Search, apply_policies
from webreach.routing import Candidate, Router
from webreach.routing.order import default_multi, default_order, is_chinese
from webreach.state.breaker_store import open_breaker_store
from webreach.state.cache_store import open_cache_store
from webreach.state.sessions import open_session_store
from webreach.tools import Dialect, OutputFormat, ToolResult, dispatch, search_result, tool_schemas

RoutingMode = Literal["auto", "multi"]


class EngineStatus(BaseModel):
    """One engine as `webreach engines` shows it."""

    model_config = ConfigDict(frozen=True)

    name: str
    kind: str
    index: str
    supports: tuple[str, ...]
    rate_per_minute: float
    language_hint: str | None
    needs_key: bool
    key_configured: bool
    usable: bool
    reason: str | None
    breaker: str
    retry_after: float | None


class Gateway:
    """Search (and later read) through every configured engine with routing and policies."""

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
        self._transport = transport
        self._clients: dict[str | None, httpx.AsyncClient] = {}
        self._tokens = TokenCache(self._clock)
        self._state = PolicyState(
            clock=self._clock,
            cache=open_cache_store(settings.cache),
            breaker_store=open_breaker_store(settings.state),
            rng=rng or random.Random(),
        )
        self._engines: dict[str, Engine] = {
            name: registry.create(name, self._engine_settings(name), user_agent=settings.user_agent, clock=self._clock)
            for name in registry.names()
        }
        self._searches: dict[str, Search] = {name: self._policy_stack(engine) for name, engine in self._engines.items()}
        self._sessions = open_session_store(
            settings.state.backend,
            settings.state.path,
            clock=self._clock,
            ttl=settings.tools.session_ttl_seconds,
            max_refs=settings.tools.max_refs_per_session,
        )
        self._reading = Reading(self._read_settings(), clock=self._clock, user_agent=settings.user_agent)
        self._router = Router(clock=self._clock, hedge_delay=settings.hedge_delay, deadline=settings.request_deadline)

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
        for client in self._clients.values():
            await client.aclose()
        self._clients.clear()
        self._state.close()
        self._sessions.close()
        await self._reading.aclose()

    # --- composition ----------------------------------------------------------------------------------

    def _engine_settings(self, name: str) -> EngineSettings:
        configured = self.settings.engine(name)
        if self.settings.fake_web and not configured.base_url:
            return configured.model_copy(update={"base_url": f"{self.settings.fake_web.rstrip('/')}/{name}"})
        return configured

    def _read_settings(self) -> ReadSettings:
        read = self.settings.read
        if self.settings.fake_web and read.jina_base_url == JINA_READER_URL:
            # offline runs: the Jina reader is played by the fake web too
            return read.model_copy(update={"jina_base_url": f"{self.settings.fake_web.rstrip('/')}/_pages/jina"})
        return read

    def _client(self, proxy: str | None) -> httpx.AsyncClient:
        if proxy not in self._clients:
            self._clients[proxy] = httpx.AsyncClient(
                transport=self._transport,
                proxy=None if self._transport else proxy,
                trust_env=False,  # engine traffic never picks up environment proxies
                follow_redirects=False,
                timeout=httpx.Timeout(self.settings.engine_timeout, connect=self.settings.connect_timeout),
                limits=httpx.Limits(max_connections=100, max_keepalive_connections=20),
            )
        return self._clients[proxy]

    def _policy_stack(self, engine: Engine) -> Search:
        settings = engine.settings
        proxy = settings.proxy.get_secret_value() if settings.proxy else None
        caller = EngineCaller(
            engine,
            self._client(proxy),
            tokens=self._tokens,
            max_body_bytes=self.settings.max_body_bytes,
        )
        return apply_policies(
            caller,
            engine=engine.name,
            state=self._state,
            rate_per_minute=settings.rate_per_minute or engine.rate_per_minute,
            timeout=settings.timeout or self.settings.engine_timeout,
            retries=self.settings.retries,
            cache_ttl=self.settings.cache.ttl_seconds if self.settings.cache.backend != "none" else 0.0,
        )

    # --- engines ----------------------------------------------------------------------------------------

    def engine_names(self) -> list[str]:
        """Every engine name (the registry's, so doors never import engines themselves)."""
        return list(self._engines)

    def usable(self, name: str) -> bool:
        """True when the engine is enabled and has what it needs (key, instance URL)."""
        try:
            self._engines[name].ensure_configured()
        except NotConfiguredError:
            return False
        return True

    def engine_statuses(self) -> list[EngineStatus]:
        """Kind, key status and breaker state of every engine."""
        statuses = []
        for name, engine in self._engines.items():
            reason = None
            try:
                engine.ensure_configured()
            except NotConfiguredError as exc:
                reason = exc.message
            breaker = self._state.breaker_view(name)
            statuses.append(
                EngineStatus(
                    name=name,
                    kind=engine.kind,
                    index=engine.index,
                    supports=tuple(sorted(engine.supports)),
                    rate_per_minute=engine.settings.rate_per_minute or engine.rate_per_minute,
                    language_hint=engine.language_hint,
                    needs_key=engine.needs_key,
                    key_configured=engine.settings.api_key is not None,
                    usable=reason is None,
                    reason=reason,
                    breaker=breaker.state,
                    retry_after=breaker.retry_after,
                )
            )
        return statuses

    def auto_order(self, query: str) -> list[str]:
        """The engines auto mode tries for `query`, in order."""
        configured = self.settings.auto_order_zh if is_chinese(query) else None
        configured = configured or self.settings.auto_order
        if configured:
            return [self._check_name(n) for n in configured]
        return default_order(query, self.engine_names(), self.usable)

    def multi_engines(self, query: str) -> list[str]:
        """The engines multi mode fans out to by default."""
        if self.settings.multi_engines:
            return [self._check_name(n) for n in self.settings.multi_engines]
        return default_multi(self.auto_order(query), lambda name: self._engines[name].index)

    def _check_name(self, name: str) -> str:
        registry.engine_class(name)  # raises InvalidInputError listing the valid names
        return name

    def _candidate(self, name: str, request: SearchRequest) -> Candidate:
        engine = self._engines[self._check_name(name)]
        return Candidate(
            name=name, index=engine.index, search=self._searches[name], unsupported=engine.unsupported(request)
        )

    def parse_saved(
        self, name: str, body: bytes, *, status: int = 200, content_type: str = "text/html"
    ) -> SearchResponse:
        """Parse a saved response body with engine `name`, offline (how users check a parser after markup changes)."""
        engine = self._engines[self._check_name(name)]
        request = httpx.Request("GET", engine.url("/"))
        response = httpx.Response(status, headers={"content-type": content_type}, content=body, request=request)
        hits = engine.handle(response)
        attempt = EngineAttempt(engine=name, status="ok" if hits else "empty", count=len(hits))
        meta = SearchMeta(mode="engine", engines_used=(name,), attempts=(attempt,))
        return SearchResponse(query="", results=tuple(hits), meta=meta)

    # --- reading -------------------------------------------------------------------------------------------

    async def read(self, request: ReadRequest, *, session: str = "default") -> Page:
        """Read a URL (or a ref from an earlier search in `session`) safely, as one window of clean text."""
        url = request.url if request.url is not None else self._sessions.resolve(session, request.ref or 0)
        return await self._reading.read(request, url=url)

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

    # --- agent tools -----------------------------------------------------------------------------------

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | None,
        *,
        session: str = "default",
        output: OutputFormat = "compact",
    ) -> ToolResult:
        """Run agent tool `name` (web_search, web_search_multi, web_fetch); errors come back rendered, not raised."""
        return await dispatch(
            self,
            name,
            arguments,
            sessions=self._sessions,
            session=session,
            output=output,
            enabled=self.settings.tools.enabled,
        )

    async def search_rendered(
        self,
        request: SearchRequest,
        *,
        engine: str = "auto",
        engines: Sequence[str] | None = None,
        session: str = "default",
        output: OutputFormat = "json",
    ) -> ToolResult:
        """A search rendered as web_search renders it, its results remembered as refs of `session` (CLI)."""
        return await search_result(
            self, request, engine=engine, engines=engines, sessions=self._sessions, session=session, output=output
        )

    def tool_schemas(self, dialect: Dialect, *, strict: bool = False) -> list[dict[str, Any]]:
        """The exposed tools' schemas in an agent framework's dialect (mcp, openai, openai-responses, anthropic)."""
        return tool_schemas(dialect, engines=self.engine_names(), enabled=self.settings.tools.enabled, strict=strict)

    # --- search -----------------------------------------------------------------------------------------

    async def search(
        self,
        request: SearchRequest,
        *,
        engine: str = "auto",
        engines: Sequence[str] | None = None,
    ) -> SearchResponse:
        """Search with one named engine, 'auto' (fallback with hedging) or 'multi' (fan out and merge)."""
        if engine not in ("auto", "multi"):
            if engines:
                raise InvalidInputError("engines applies to engine='auto' or 'multi' only", hint="Drop one of them.")
            return await self._router.single(self._candidate(engine, request), request)
        names = [self._check_name(n) for n in engines] if engines else None
        if engine == "multi":
            names = names or self.multi_engines(request.query)
        else:
            names = names or self.auto_order(request.query)
        if not names:
            raise NotConfiguredError(
                "no engine is usable", hint="Enable a keyless engine or configure an API key (see `webreach engines`)."
            )
        candidates = [self._candidate(n, request) for n in names]
        run = self._router.multi if engine == "multi" else self._router.auto
        try:
            return await run(candidates, request)
        except AllEnginesFailedError as failure:
            stale = self._stale_response(candidates, request, engine, failure)
            if stale is None:
                raise
            return stale

    def _stale_response(
        self, candidates: Sequence[Candidate], request: SearchRequest, mode: str, failure: AllEnginesFailedError
    ) -> SearchResponse | None:
        """Stale-if-error: when every engine failed, an expired cache entry beats nothing (meta says so)."""
        for candidate in candidates:
            result = self._state.lookup_stale(candidate.name, request)
            if result is not None and result.hits:
                meta = SearchMeta(
                    mode=mode,
                    engines_used=(candidate.name,),
                    attempts=failure.attempts,
                    stale=True,
                )
                return SearchResponse(query=request.query, results=result.hits[: request.limit], meta=meta)
        return None


def search(query: str, *, engine: str = "auto", engines: Sequence[str] | None = None, **fields: Any) -> SearchResponse:
    """One-line synchronous search with settings from webreach.toml / WEBREACH_* (not for use inside an event loop)."""

    async def run() -> SearchResponse:
        async with Gateway.from_settings() as gateway:
            return await gateway.search(SearchRequest.create(query=query, **fields), engine=engine, engines=engines)

    return asyncio.run(run())
