"""LoopThread: one FakeWeb on a private event loop in a daemon thread, for sync code and subprocess tests."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Protocol


class Server(Protocol):
    """What the thread runs: the fake web (testing/fakeweb.py, which imports this module), started and stopped."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


class LoopThread:
    """Runs one FakeWeb (any Server) on a private event loop in a daemon thread."""

    def __init__(self, web: Server) -> None:
        self.web = web
        self.thread = threading.Thread(target=self._run, name="webreach-fakeweb", daemon=True)
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None

    def start(self, timeout: float = 10.0) -> None:
        self.thread.start()
        if not self._ready.wait(timeout):
            raise RuntimeError("the fake web thread did not start in time")
        if self._error is not None:
            self.thread.join(timeout)
            raise self._error

    def stop(self, timeout: float = 10.0) -> None:
        if self._loop is not None and self._stopping is not None and not self._loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop ended on its own meanwhile
                self._loop.call_soon_threadsafe(self._stopping.set)
        self.thread.join(timeout)

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        try:
            await self.web.start()
        except BaseException as exc:  # handed to the starting thread, which raises it
            self._error = exc
            return
        finally:
            self._ready.set()
        try:
            await self._stopping.wait()
        finally:
            await self.web.stop()
