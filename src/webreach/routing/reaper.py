"""Cancelled engine calls on their way out: held until they end, so a search answers without waiting for them.

Routing cancels a hedged loser (or a call cut off by the deadline) the moment it is done with it. Unwinding
that cancellation (the engine's connection closed, its policies' bookkeeping) takes a loop turn or more, which
the caller's answer need not wait for (bench/gateway.py: hedged auto answered about 1 ms over its budget while
it did). The reaper keeps a reference to each such task until it ends (asyncio itself keeps only weak ones),
retrieves its outcome so nothing is reported as never retrieved, and `drain()` cancels and awaits whatever is
still unwinding, bounded, so no engine call outlives the Router that started it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any

log = logging.getLogger("webreach.routing")

DRAIN_SECONDS = 5.0  # how long drain() waits for cancelled calls to unwind before giving up on them


class Reaper:
    """Tasks cancelled and handed over, kept referenced until each has ended."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def __len__(self) -> int:
        """How many handed-over tasks have not ended yet."""
        return len(self._tasks)

    def take(self, tasks: Iterable[asyncio.Task[Any]]) -> None:
        """Cancel `tasks` and keep them until they end; returns at once."""
        for task in tasks:
            task.cancel()
            if task.done():
                _retrieve(task)
            elif task not in self._tasks:
                self._tasks.add(task)
                task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        _retrieve(task)

    async def drain(self, timeout: float = DRAIN_SECONDS) -> None:
        """Wait until every task handed over has ended (cancelling each again), at most `timeout` seconds."""
        pending = set(self._tasks)
        if not pending:
            return
        for task in pending:
            task.cancel()
        _, late = await asyncio.wait(pending, timeout=timeout)
        if late:
            log.warning("%d cancelled engine call(s) still unwinding after %g s", len(late), timeout)


def _retrieve(task: asyncio.Task[Any]) -> None:
    """Read a finished task's outcome; a call that failed while being cancelled is logged (type only)."""
    if task.cancelled():
        return
    error = task.exception()
    if error is not None:
        # the type only: an engine's message may quote its request URL, keys included
        log.warning("an engine call raised %s while being cancelled", type(error).__name__)
