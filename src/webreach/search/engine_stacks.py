"""Each engine's policy stack over its caller, and the engine HTTP clients (one per proxy) the callers share."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

import httpx

from webreach.config import Settings, effective_proxy
from webreach.policies import PolicyState, Search, apply_policies
from webreach.search.engine_caller import EngineCaller
from webreach.search.parsing import EngineParsing
from webreach.search.warm_up import WarmUpTokens

if TYPE_CHECKING:
    from webreach.engines import Engine


class EngineClients:
    """The engine HTTP clients of one Searching, one per proxy (None: direct), each built on first use."""

    def __init__(self, transport: httpx.AsyncBaseTransport | None) -> None:
        self._transport = transport
        self._clients: dict[str | None, httpx.AsyncClient] = {}

    def client(self, proxy: str | None, settings: Settings) -> httpx.AsyncClient:
        """The client for `proxy` (its timeouts `settings`' when it is built)."""
        if proxy not in self._clients:
            self._clients[proxy] = httpx.AsyncClient(
                transport=self._transport,
                proxy=None if self._transport else proxy,
                trust_env=False,  # engine traffic never picks up environment proxies
                follow_redirects=False,
                timeout=httpx.Timeout(settings.engine_timeout, connect=settings.connect_timeout),
                limits=httpx.Limits(max_connections=100, max_keepalive_connections=20),
            )
        return self._clients[proxy]

    async def aclose(self) -> None:
        for client in self._clients.values():
            await client.aclose()
        self._clients.clear()


def policy_stack(
    engine: Engine,
    settings: Settings,
    state: PolicyState,
    client_for: Callable[[str | None], httpx.AsyncClient],
    *,
    tokens: WarmUpTokens,
    parsing: EngineParsing,
) -> Search:
    """`engine` behind its caller (the client of its proxy, or [network] proxy's, built on its first call) and the
    policies, under `settings`."""
    own = engine.settings
    caller = EngineCaller(
        engine,
        functools.partial(client_for, effective_proxy(own.proxy, settings.network.proxy)),
        tokens=tokens,
        max_body_bytes=settings.max_body_bytes,
        parsing=parsing,
    )
    return apply_policies(
        caller,
        engine=engine.name,
        state=state,
        rate_per_minute=own.rate_per_minute or engine.rate_per_minute,
        timeout=own.timeout or settings.engine_timeout,
        retries=settings.retries,
        cache_ttl=settings.cache.ttl_seconds if settings.cache.backend != "none" else 0.0,
        ignores=engine.ignores,
    )
