"""Reads here run under deadlines of a second or two; every page is extracted in a child forked from the
forkserver (extract/worker.py), whose first start imports the extractor, which alone can take that long on a
loaded machine. One extraction before the first test starts it, so no test's deadline pays for it."""

from __future__ import annotations

import asyncio

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
