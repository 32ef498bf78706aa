"""Redis work that a synchronous store method starts and does not wait for (write-behind and look-ahead).

Some store protocols are synchronous because their callers are (breaker transitions, engine status views), and
nothing may wait on the network on the event loop. Such a Redis store answers from its mirror in memory and
hands its Redis calls to Behind: writes run in the order they were made (each after the previous one), at most
one look (a read refreshing the mirror) runs at a time, and flush() waits for everything in flight (before the
connection closes, and in tests). Without a running loop, start() says so and the store writes synchronously.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

Work = Callable[[], Coroutine[Any, Any, None]]


class Behind:
    """Ordered writes and one look at a time, as tasks on the running loop."""

    def __init__(self) -> None:
        self._last_write: asyncio.Task[None] | None = None
        self._look: asyncio.Task[None] | None = None
        self._pending: set[asyncio.Task[None]] = set()

    def write(self, work: Work) -> bool:
        """Run `work` after the writes started before it; False when no loop runs (nothing was started)."""
        loop = _running_loop()
        if loop is None:
            return False
        self._last_write = self._track(loop.create_task(self._after(self._last_write, work)))
        return True

    def look(self, work: Work) -> None:
        """Run `work` unless a look is in flight (or no loop runs)."""
        loop = _running_loop()
        if loop is not None and (self._look is None or self._look.done()):
            self._look = self._track(loop.create_task(work()))

    async def flush(self) -> None:
        """Wait for the writes and the look in flight."""
        pending = [task for task in self._pending if not task.done() and task.get_loop() is asyncio.get_running_loop()]
        if pending:
            await asyncio.wait(pending)

    async def _after(self, previous: asyncio.Task[None] | None, work: Work) -> None:
        if previous is not None and not previous.done() and previous.get_loop() is asyncio.get_running_loop():
            await asyncio.wait([previous])
        await work()

    def _track(self, task: asyncio.Task[None]) -> asyncio.Task[None]:
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)
        return task


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
