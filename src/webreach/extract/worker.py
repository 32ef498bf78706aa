"""Heavy extractions in a child process that can be killed: PDFs and very large bodies, under time, memory and
concurrency budgets.

    workers = ExtractionWorkers()
    extracted = await workers.extract(body, content_type=..., url=..., format="markdown", seconds=12.5)

Why a process: a thread running pypdf or lxml cannot be stopped, so a hostile PDF (a 560 KB file whose pages
inflate to 70 MB each) used to hold a thread and gigabytes of memory for minutes, whatever the read's timeout,
and a handful of them starved every other read. A child process can be killed, and its memory is its own.

Which bodies (`is_heavy`): a PDF (as sniff.py decides) or any body over `heavy_bytes`. Everything else stays in
a thread: starting a child costs milliseconds, about what extracting an ordinary page takes.

How, per extraction:
- The child is forked from a forkserver that has the extractor imported already (a fresh interpreter would
  spend a second importing it). Each extraction gets its own child, so nothing outlives a kill.
- At most `max_concurrent` children run at once; the others wait their turn, and the wait counts against their
  time. Light pages never wait: they do not use this pool.
- The child lowers its address-space limit (RLIMIT_AS) to its size at start plus `memory_bytes`: an allocation
  past that fails inside the child (MemoryError, reported as ResponseTooLargeError) and the server's memory
  stays where it was.
- The child stops starting new PDF pages after `soft_share` of the time (the result notes the pages left); when
  the time is up the parent kills it and raises FetchTimeoutError.
The result (an Extracted, or the typed error the extractor raised) comes back over a pipe; a child that dies
without answering is an ExtractionError.
"""

from __future__ import annotations

import asyncio
import logging
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
from webreach.extract.sniff import sniff
from webreach.models import ReadFormat

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


@dataclass(frozen=True)
class _Job:
    body: bytes
    content_type: str | None
    url: str
    format: ReadFormat
    options: ExtractOptions
    memory_bytes: int


class ExtractionWorkers:
    """Runs heavy extractions in killable child processes, a bounded number at once."""

    def __init__(self, budget: WorkerBudget | None = None) -> None:
        self.budget = budget or WorkerBudget()
        self._context = _process_context()
        self._slots = asyncio.Semaphore(self.budget.max_concurrent)

    def is_heavy(self, body: bytes, content_type: str | None, url: str) -> bool:
        """Whether `body` should be extracted in a child process rather than a thread."""
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
        """extract(...) in a child process, within `seconds` (waiting for a free slot included)."""
        options = replace(options or ExtractOptions(), pdf_seconds=seconds * self.budget.soft_share)
        job = _Job(body, content_type, url, format, options, self.budget.memory_bytes)
        try:
            async with asyncio.timeout(seconds):
                async with self._slots:
                    outcome = await self._run(job)
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
            await _readable(receiver)
            message = await asyncio.to_thread(_receive, receiver)
        finally:
            sender.close()
            receiver.close()
            exitcode = await asyncio.to_thread(_reap, process)
        return _outcome(message, exitcode, job.url)


def _process_context() -> ForkServerContext | SpawnContext:
    """Where children come from: a forkserver that imported the extractor once (Linux), else fresh interpreters."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["webreach.extract.worker"])
    return context


async def _readable(connection: Connection) -> None:
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


def _receive(connection: Connection) -> Any:
    try:
        return connection.recv()
    except (EOFError, OSError):  # the child died (killed, out of memory) before it answered
        return None


def _reap(process: Any) -> int | None:
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
    """In the child: bound memory, extract, send the result or the typed error back."""
    _limit_memory(job.memory_bytes)
    try:
        result = extract(job.body, content_type=job.content_type, url=job.url, format=job.format, options=job.options)
        sender.send(("ok", result))
    except WebreachError as exc:
        sender.send(("error", type(exc), exc.args, dict(exc.__dict__)))
    except MemoryError:  # sending a very large result can run out of memory too
        error = ResponseTooLargeError(f"Extracting {_name(job.url)} needed more memory than allowed.", url=job.url)
        sender.send(("error", type(error), error.args, dict(error.__dict__)))
    finally:
        sender.close()


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
