"""Reads here run under deadlines of a second or two; every page is extracted in a child forked from the
forkserver (extract/worker.py), whose first start imports the extractor, which alone can take that long on a
loaded machine. One extraction before the first test starts it, so no test's deadline pays for it."""

from __future__ import annotations

import asyncio
import multiprocessing
import multiprocessing.process
from collections.abc import Callable

import pytest

from webreach.extract.worker import ExtractionWorkers


async def _extract_once() -> None:
    workers = ExtractionWorkers()
    try:
        await workers.extract(b"<p>warm</p>", content_type="text/html", url="http://warm.test/", seconds=120)
    finally:
        await workers.aclose()


@pytest.fixture(scope="session", autouse=True)
def _forkserver_running() -> None:
    asyncio.run(_extract_once())


@pytest.fixture
def new_children() -> Callable[[], list[multiprocessing.process.BaseProcess]]:
    """The child processes started since the test began and still alive: a test checks that the children it
    started are gone, whatever an earlier test left behind (at the lowest allowed versions, pytest-asyncio 1.0
    leaves an earlier test's event loop, and the pool it held, to the garbage collector)."""
    before = {child.pid for child in multiprocessing.active_children()}
    return lambda: [child for child in multiprocessing.active_children() if child.pid not in before]
