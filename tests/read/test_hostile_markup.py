"""Pages whose markup would hold a parser for minutes (one tag of 200,000 attributes) cannot stall reading: the
flood is tamed before lxml sees it, every page is extracted in a child process that is killed at the read's
deadline, and a timed-out read frees its child for the next one."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from multiprocessing.process import BaseProcess
from pathlib import Path

import pytest

import webreach
from net.harness import SAFE, CountingResolver
from webreach.config import ReadSettings
from webreach.errors import FetchTimeoutError, WebreachError
from webreach.extract.worker import ExtractionWorkers, WorkerBudget
from webreach.models import ReadRequest
from webreach.read.service import Reading
from webreach.testing import FakeWeb
from webreach.testing.pages import article_html

HTML = "text/html; charset=utf-8"
SRC = Path(webreach.__file__).resolve().parents[1]


def attribute_page(count: int, unit: str = "a{i}=x", separator: str = " ") -> bytes:
    """One <div> carrying `count` distinct attributes (200,000: 1.9 MB), then ordinary text."""
    attributes = separator.join(unit.format(i=i) for i in range(count))
    return f"<html><body><div {attributes}>Flood of attributes</div><p>After the flood.</p></body></html>".encode()


@pytest.mark.slow  # a subprocess or a heavy model: a cheaper sibling covers the rule in the fast loop
@pytest.mark.network
async def test_six_attribute_floods_leave_ordinary_reads_working(new_children: Callable[[], list[BaseProcess]]) -> None:
    async with FakeWeb(limits=SAFE) as web:
        web.pages.add("/flood-200k", attribute_page(200_000), headers={"content-type": HTML})
        web.pages.add("/flood-40k", attribute_page(40_000), headers={"content-type": HTML})
        web.pages.add("/article", article_html("Tide tables"), headers={"content-type": HTML})
        settings = ReadSettings(allow_cidrs=["127.0.0.1/32"], timeout=5)
        async with Reading(settings, resolver=CountingResolver()) as reading:
            base = f"http://site.test:{web.port}"
            floods = [f"{base}/flood-200k", f"{base}/flood-40k"] * 3
            outcomes = await asyncio.gather(
                *(reading.read(ReadRequest.create(url=url, reader="direct")) for url in floods),
                return_exceptions=True,
            )
            page = await reading.read(ReadRequest.create(url=f"{base}/article", reader="direct"))
    for outcome in outcomes:  # each flood answers, or fails typed: never an untyped error
        assert not isinstance(outcome, BaseException) or isinstance(outcome, WebreachError), outcome
    assert "Tide tables" in (page.title or "") and page.content
    assert new_children() == []  # the pool's children were stopped with the Reading


async def test_a_page_past_its_deadline_frees_its_child_for_the_next(
    new_children: Callable[[], list[BaseProcess]],
) -> None:
    # values holding ">" keep these 40,000 attributes from the taming scan: the parse really runs for seconds
    slow = attribute_page(40_000, 'a{i}=">"')
    workers = ExtractionWorkers(WorkerBudget(pool_size=1))
    try:
        with pytest.raises(FetchTimeoutError) as caught:
            await workers.extract(slow, content_type=HTML, url="https://tides.example/slow", seconds=0.5)
        assert caught.value.code == "timeout" and caught.value.retryable
        # the one child was killed; the next page gets a fresh one at once
        done = await workers.extract(
            article_html("Tide tables"), content_type=HTML, url="https://t.example/", seconds=30
        )
        assert "Tide tables" in (done.title or "")
    finally:
        await workers.aclose()
    assert new_children() == []


async def test_a_child_killed_from_outside_is_replaced(new_children: Callable[[], list[BaseProcess]]) -> None:
    workers = ExtractionWorkers(WorkerBudget(pool_size=1))
    page = article_html("Tide tables")
    try:
        await workers.extract(page, content_type=HTML, url="https://t.example/", seconds=30)
        (child,) = new_children()
        os.kill(child.pid, signal.SIGKILL)  # as the kernel's OOM killer would
        child.join(5)
        done = await workers.extract(page, content_type=HTML, url="https://t.example/", seconds=30)
        assert "Tide tables" in (done.title or "")
    finally:
        await workers.aclose()
    assert new_children() == []


@pytest.mark.slow  # a second or more (measured 2026-11-28): the full suite runs it
async def test_a_cancelled_extraction_kills_its_child(new_children: Callable[[], list[BaseProcess]]) -> None:
    workers = ExtractionWorkers(WorkerBudget(pool_size=1))
    try:
        task = asyncio.create_task(
            workers.extract(attribute_page(40_000, 'a{i}=">"'), content_type=HTML, url="https://t.example/", seconds=60)
        )
        await asyncio.sleep(1.0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert new_children() == []
    finally:
        await workers.aclose()


@pytest.mark.slow  # a subprocess or a heavy model: a cheaper sibling covers the rule in the fast loop
@pytest.mark.parametrize("count", [40_000, 200_000])
def test_webreach_extract_of_an_attribute_flood_ends_with_a_result(tmp_path: Path, count: int) -> None:
    path = tmp_path / "flood.html"
    path.write_bytes(attribute_page(count))
    environment = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(SRC), "WEBREACH_STATE__BACKEND": "memory"}
    done = subprocess.run(
        [sys.executable, "-m", "webreach", "extract", "--format", "text", str(path)],
        capture_output=True, text=True, env=environment, cwd=tmp_path, stdin=subprocess.DEVNULL,
        timeout=120,  # only so that a hang fails the test rather than the run
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "After the flood." in done.stdout
    assert "Traceback" not in done.stderr
