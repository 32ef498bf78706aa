"""Every extraction in a child process that can be killed, under time, CPU, memory and concurrency budgets.

    workers = ExtractionWorkers()
    extracted = await workers.extract(body, content_type=..., url=..., format="markdown", seconds=12.5)
    await workers.aclose()

Why a process: a thread running pypdf or lxml cannot be stopped, so a hostile PDF (a 560 KB file whose pages
inflate to 70 MB each) used to hold a thread and gigabytes of memory for minutes, whatever the read's timeout, and
an HTML page of one tag with 200,000 attributes held its thread as long (six of them held every thread reads
extract in: each later read answered 504 until a restart). A child process can be killed, and its memory is its own.

Two kinds of children:
- A heavy body (`is_heavy`: a PDF, as sniff.py decides, or any body over `heavy_bytes`) gets a fresh child of its
  own, forked from a forkserver that has the extractor imported already, so nothing outlives a kill. At most
  `max_concurrent` run at once; the others wait their turn, and the wait counts against their time. The child
  stops starting new PDF pages after `soft_share` of the time (the result notes the pages left).
- Any other page goes to one of `pool_size` reusable children (pool.py): starting a child per page would cost
  about what extracting it costs. Heavy bodies never take these, so an ordinary page never waits behind a PDF.
Either way the child's address space is capped (RLIMIT_AS) at its size at start plus `memory_bytes` (an allocation
past that fails inside the child: MemoryError, reported as ResponseTooLargeError, and the child is replaced), its
CPU time per call at the call's seconds (RLIMIT_CPU), and when the time is up the parent kills it and raises
FetchTimeoutError. The result (an Extracted, or the typed error the extractor raised) comes back over a pipe; a
child that dies without answering is an ExtractionError.

Cost for ordinary pages (bench/extraction_worker.py, 200 WCXB dev pages, each the median of 3 runs, taken in turn on
a shared 2-core machine under a load of about 9, which slowed every extraction about fivefold): median 142.29 ms a
page in this process, 145.63 ms through the pool (+3.3 ms: pickling the page and its result, the pipe both ways,
two thread hops; a second run, beside a test suite, gave 241.30 in process and 233.84 through the pool: the
difference is within the noise); the attribute-flood scan inside extract 0.32-0.33 ms (attribute_floods.py).
Outputs are identical both ways, and identical to before the scan on those 200 pages and all 181 AEB pages (text
and markdown). Starting a pool's child costs about 45 ms once the forkserver runs; the forkserver's own start, once
a process, about 2 s (it imports the extractor). A read's start begins a child in the background (warm).
"""

from __future__ import annotations

import asyncio
import logging
import math
import multiprocessing
import os
import resource
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext, SpawnContext
from typing import Any

from webreach.errors import (
    READ_WITH_JINA,
    ExtractionError,
    FetchTimeoutError,
    ResponseTooLargeError,
    WebreachError,
    hint,
)
from webreach.extract.cascade import ExtractOptions, extract
from webreach.extract.extracted import Extracted
from webreach.extract.pool import WorkerPool, limit_cpu, readable, reap, receive
from webreach.extract.sniff import sniff
from webreach.models import ReadFormat
from webreach.telemetry import Tracing

LOGGER = logging.getLogger(__name__)
MIB = 1024 * 1024
TIMEOUT_HINT = "The document takes too long to extract; raise the timeout, or read another source."
CRASH_HINT = hint("The extractor stopped on this document; try {} or another source.", READ_WITH_JINA)


@dataclass(frozen=True)
class WorkerBudget:
    """What heavy extractions may use; the defaults suit a server with a few GB of memory."""

    max_concurrent: int = 2  # children at once: each can use a CPU core and `memory_bytes`
    memory_bytes: int = 1024 * MIB  # address space a child may add to what it starts with
    heavy_bytes: int = 4 * MIB  # bodies larger than this go to a child whatever their kind
    soft_share: float = 0.8  # share of the time after which no new PDF page is started
    pool_size: int = 2  # reusable children for ordinary pages (pool.py): pages extracted at once


