"""Engine answers parsed off the event loop under a time budget, and every parser failure typed.

    parsing = EngineParsing()
    page = await parsing.handle(engine, response)   # a ParsedPage, or a typed EngineError; never another exception

Where a parse runs: an answer of at most INLINE_BYTES is parsed in the caller's task; a larger one in one of
`threads` worker threads that this object owns (not the loop's default executor, which the read path's DNS
lookups share). Measured on the 40 real result pages in ../shared/data/serp (6 KB-1.8 MB; python -m
bench.engine_hot_path, 2 busy cores): a parse costs 0.1-30 ms, about 2 ms for a 250 KB page; the hop
to a thread and back adds 0.19 ms (median over the pages above INLINE_BYTES). Answers up to 32 KB (API JSON,
error and no-results pages) parse in well under 1 ms, less than a hop is worth, so they stay inline; result
pages go to a thread, where lexbor parses without the GIL and the loop keeps serving meanwhile.

A thread cannot be killed, so the work a thread does is kept linear in the input (attribute floods cut and
nesting.tame before lexbor sees the page, at most MAX_ITEMS result blocks read, Google's block search counted in
one pass); the budget is the backstop: a parse still running after `seconds` (real time, as in
policies/deadline.py: it measures CPU work, which a fake clock cannot) ends as a ParseError for that engine and
routing moves on, while the thread finishes in the background. The engine's own deadline (policies/deadline.py)
wraps this too, so a parse never outlives the request's deadline either.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import httpx

from webreach.engines import Engine
from webreach.engines._base import ParsedPage
from webreach.errors import AUTO, ParseError, hint

T = TypeVar("T")
INLINE_BYTES = 32 * 1024
PARSE_SECONDS = 5.0
PARSE_THREADS = 2


class EngineParsing:
    """Runs Engine.handle inline or in a worker thread, under a time budget; owned by one Searching."""

    def __init__(self, *, seconds: float = PARSE_SECONDS, threads: int = PARSE_THREADS) -> None:
        self.seconds = seconds
        self._threads = threads
        self._pool: ThreadPoolExecutor | None = None  # started at the first large answer

    async def handle(self, engine: Engine, response: httpx.Response) -> ParsedPage:
        """engine.handle_page(response): hits (and which parser found them) or a typed error, within `seconds`
        for a large answer."""
        return await self._run(engine, response, engine.handle_page)

    async def warm_up_tokens(self, engine: Engine, response: httpx.Response) -> dict[str, str]:
        """engine.warm_up_tokens(response) (a warm-up answer is a whole page too), under the same rules."""
        return await self._run(engine, response, engine.warm_up_tokens)

    async def _run(self, engine: Engine, response: httpx.Response, read: Callable[[httpx.Response], T]) -> T:
        if len(response.content) <= INLINE_BYTES:
            return read(response)
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self._threads, thread_name_prefix="webreach-parse")
        loop = asyncio.get_running_loop()
        work = loop.run_in_executor(self._pool, read, response)
        try:
            async with asyncio.timeout(self.seconds):
                return await work
        except TimeoutError:
            raise ParseError(
                f"reading its answer ({len(response.content):,} bytes) took longer than {self.seconds:g} s",
                engine=engine.name,
                hint=hint("The page is built to be slow to parse; use another engine or {}.", AUTO),
            ) from None

    def close(self) -> None:
        """Stop the worker threads (a parse still running finishes on its own; nobody waits for it)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
