"""Searching: the engines, their policy stacks and the router, behind one object the Gateway owns.

It holds everything search keeps between calls (HTTP clients, warm-up tokens, breakers, buckets, the cache)
so two gateways never share a breaker by accident. A Chinese query with no language or region asked for is
searched as language zh, region cn (Baidu and friends first, cn.bing.com for Bing); parameters the caller did
not ask for are never reported as ignored. Every response, the stale-if-error one included, is built by
routing's respond(), the one place `limit` is applied. Candidates are built per search, as routing looks at
them (a cached auto search needs its first only); caching is the cache policy's business alone. Beside it:
engine_settings.py (each engine's settings), engine_status.py (what `webreach engines` shows), saved_pages.py
(`webreach parse`), engine_stacks.py (each engine's policy stack, the HTTP clients).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING

import httpx

from webreach.clock import Clock
from webreach.config import EngineSettings, Settings
from webreach.engines import EngineInfo, Vertical, check_configured, keyless, load
from webreach.errors import AUTO, AllEnginesFailedError, Arg, InvalidInputError, NotConfiguredError, hint
from webreach.models import EngineAttempt, SearchRequest, SearchResponse
from webreach.policies import ParseHealth, PolicyState, Search, probe_stack, without_cache
from webreach.policies.cache import Cache
from webreach.policies.guarded import GuardedCalls
from webreach.providers import Registry, default_registry
from webreach.routing import AttemptListener, Candidate, LazyCandidates, Router, respond
from webreach.routing.order import default_multi, default_order, is_chinese
from webreach.search.canary import CANARY_QUERY, CanaryResult, run_canary
from webreach.search.engine_set import EngineSet
from webreach.search.engine_settings import config_fingerprint, engine_settings
from webreach.search.engine_stacks import EngineClients, policy_stack
from webreach.search.engine_status import EngineStatus as EngineStatus  # the Gateway's and the console's import
from webreach.search.engine_status import engine_statuses, parse_health
from webreach.search.log_redaction import HttpLogRedaction, log_secrets
from webreach.search.orders import Orders, language_defaults
from webreach.search.parsing import EngineParsing
from webreach.search.saved_pages import guess_engine, parse_saved
from webreach.search.warm_up import WarmUpTokens
from webreach.state.backends import open_breakers, open_buckets, open_cache, open_parse_health, open_shared_redis
from webreach.state.breaker_followers import Pickup, open_breaker_followers
from webreach.state.bucket_store import BucketStore

if TYPE_CHECKING:
    from webreach.engines import Engine, Provider
    from webreach.state.redis_connection import RedisConnection


class Searching:
    """Search through every configured engine with routing and policies."""

    def __init__(
        self,
        settings: Settings,
        *,
        clock: Clock,
        transport: httpx.AsyncBaseTransport | None,
        rng: random.Random,
        registry: Registry | None = None,
    ) -> None:
        self.settings = settings
        self.providers = registry or default_registry()  # the engines it searches, the reverse backends it resets
        self._clock = clock
        self._clients = EngineClients(transport)
        self._tokens = WarmUpTokens(clock)
        self._parsing = EngineParsing()
        # one Redis client (one pool) for every store of this instance, when any store lives in Redis
        self._redis = open_shared_redis(settings)
        self._state = PolicyState(
            clock=clock,
            cache=open_cache(settings, self._redis),
            breaker_store=open_breakers(settings, self._redis),
            bucket_store=open_buckets(settings, self._redis),
            fingerprints={
                name: config_fingerprint(self._engine_settings(name)) for name in self.providers.engine_infos()
            },
            rng=rng,
            followers=open_breaker_followers(settings.state),
            parse_health=open_parse_health(settings, self._redis),
        )
        # web and image engines alike (Engine.vertical): one policy stack each, the same machinery, built on first use
        self._engines = self._created_engines()
        self._orders = Orders()  # usable() and auto_order() answers for these engines; reconfigure() starts anew
        self._router = Router(clock=clock, hedge_delay=settings.hedge_delay, deadline=settings.request_deadline)
        self._attempt_listeners: list[AttemptListener] = []
        # keys in request URLs (SerpApi's api_key) must not reach httpx's request log lines
        self._log_redaction = HttpLogRedaction(log_secrets(settings, self._engines.settings.values()))

    @property
    def redis(self) -> RedisConnection | None:
        """The Redis connection every Redis store of this Gateway shares (None when no store is on Redis)."""
        return self._redis

    @property
    def bucket_store(self) -> BucketStore:
        """The rate-limit buckets' store ([state] backend): third-party readers pace in it too (reader_pace.py)."""
        return self._state.bucket_store

    async def aclose(self) -> None:
        """Close the HTTP clients and the policy stores, and take this instance's keys back from the log filter."""
        await self._router.aclose()  # cancelled engine calls unwind first, while their clients are still open
        await self._clients.aclose()
        self._parsing.close()
        self._state.close()
        if self._redis is not None:
            from webreach.state.redis_breaker_store import RedisBreakerStore
            from webreach.state.redis_parse_health_store import RedisParseHealthStore

            for store in (self._state.breaker_store, self._state.parse_health):
                if isinstance(store, RedisBreakerStore | RedisParseHealthStore):
                    await store.flush()  # writes behind still in flight
            await self._redis.aclose()
        self._log_redaction.close()

    def reconfigure(self, settings: Settings) -> None:
        """Take new settings while running (the console's, on every server sharing its database): engines, their
        policy stacks and the keys masked in logs are rebuilt; breakers, buckets, the cache (resized to
        [cache] max_entries, its TTL read anew by the stacks) and clients stay.
        Searches already running finish with what they started with."""
        self.settings = settings
        self._state.cache.resize(settings.cache.max_entries)  # its TTL is read by the policy stacks built below
        engines = self._created_engines()
        self._state.set_fingerprints({name: config_fingerprint(each) for name, each in engines.settings.items()})
        self._engines = engines
        self._orders = Orders()  # the new settings' engines decide usable() and the auto order from now on
        previous = self._log_redaction
        self._log_redaction = HttpLogRedaction(log_secrets(settings, engines.settings.values()))
        previous.close()

    def _created_engines(self) -> EngineSet:
        """Every engine of the provider registry, web and image alike, under the current settings (each built on
        first use: engine_set.py)."""
        return EngineSet(self.providers.engine_infos(), self._engine_settings, self._built_engine)

    def _built_engine(self, info: EngineInfo, settings: EngineSettings) -> tuple[Engine, Search]:
        engine = load(info)(settings, user_agent=self.settings.user_agent, clock=self._clock)
        stack = policy_stack(
            engine, self.settings, self._state, self.engine_client, tokens=self._tokens, parsing=self._parsing
        )
        return engine, stack

    def _engine_settings(self, name: str) -> EngineSettings:
        return engine_settings(self.settings, self.providers, name)

    def engine_client(self, proxy: str | None = None) -> httpx.AsyncClient:
        """The engine HTTP client for `proxy` (None: direct), shared by every engine call of this instance (web and
        image search, reverse image search); closed with it."""
        return self._clients.client(proxy, self.settings)

    def guarded_calls(self) -> GuardedCalls:
        """Engine calls that are not text searches (reverse image search) under this instance's policies."""
        return GuardedCalls(self._state, retries=self.settings.retries)

    # --- engines ----------------------------------------------------------------------------------------

    def engine_names(self) -> list[str]:
        """Every web engine name (the registry's, so doors never import engines themselves)."""
        return [name for name, info in self._engines.infos.items() if info.vertical == "web"]

    def image_engine_names(self) -> list[str]:
        """Every image engine name (`images_<engine>`)."""
        return [name for name, info in self._engines.infos.items() if info.vertical == "images"]

    def usable(self, name: str) -> bool:
        """True when the engine is enabled and has what it needs (key, instance URL).

        Answered once per engine and settings (Orders): an engine's settings are frozen and change only through
        reconfigure(), which starts a new memo. Asking ensure_configured() every time raised and caught a
        NotConfiguredError for every keyed engine on every auto search (about 150 us a call).
        """
        known = self._orders.usable.get(name)
        if known is None:
            known = self._orders.usable[name] = self._configured_now(name)
        return known

    def _configured_now(self, name: str) -> bool:
        try:
            check_configured(self._engines.infos[name], self._engines.settings[name])
        except NotConfiguredError:
            return False
        return True

    def parse_health(self) -> list[ParseHealth]:
        """Which parser read each scraped engine's recent answers (from the state file, so every process's)."""
        return parse_health(self._state, self._engines)

    def engine_statuses(self, reverse: Sequence[Provider] = ()) -> list[EngineStatus]:
        """Kind, key status, breaker state (other processes' changes taken in first) and parse health of every
        engine: web search's, then image search's, then `reverse`, the reverse-image backends (their rules
        engines: the Gateway opens them beside this service, under its breakers)."""
        return engine_statuses(self._state, self._engines, reverse)

    async def canary(self, query: str = CANARY_QUERY, engines: Sequence[str] | None = None) -> list[CanaryResult]:
        """Ask each engine (the configured, usable ones unless named) `query`, bypassing the cache."""
        names = (
            [self._check_name(n) for n in engines] if engines else [n for n in self.engine_names() if self.usable(n)]
        )
        request = SearchRequest.create(query=query)
        searches = {name: without_cache(self._engines.search(name)) for name in names}
        return await run_canary(searches, names, request, self._clock)

    async def probe(self, name: str, query: str = CANARY_QUERY) -> CanaryResult:
        """Ask engine `name` (a web or image engine) `query` for real, past its cache and breaker
        (policies.probe_stack): an operator's "test connection", which changes no breaker state whatever the engine
        answers."""
        request = SearchRequest.create(query=query)
        vertical: Vertical = "images" if name in self.image_engine_names() else "web"
        searches = {name: probe_stack(self._engines.search(self._check_name(name, vertical)))}
        return (await run_canary(searches, [name], request, self._clock))[0]

    def reset_breaker(self, name: str) -> None:
        """Close the circuit breaker of provider `name` (a web or image engine, or a reverse-image backend: the
        registry's) and delete its stored record, in this and later processes."""
        if name not in self.providers.names("reverse"):
            # an unknown name lists the engines, not auto and multi; image engines' breakers reset the same way
            self.providers.engine_info(
                name, allow_modes=False, vertical="images" if name.startswith("images_") else "web"
            )
        self._state.reset_breaker(name)

    def follow_shared_state(self, door: str) -> AbstractAsyncContextManager[None]:
        """While a long-running door serves: take in other processes' breaker changes and say which it applied."""
        return self._state.follow(door)

    async def pickups(self) -> list[Pickup]:
        """After a breaker change: whether each running server has taken it in (waits a few seconds at most)."""
        return await self._state.pickups()

    def auto_order(self, query: str, vertical: Vertical = "web") -> list[str]:
        """The engines auto mode tries for `query`, in order (image search: `[images] engines`, short names).

        It depends on the query only through whether it is Chinese, so it is worked out once per vertical and
        script for the current settings (Orders; reconfigure() starts anew) and copied out."""
        key = (vertical, is_chinese(query))
        order = self._orders.auto.get(key)
        if order is None:
            order = self._orders.auto[key] = tuple(self._auto_order(query, vertical))
        return list(order)

    def _auto_order(self, query: str, vertical: Vertical) -> list[str]:
        if vertical == "images":
            configured = [f"images_{n}" for n in self.settings.images.engines or ()]
        else:
            configured = (self.settings.auto_order_zh if is_chinese(query) else None) or self.settings.auto_order or []
        if configured:
            return [self._check_name(n, vertical) for n in configured]
        known = self.engine_names() if vertical == "web" else self.image_engine_names()
        order = default_order(query, known, self.usable, vertical)
        # an anonymous tier (keyless Jina) is tried after the rest unless a configured order says otherwise
        return sorted(order, key=lambda name: keyless(self._engines.infos[name], self._engines.settings[name]))

    def multi_engines(self, query: str, vertical: Vertical = "web") -> list[str]:
        """The engines multi mode fans out to by default."""
        if vertical == "images":
            configured = [f"images_{n}" for n in self.settings.images.multi_engines or ()]
        else:
            configured = self.settings.multi_engines or []
        if configured:
            return [self._check_name(n, vertical) for n in configured]
        return default_multi(self.auto_order(query, vertical), lambda name: self._engines.configured[name].index)

    def _check_name(self, name: str, vertical: Vertical = "web") -> str:
        self.providers.engine_info(name, vertical=vertical)  # raises InvalidInputError listing the valid names
        return name

    def _candidate(self, name: str, request: SearchRequest) -> Candidate:
        """Engine `name` (a checked name: _check_name, or an order built from the engines) behind its policy stack,
        as routing asks it for `request` (built per search: it is cheap). Checking the names again here, 11 per
        auto search, was a sixth of a cached auto search's CPU."""
        engine, search = self._engines.engine(name), self._engines.search(name)  # built on a search's first ask
        return Candidate(
            name=name, index=engine.index, search=search, unsupported=engine.unsupported(request),
            on_attempt=self._tell_attempt if self._attempt_listeners else None,
            at_once=search.at_once if isinstance(search, Cache) else None,
        )  # fmt: skip

    def _route(
        self, engine: str, engines: Sequence[str] | None, vertical: Vertical, asked: SearchRequest
    ) -> tuple[Sequence[Candidate], SearchRequest]:
        """The candidates routing asks (a named engine's one; auto's or multi's, built as routing looks at them: a
        cached auto answer needs its first only) and the request it asks them (language defaults applied). Kept per
        request object for these settings (Orders.routes) unless the caller names its engines: the tools plan a
        repeated call once, so a cached search meets the same frozen request again (tools/planned_calls.py)."""
        key = (engine, vertical, id(asked), bool(self._attempt_listeners))
        known = None if engines else self._orders.routes.get(key)
        if known is not None and known[0] is asked:  # the request is held with them: its id is not reused
            return known[1], known[2]
        request = language_defaults(asked)
        if engine not in ("auto", "multi"):
            candidates: Sequence[Candidate] = (self._candidate(self._check_name(engine, vertical), asked),)
        else:
            names = [self._check_name(n, vertical) for n in engines] if engines else None
            if engine == "multi":
                names = names or self.multi_engines(request.query, vertical)
            else:
                names = names or self.auto_order(request.query, vertical)
            if not names:
                raise NotConfiguredError(
                    "no engine is usable",
                    hint="Enable a keyless engine or configure an API key (see `webreach engines`).",
                )
            candidates = LazyCandidates(names, lambda name: self._candidate(name, asked))  # every name checked
        if not engines:
            self._orders.keep(key, (asked, candidates, request))
        return candidates, request

    def add_attempt_listener(self, listener: AttemptListener) -> None:
        """Tell `listener` of every engine attempt as it ends, while searches go on (the CLI's -v streams them)."""
        self._attempt_listeners.append(listener)

    def _tell_attempt(self, attempt: EngineAttempt) -> None:
        for listener in self._attempt_listeners:
            listener(attempt)

    def parse_saved(
        self,
        name: str,
        body: bytes,
        *,
        status: int = 200,
        content_type: str = "text/html",
        headers: Sequence[tuple[bytes, bytes]] | None = None,
    ) -> SearchResponse:
        """Parse a saved response body with engine `name` ("auto": the engine the page looks like), offline
        (search/saved_pages.py)."""
        engine = self._engines.engine(self.guess_engine(body) if name == "auto" else self._check_name(name))
        return parse_saved(engine, body, status=status, content_type=content_type, headers=headers)

    def guess_engine(self, body: bytes) -> str:
        """The web engine whose page markers `body` carries most (InvalidInputError when none or a tie)."""
        return guess_engine([self._engines.engine(name) for name in self.engine_names()], body)

    # --- search -----------------------------------------------------------------------------------------

    async def search(
        self,
        request: SearchRequest,
        *,
        engine: str = "auto",
        engines: Sequence[str] | None = None,
        vertical: Vertical = "web",
    ) -> SearchResponse:
        """Search with one named engine, 'auto' (fallback with hedging) or 'multi' (fan out and merge); image
        search (vertical "images", engines `images_<name>`) runs through the same routing and policies."""
        if engine not in ("auto", "multi") and engines:
            raise InvalidInputError(
                f"a list of engines applies to the auto and multi modes only, not to one engine ({engine})",
                hint=hint("Use {} or {}, or drop {}.", AUTO, Arg("engine", "multi"), Arg("engines")),
            )
        candidates, request = self._route(engine, engines, vertical, request)
        if engine not in ("auto", "multi"):
            answered = self._router.single_at_once(candidates[0], request)
            return answered if answered is not None else await self._router.single_asked(candidates[0], request)
        run = self._router.multi if engine == "multi" else self._router.auto
        try:
            return await run(candidates, request)
        except AllEnginesFailedError as failure:
            stale = await self._stale_response(candidates, request, engine, failure)
            if stale is None:
                raise
            return stale

    def answers_at_once(self, request: SearchRequest, *, engine: str, engines: Sequence[str] | None) -> bool:
        """Whether search() would answer `request` now with no I/O: the engine routing asks first (a named one, or
        auto's first, with hits) has a fresh in-process cache entry for it. Nothing is reported. Metering charges
        such a call in one transaction after it answered (tools/accounting.py)."""
        if engine == "multi" or (engine != "auto" and engines):
            return False
        try:  # the names search() checks; a bad one is its refusal to make, not an answer at once
            names = [self._check_name(name) for name in engines] if engines else None
            first = self._check_name(engine) if engine != "auto" else (names or self.auto_order(request.query))[0]
        except (InvalidInputError, IndexError):
            return False
        at_once = self._candidate(first, request).at_once
        found = None if at_once is None else at_once(language_defaults(request))
        return found is not None and (engine != "auto" or bool(found.hits))

    async def _stale_response(
        self, candidates: Sequence[Candidate], request: SearchRequest, mode: str, failure: AllEnginesFailedError
    ) -> SearchResponse | None:
        """Stale-if-error: when every engine failed, an expired cache entry beats nothing (meta says so)."""
        for candidate in candidates:
            ignores = self._engines.engine(candidate.name).ignores  # built: it was a candidate
            result = await self._state.lookup_stale(candidate.name, request, ignores)
            if result is not None and result.hits:
                return respond(
                    request, mode, result.hits, engines_used=[candidate.name], attempts=failure.attempts, stale=True
                )
        return None