@dataclass(frozen=True)
class _Job:
    body: bytes
    content_type: str | None
    url: str
    format: ReadFormat
    options: ExtractOptions
    memory_bytes: int
    cpu_seconds: int


class ExtractionWorkers:
    """Runs extractions in killable child processes: heavy bodies each in a fresh child, a bounded number at once;
    other pages in a small pool of reusable children (pool.py)."""

    def __init__(self, budget: WorkerBudget | None = None, *, tracing: Tracing | None = None) -> None:
        """`tracing`: an `extract` span per extraction (None: none, telemetry.py)."""
        self.budget = budget = budget or WorkerBudget()
        self._tracing = tracing
        self._context = _process_context()
        self._slots = asyncio.Semaphore(budget.max_concurrent)
        self._pool = WorkerPool(self._context, _serve, size=budget.pool_size, memory_bytes=budget.memory_bytes)

    def is_heavy(self, body: bytes, content_type: str | None, url: str) -> bool:
        """Whether `body` gets a fresh child of its own rather than one of the pool's."""
        return len(body) > self.budget.heavy_bytes or sniff(body, content_type, url).kind == "pdf"

    async def extract(
        self,
        body: bytes,
        *,
        content_type: str | None,
        url: str,
        format: ReadFormat = "markdown",
        options: ExtractOptions | None = None,
        seconds: float,
    ) -> Extracted:
        """extract(...) in a child process, within `seconds` (waiting for a free child included)."""
        if self._tracing is None:
            return await self._extract(body, content_type, url, format, options, seconds)
        attributes = {"webreach.extract.bytes": len(body), "webreach.extract.format": format}
        with self._tracing.span("extract", attributes) as span:
            extracted = await self._extract(body, content_type, url, format, options, seconds)
            span.set_attribute("webreach.extract.page_type", extracted.page_type or "")
            return extracted

    async def _extract(
        self,
        body: bytes,
        content_type: str | None,
        url: str,
        format: ReadFormat,
        options: ExtractOptions | None,
        seconds: float,
    ) -> Extracted:
        options = replace(options or ExtractOptions(), pdf_seconds=seconds * self.budget.soft_share)
        job = _Job(body, content_type, url, format, options, self.budget.memory_bytes, math.ceil(seconds))
        try:
            async with asyncio.timeout(seconds):
                if self.is_heavy(body, content_type, url):
                    async with self._slots:
                        outcome = await self._run(job)
                else:
                    answer = await self._pool.run(job, cpu_seconds=seconds, retire=_retires)
                    outcome = _outcome(answer, None, url)
        except TimeoutError:
            raise FetchTimeoutError(
                f"Extracting {_name(url)} did not finish within the read's {seconds:.3g} s deadline.",
                url=url or None,
                hint=TIMEOUT_HINT,
            ) from None
        if isinstance(outcome, Extracted):
            return outcome
        raise outcome

    async def _run(self, job: _Job) -> Extracted | WebreachError:
        """Start a child for `job` and wait for its answer; the child is killed however this ends."""
        receiver, sender = self._context.Pipe(duplex=False)
        process = self._context.Process(target=_child_main, args=(sender, job), daemon=True)
        exitcode: int | None = None
        try:
            await asyncio.to_thread(process.start)  # hands the body to the child: not on the event loop
            sender.close()  # the child holds its own copy; EOF on the receiver now means the child is gone
            await readable(receiver)
            message = await asyncio.to_thread(receive, receiver)
        finally:
            sender.close()
            receiver.close()
            exitcode = await asyncio.to_thread(reap, process)
        return _outcome(message, exitcode, job.url)

    def warm(self) -> None:
        """Start a pool child in the background if none is ready (a no-op once one is; see pool.py)."""
        self._pool.warm()

    async def aclose(self) -> None:
        """Stop the pool's idle children."""
        await self._pool.aclose()


