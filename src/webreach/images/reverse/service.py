"""Reverse image search across the configured backends: auto fallback with the classification of web search.

backend "auto" asks the backends in [images] reverse_backends order and answers with the first that returns
matches (an empty answer moves on too: another index may know the image), listing why the earlier ones failed or
found nothing; a named backend is asked alone and its error raised. Each call runs under web search's policy
stack (breaker, rate limit, retry, deadline) through the injected CallGuard (policies/guarded.py), so a backend
that shows a CAPTCHA rests like an engine does. Backends that only take URLs get the image's own public URL
when the agent gave one, else the storage's (images/storage.py); with storage = inline they are skipped with
NotConfiguredError, which auto reports and moves past.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Protocol, TypeVar

import httpx

from webreach.clock import Clock
from webreach.config import EngineSettings, Settings, effective_proxy
from webreach.errors import (
    AllEnginesFailedError,
    EngineError,
    EngineTimeoutError,
    InvalidInputError,
    NotConfiguredError,
    UnavailableError,
    WebreachError,
)
from webreach.images.reverse import ReverseBackend
from webreach.images.reverse.models import ReverseHit, ReverseQuery, deduplicated
from webreach.images.storage import Storage

T = TypeVar("T")


class CallGuard(Protocol):
    """Runs one backend call under the policy stack (policies/guarded.py GuardedCalls satisfies it)."""

    async def run(
        self, engine: str, call: Callable[[], Awaitable[T]], *, rate_per_minute: float, timeout: float
    ) -> T: ...


# the reverse-image backends by name, in the registry's order (webreach/providers.py reverse_backends)
Backends = Mapping[str, type[ReverseBackend]]
# the engine HTTP client for a proxy (None: direct): the search service's (Searching.engine_client), so reverse
# backends share web search's connection pools, transport (the fake web offline) and proxies
ClientFor = Callable[[str | None], httpx.AsyncClient]


def backend_settings(settings: Settings, cls: type[ReverseBackend]) -> EngineSettings:
    """A backend's settings: its web engine's (serpapi, bing, searxng), overridden by its own entry; offline,
    its base URL is the fake web's route for it."""
    base = settings.engine(cls.web_engine) if cls.web_engine else EngineSettings()
    own = settings.images.reverse_settings.get(cls.name)
    merged = base.model_copy(update=own.model_dump(exclude_unset=True)) if own is not None else base
    if settings.fake_web and not (own is not None and own.base_url):
        merged = merged.model_copy(update={"base_url": f"{settings.fake_web.rstrip('/')}/reverse_{cls.name}"})
    return merged


def backends_of(settings: Settings, clock: Clock, classes: Backends) -> dict[str, ReverseBackend]:
    """Every reverse-image backend of `classes`, configured by `settings` (no I/O: `webreach engines` lists them
    so)."""
    return {
        name: cls(backend_settings(settings, cls), user_agent=settings.user_agent, clock=clock)
        for name, cls in classes.items()
    }


class ReverseSearch:
    """The registry's reverse-image backends (`backends`), configured by `settings`, asked over `client_for`'s
    clients under `guard`."""

    def __init__(
        self,
        settings: Settings,
        *,
        backends: Backends,
        client_for: ClientFor,
        guard: CallGuard,
        storage: Storage,
        clock: Clock,
    ) -> None:
        unknown = sorted(set(settings.images.reverse_backends) - set(backends))
        if unknown:
            raise InvalidInputError(
                f"unknown reverse-image backend {', '.join(unknown)}", hint=f"Valid: {', '.join(backends)}."
            )
        self.backends = backends_of(settings, clock, backends)
        self.order = list(settings.images.reverse_backends)
        self.storage = storage
        self._client_for, self._guard = client_for, guard
        self._network_proxy = settings.network.proxy  # a backend's own proxy (or its web engine's) comes first
        self._timeout, self._max_body = settings.engine_timeout, settings.max_body_bytes

    def names(self) -> list[str]:
        return list(self.backends)

    async def search(
        self, data: bytes, mime: str, *, url: str | None, limit: int, backend: str = "auto"
    ) -> tuple[str, tuple[ReverseHit, ...], tuple[str, ...]]:
        """(backend that answered, hits, why earlier backends did not): from `backend` alone or auto's order."""
        if backend != "auto" and backend not in self.backends:
            raise InvalidInputError(
                f"unknown reverse-image backend {backend!r}", hint=f"Valid: auto, {', '.join(self.backends)}."
            )
        names = self.order if backend == "auto" else [backend]
        query = ReverseQuery(data, mime, url, limit)
        failures: list[str] = []
        errors: list[WebreachError] = []
        for name in names:
            chosen = self.backends[name]
            try:
                query = await self._with_url(chosen, query)
                chosen.ready(query)
                hits = await self._ask(chosen, query)
            except (EngineError, NotConfiguredError) as exc:
                if backend != "auto":
                    raise
                failures.append(f"{name}: {exc.code}")
                errors.append(exc)
                continue
            if hits or backend != "auto":
                return name, deduplicated(hits, limit), tuple(failures)
            failures.append(f"{name}: no_results")
        if errors:
            raise AllEnginesFailedError("no reverse-image backend answered", errors=errors)
        return (names[-1] if names else "auto"), (), tuple(failures)

    async def _with_url(self, backend: ReverseBackend, query: ReverseQuery) -> ReverseQuery:
        """`query` with a URL from the storage when `backend` needs one and it has none yet (asked once)."""
        if query.url is not None or backend.takes_upload or self.storage.mode == "inline":
            return query
        url = await self.storage.url_for(query.data, query.mime)
        return ReverseQuery(query.data, query.mime, url, query.limit)

    async def _ask(self, backend: ReverseBackend, query: ReverseQuery) -> list[ReverseHit]:
        async def call() -> list[ReverseHit]:
            try:
                return await backend.search(query, self._sender(backend))
            except WebreachError:
                raise
            except Exception as exc:  # a parser bug on a hostile answer is the backend's ParseError
                raise backend.rules.unreadable(exc) from None

        rate = backend.settings.rate_per_minute or backend.rate_per_minute
        timeout = backend.settings.timeout or self._timeout
        return await self._guard.run(backend.name, call, rate_per_minute=rate, timeout=timeout)

    def _sender(self, backend: ReverseBackend) -> Callable[[httpx.Request], Awaitable[httpx.Response]]:
        name = backend.name
        client = self._client_for(effective_proxy(backend.settings.proxy, self._network_proxy))

        async def send(request: httpx.Request) -> httpx.Response:
            try:
                response = await client.send(request, stream=True)
                try:
                    body = await _bounded(response, self._max_body, name)
                finally:
                    await response.aclose()
            except httpx.TimeoutException:
                raise EngineTimeoutError("did not answer in time", engine=name) from None
            except httpx.HTTPError as exc:
                raise UnavailableError(f"could not be reached ({type(exc).__name__})", engine=name) from None
            return httpx.Response(response.status_code, headers=response.headers, content=body, request=request)

        return send


async def _bounded(response: httpx.Response, limit: int, engine: str) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > limit:
            raise UnavailableError(f"answered with more than {limit:,} bytes", engine=engine)
        chunks.append(chunk)
    return b"".join(chunks)
