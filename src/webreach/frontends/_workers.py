"""`webreach serve --workers N`: N server processes on one listening socket, sharing the configured state.

The parent binds the socket, then forks N workers before any of them builds its app: each opens its own gateway,
so no connection, pool or thread is ever shared across a fork. Each worker runs in a process group of its own, so
a terminal's Ctrl-C reaches the parent only, which stops the workers with one SIGTERM each (they finish their
calls in flight: uvicorn's graceful window) and exits when they have all stopped. A worker that dies is started
again, at most RESTARTS times a minute. Prometheus counters go to one directory every worker writes
(PROMETHEUS_MULTIPROC_DIR, made fresh and removed by the parent when the operator set none), so a scrape of any
worker sums them all (frontends/_metrics.py). Nothing here imports prometheus-client: its value class is chosen at
import time from that variable, so the variable must be set before the server modules load.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterator
from multiprocessing.process import BaseProcess
from types import FrameType

from webreach.config import Settings
from webreach.errors import InvalidInputError

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
RESTARTS = 5  # a minute; past that the workers keep dying for a reason a restart will not fix
STOP_TIMEOUT = 15.0


def check_workers(workers: int, settings: Settings) -> None:
    """Refuse several workers on per-process state: they would not share breakers, pacing or refs."""
    if workers > 1 and settings.state.backend == "memory":
        raise InvalidInputError(
            f'--workers {workers} needs state the workers share; [state] backend = "memory" is per process',
            hint='Set [state] backend = "sqlite" (one machine) or "redis" (WEBREACH_STATE__BACKEND), or use one '
            "worker.",
        )


@contextlib.contextmanager
def metrics_directory(workers: int) -> Iterator[None]:
    """With several workers and no PROMETHEUS_MULTIPROC_DIR, a fresh one for this run (removed after)."""
    if workers <= 1 or os.environ.get(MULTIPROC_ENV):
        yield
        return
    directory = tempfile.mkdtemp(prefix="webreach-metrics-")
    os.environ[MULTIPROC_ENV] = directory
    try:
        yield
    finally:
        os.environ.pop(MULTIPROC_ENV, None)
        shutil.rmtree(directory, ignore_errors=True)


class Supervisor:
    """Starts `workers` processes running `serve_one(index)`, restarts the ones that die, stops them on a signal."""

    def __init__(self, workers: int, serve_one: Callable[[int], None]) -> None:
        self._workers = workers
        self._serve_one = serve_one
        self._context = multiprocessing.get_context("fork")
        self._children: dict[int, BaseProcess] = {}
        self._restarts: deque[float] = deque()
        self._stopping = False

    def run(self) -> None:
        """Until a signal stops the workers (or they keep dying): blocking."""
        signal.signal(signal.SIGTERM, self._stop)
        signal.signal(signal.SIGINT, self._stop)
        for index in range(self._workers):
            self._start(index)
        while self._children:
            for index, child in list(self._children.items()):
                child.join(0.1)
                if child.exitcode is None:
                    continue
                del self._children[index]
                if not self._stopping:
                    self._replace(index, child.exitcode)
        if not self._stopping:
            raise SystemExit(1)

    def _start(self, index: int) -> None:
        child = self._context.Process(target=self._child, args=(index,), name=f"webreach-worker-{index}")
        child.start()
        self._children[index] = child

    def _child(self, index: int) -> None:
        os.setpgrp()  # a terminal's Ctrl-C goes to the parent only, which stops each worker once
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        self._serve_one(index)

    def _replace(self, index: int, exitcode: int) -> None:
        now = time.monotonic()
        while self._restarts and self._restarts[0] < now - 60:
            self._restarts.popleft()
        if len(self._restarts) >= RESTARTS:
            print(f"webreach: workers keep exiting (worker {index}: code {exitcode}); stopping", file=sys.stderr)
            self._stop(signal.SIGTERM, None)
            return
        self._restarts.append(now)
        print(f"webreach: worker {index} exited (code {exitcode}); starting it again", file=sys.stderr, flush=True)
        self._start(index)

    def _stop(self, signum: int, frame: FrameType | None) -> None:
        if self._stopping:
            return
        self._stopping = True
        for child in self._children.values():
            if child.pid is not None and child.exitcode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        for child in self._children.values():
            child.join(max(0.0, deadline - time.monotonic()))
            if child.exitcode is None and child.pid is not None:
                os.kill(child.pid, signal.SIGKILL)
