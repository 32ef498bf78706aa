"""Fake engine searches for routing tests: answer, fail with a typed error, or hang until cancelled."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from webreach.errors import SuspendedError, WebreachError
from webreach.models import Hit, SearchRequest
from webreach.policies import EngineResult
from webreach.routing import Candidate


def hits(engine: str, *urls: str, snippet: str = "") -> tuple[Hit, ...]:
    return tuple(
        Hit(rank=i, title=f"{engine} {i}", url=url, snippet=snippet, engine=engine) for i, url in enumerate(urls, 1)
    )


class FakeSearch:
    """A Search that answers `urls`, raises `error`, or (hang=True) waits until released or cancelled."""

    def __init__(
        self,
        engine: str,
        urls: Sequence[str] = (),
        *,
        error: BaseException | None = None,
        hang: bool = False,
        cached: bool = False,
        stale: bool = False,
    ) -> None:
        self.engine = engine
        self.urls = tuple(urls)
        self.error = error
        self.hang = hang
        self.cached = cached
        self.stale = stale
        self.calls = 0
        self.cancelled = False
        self.release = asyncio.Event()

    async def __call__(self, request: SearchRequest) -> EngineResult:
        self.calls += 1
        if self.hang:
            try:
                await self.release.wait()
            except asyncio.CancelledError:
                self.cancelled = True
                raise
        if self.error is not None:
            raise self.error
        return EngineResult(hits=hits(self.engine, *self.urls), cached=self.cached, stale=self.stale)


class OpenBreaker:
    """A stand-in for the breaker policy while open: refuses without calling the engine underneath."""

    def __init__(self, inner: FakeSearch, retry_after: float) -> None:
        self.inner = inner
        self.retry_after = retry_after

    async def __call__(self, request: SearchRequest) -> EngineResult:
        raise SuspendedError("circuit open after repeated captchas", retry_after=self.retry_after)


def candidate(
    name: str,
    urls: Sequence[str] = (),
    *,
    index: str | None = None,
    error: WebreachError | BaseException | None = None,
    hang: bool = False,
    unsupported: tuple[str, ...] = (),
    stale: bool = False,
) -> tuple[Candidate, FakeSearch]:
    search = FakeSearch(name, urls, error=error, hang=hang, stale=stale)
    return Candidate(name=name, index=index or name, search=search, unsupported=unsupported), search
