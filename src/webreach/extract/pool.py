"""Reusable extraction processes for ordinary pages: a few pre-forked children that each extract one page at a time,
killed and replaced when one overruns its deadline.

    pool = WorkerPool(context, size=2, memory_bytes=1024 * MIB)
    message = await pool.run(job, cpu_seconds=13)   # under the caller's asyncio.timeout
    await pool.aclose()

Why: lxml's parser and trafilatura run in C and Python that a thread cannot interrupt, so a page that took
minutes to parse (one tag of 200,000 attributes) held its thread after the read had answered 504, and six of them
held every thread the server extracts with. A process can be killed. Starting one per page costs about what
extracting an ordinary page costs, so the children are kept: a page is sent over a pipe to an idle child, and its
result (or its typed error) comes back the same way.

Per call: a free child is taken (or started, forked from the forkserver that has the extractor imported); the
child raises its CPU limit (RLIMIT_CPU) to what it has used plus `cpu_seconds`, so a page that overran would be
stopped by the kernel even if nobody waited for it; its address space stays capped (RLIMIT_AS) at its size at
start plus `memory_bytes`. When the caller's deadline passes or the call is cancelled, the child is killed at once
and a new one is started for the next page. A child that ran out of memory, died, or served `max_jobs` pages is
retired too, so nothing a page did outlives a few calls. At most `size` pages are extracted at once; the others
wait for a free child, and the wait counts against their deadline.

What it costs an ordinary page (a few ms at most, most of it pickling) is measured in worker.py's docstring.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import resource
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext, SpawnContext
from typing import Any

MAX_JOBS = 500  # pages one child extracts before it is replaced (bounds what fragmentation can grow to)


@dataclass
class _Child:
    process: Any
    connection: Connection
    jobs: int = field(default=0)


class WorkerPool:
    """Up to `size` reusable children, each running `serve(connection, memory_bytes)`; see the module docstring."""

    def __init__(
        self,
        context: ForkServerContext | SpawnContext,
        serve: Callable[[Connection, int], None],
        *,
        size: int,
        memory_bytes: int,
        max_jobs: int = MAX_JOBS,
    ) -> None:
        self._context, self._serve = context, serve
        self._memory_bytes, self._max_jobs = memory_bytes, max_jobs
        self._slots = asyncio.Semaphore(size)
        self._idle: list[_Child] = []
        self._closed = False  # after aclose, a child coming back from its call is stopped, not kept
        self._warming: asyncio.Future[_Child] | None = None

    async def run(self, job: Any, *, cpu_seconds: float, retire: Callable[[Any], bool]) -> Any:
        """Send `job` to a free child and return its answer (None when it died without one); a child whose
        answer `retire` flags, or whose call did not end with an answer, is killed and not reused."""
        async with self._slots:
            child = await self._child()
            answer: Any = None
            try:
                await asyncio.to_thread(_send, child.connection, (job, math.ceil(cpu_seconds)))
                await readable(child.connection)
                answer = await asyncio.to_thread(receive, child.connection)
            finally:
                child.jobs += 1
                if answer is None or retire(answer) or child.jobs >= self._max_jobs or self._closed:
                    await _stop(child)
                else:
                    self._idle.append(child)
            return answer

    def warm(self) -> None:
        """Start a child in the background when none is idle or starting, so that the first page need not wait
        for the forkserver to import the extractor (a second or two) while its deadline runs."""
        if self._idle or self._warming is not None or self._closed:
            return
        self._warming = asyncio.ensure_future(asyncio.to_thread(self._start))
        self._warming.add_done_callback(self._warmed)

    def _warmed(self, starting: asyncio.Future[_Child]) -> None:
        self._warming = None
        self._keep(starting)

    async def _child(self) -> _Child:
        """An idle child that is still alive (one killed from outside is replaced), the one starting in the
        background when there is one, else a new one."""
        while True:
            while self._idle:
                child = self._idle.pop()
                if child.process.is_alive():
                    return child
                await _stop(child)
            if self._warming is None:
                return await self._started()
            with contextlib.suppress(Exception):  # a start that failed is retried by _started
                await asyncio.shield(self._warming)
            await asyncio.sleep(0)  # its done callbacks (which make it idle) run first

    async def _started(self) -> _Child:
        """A new child; one still starting when the call is cancelled joins the idle ones, ready for the next."""
        starting = asyncio.ensure_future(asyncio.to_thread(self._start))
        try:
            return await asyncio.shield(starting)
        except asyncio.CancelledError:
            starting.add_done_callback(self._keep)
            raise

    def _keep(self, starting: asyncio.Future[_Child]) -> None:
        if starting.cancelled() or starting.exception() is not None:
            return
        child = starting.result()
        if self._closed:
            child.connection.close()  # EOF: the child's loop ends by itself
        else:
            self._idle.append(child)

    def _start(self) -> _Child:
        receiver, sender = self._context.Pipe(duplex=True)
        process = self._context.Process(target=self._serve, args=(sender, self._memory_bytes), daemon=True)
        process.start()
        sender.close()  # the child holds its own end: EOF on ours now means the child is gone
        return _Child(process, receiver)

    async def aclose(self) -> None:
        """Stop the idle children and the one starting in the background (a replacement for a killed child may
        still be starting), so none outlives the pool; a busy one is stopped by the call that holds it."""
        self._closed = True
        warming = self._warming
        if warming is not None:
            with contextlib.suppress(Exception):  # a start that failed left nothing to stop
                await _stop(await asyncio.shield(warming))
        idle, self._idle = self._idle, []
        for child in idle:
            await _stop(child)


async def _stop(child: _Child) -> None:
    child.connection.close()
    if child.process.is_alive():
        child.process.kill()  # a signal: immediate, so a cancelled call stops its child before anything else
    await asyncio.to_thread(reap, child.process)


def reap(process: Any) -> int | None:
    """Kill the child if it still runs, wait for it and free its resources; its exit code."""
    if process.pid is None:  # never started
        return None
    if process.is_alive():
        process.kill()
    process.join(timeout=5)
    exitcode: int | None = process.exitcode
    if exitcode is not None:
        process.close()
    return exitcode


async def readable(connection: Connection) -> None:
    """Wait, without a thread, until `connection` has data or its other end closed."""
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[None] = loop.create_future()
    descriptor = connection.fileno()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(descriptor, wake)
    try:
        await ready
    finally:
        loop.remove_reader(descriptor)


def _send(connection: Connection, message: Any) -> None:
    try:
        connection.send(message)
    except OSError:  # the child died before it read the job: the receive that follows finds EOF
        return


def receive(connection: Connection) -> Any:
    try:
        return connection.recv()
    except (EOFError, OSError):  # the child died (killed, out of memory, over its CPU time) before it answered
        return None


def limit_cpu(seconds: int) -> None:
    """In a child: let it use `seconds` more CPU time from now, after which the kernel stops it (SIGXCPU)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime) + max(1, seconds)
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