def _process_context() -> ForkServerContext | SpawnContext:
    """Where children come from: a forkserver that imported the extractor once (Linux), else fresh interpreters."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["webreach.extract.worker"])
    return context


def _retires(answer: Any) -> bool:
    """Whether a pool child that gave `answer` is replaced: after running out of memory its heap is suspect."""
    return isinstance(answer, tuple) and answer[0] == "error" and answer[1] is ResponseTooLargeError


def _outcome(message: Any, exitcode: int | None, url: str) -> Extracted | WebreachError:
    """The child's answer as a result or a typed error."""
    if isinstance(message, tuple) and message[0] == "ok" and isinstance(message[1], Extracted):
        return message[1]
    if isinstance(message, tuple) and message[0] == "error":
        return _rebuilt(*message[1:])
    LOGGER.error("extraction worker for %s ended without an answer (exit code %s)", url, exitcode)
    return ExtractionError(
        f"No readable text: the extractor stopped on {_name(url)} (exit code {exitcode}).",
        url=url or None,
        hint=CRASH_HINT,
    )


def _rebuilt(kind: type[WebreachError], args: tuple[Any, ...], state: dict[str, Any]) -> WebreachError:
    """A typed error sent from the child as class, args and attributes (most take keyword-only arguments, which
    pickle cannot pass to them)."""
    if not (isinstance(kind, type) and issubclass(kind, WebreachError)):
        return ExtractionError("No readable text: the extractor answered with an unknown error.", hint=CRASH_HINT)
    error = kind.__new__(kind)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


def _child_main(sender: Connection, job: _Job) -> None:
    """In a fresh child: bound memory and CPU time, extract, send the result or the typed error back."""
    _limit_memory(job.memory_bytes)
    limit_cpu(job.cpu_seconds)
    try:
        _send(sender, _answer(job))
    finally:
        sender.close()


def _serve(connection: Connection, memory_bytes: int) -> None:
    """In a pool child: bound memory, then extract the jobs that come in, one at a time, each under its CPU time,
    until the pool closes the connection (or a job ran out of memory: the child then ends)."""
    _limit_memory(memory_bytes)
    while True:
        try:
            job, cpu_seconds = connection.recv()
        except (EOFError, OSError):
            return
        limit_cpu(cpu_seconds)
        if _retires(_send(connection, _answer(job))):
            return


def _send(connection: Connection, answer: tuple[Any, ...]) -> tuple[Any, ...]:
    """Send `answer`, or a memory error when sending it needs more memory than allowed; what was sent."""
    try:
        connection.send(answer)
    except MemoryError:
        error = ResponseTooLargeError("The extracted text needed more memory than allowed to send.")
        answer = ("error", type(error), error.args, dict(error.__dict__))
        connection.send(answer)
    return answer


def _answer(job: _Job) -> tuple[Any, ...]:
    """The message for `job`: ("ok", Extracted) or ("error", class, args, attributes)."""
    try:
        result = extract(job.body, content_type=job.content_type, url=job.url, format=job.format, options=job.options)
        return ("ok", result)
    except WebreachError as exc:
        return ("error", type(exc), exc.args, dict(exc.__dict__))
    except MemoryError:
        error = ResponseTooLargeError(f"Extracting {_name(job.url)} needed more memory than allowed.", url=job.url)
        return ("error", type(error), error.args, dict(error.__dict__))


def _limit_memory(extra: int) -> None:
    """Cap this process's address space at its current size plus `extra` (Linux; elsewhere nothing is done)."""
    try:
        with open("/proc/self/statm") as statm:
            current = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        resource.setrlimit(resource.RLIMIT_AS, (current + extra, current + extra))
    except (OSError, ValueError):
        LOGGER.debug("no memory limit for extraction workers on this system")


def _name(url: str) -> str:
    return f"the page at {url}" if url else "the page"
