"""Heavy extractions (PDFs) run in killable child processes: a hostile PDF ends in a typed error within the read's
budget, its child is gone afterwards, its memory is bounded, and HTML reads proceed meanwhile."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from multiprocessing.process import BaseProcess
from pathlib import Path

import pytest

from extract.hostile_pdf import bomb_pdf
from net.harness import SAFE, CountingResolver
from webreach.config import ReadSettings
from webreach.errors import ExtractionError, FetchTimeoutError, ResponseTooLargeError
from webreach.extract.worker import ExtractionWorkers, WorkerBudget
from webreach.models import ReadRequest
from webreach.read.service import Reading, extract_file
from webreach.testing import FakeWeb
from webreach.testing.connects import ConnectRecorder
from webreach.testing.pages import article_html

MIB = 1024 * 1024
PDF = "application/pdf"
URL = "https://tides.example/bomb.pdf"
# 4 pages that each inflate to 12 MiB: under the 16 MiB stream budget, so pypdf really parses them (seconds each)
SLOW_PDF = bomb_pdf(pages=4, inflated=12 * MIB)


@pytest.mark.slow
async def test_a_small_pdf_comes_back_from_the_child() -> None:
    extracted = await ExtractionWorkers().extract(bomb_pdf(inflated=1000), content_type=PDF, url=URL, seconds=60)
    assert (extracted.text, extracted.extractor) == ("still here", "pypdf")


async def test_typed_errors_cross_the_process_boundary_whole() -> None:
    with pytest.raises(ExtractionError) as caught:
        await ExtractionWorkers().extract(b"%PDF-1.4 broken", content_type=PDF, url=URL, seconds=60)
    assert (caught.value.code, caught.value.url) == ("extraction_failed", URL)
    assert "not a readable PDF" in caught.value.hint


async def test_a_pdf_past_its_time_is_killed_with_a_timeout(new_children: Callable[[], list[BaseProcess]]) -> None:
    with pytest.raises(FetchTimeoutError) as caught:
        await ExtractionWorkers().extract(SLOW_PDF, content_type=PDF, url=URL, seconds=0.5)
    assert caught.value.code == "timeout" and caught.value.retryable
    assert new_children() == []  # the child was killed and reaped, not left running


async def test_a_child_over_its_memory_budget_answers_too_large() -> None:
    workers = ExtractionWorkers(WorkerBudget(memory_bytes=8 * MIB))
    with pytest.raises(ResponseTooLargeError) as caught:
        await workers.extract(bomb_pdf(inflated=12 * MIB), content_type=PDF, url=URL, seconds=60)
    assert caught.value.code == "too_large"


def test_only_pdfs_and_large_bodies_are_heavy() -> None:
    workers = ExtractionWorkers(WorkerBudget(heavy_bytes=1000))
    assert workers.is_heavy(b"%PDF-1.4 ...", None, URL)
    assert workers.is_heavy(b"<p>" + b"x" * 2000, "text/html", "https://tides.example/")
    assert not workers.is_heavy(b"<p>tides</p>", "text/html", "https://tides.example/")


async def test_extract_file_bounds_a_hostile_pdf(tmp_path: Path) -> None:
    path = tmp_path / "bomb.pdf"
    path.write_bytes(SLOW_PDF)
    with pytest.raises(FetchTimeoutError):
        await extract_file(path, seconds=0.5)


@pytest.mark.slow  # a second or more (measured 2026-11-28): the full suite runs it
@pytest.mark.network
async def test_hostile_pdfs_end_in_timeouts_while_html_reads_proceed(
    new_children: Callable[[], list[BaseProcess]],
) -> None:
    async with FakeWeb(limits=SAFE) as web:
        web.pages.add("/bomb.pdf", SLOW_PDF, headers={"content-type": PDF})
        web.pages.add("/article", article_html("Tide tables"), headers={"content-type": "text/html; charset=utf-8"})
        recorder = ConnectRecorder(allowed={"127.0.0.1"})
        settings = ReadSettings(allow_cidrs=["127.0.0.1/32"], timeout=1.5, extract_workers=1)
        async with Reading(
            settings, resolver=CountingResolver(), network_backend=recorder, connect_observer=recorder.observe
        ) as reading:
            base = f"http://site.test:{web.port}"
            # the pool's child started first: starting one is no part of what this test measures (every page is
            # extracted in a child now), and on a loaded machine it can take most of the 1.5 s
            await reading.workers.extract(article_html("Warm"), content_type="text/html", url=base, seconds=60)
            pdf_reads = [reading.read(ReadRequest.create(url=f"{base}/bomb.pdf", reader="direct")) for _ in range(3)]
            html_read = reading.read(ReadRequest.create(url=f"{base}/article", reader="direct"))
            *pdfs, html = await asyncio.gather(*pdf_reads, html_read, return_exceptions=True)
        recorder.assert_clean()
    # each ends within its budget: killed at the deadline, or stopped between pages with a note (how far a PDF
    # gets before its deadline depends on the machine's speed)
    for outcome in pdfs:
        if isinstance(outcome, BaseException):
            assert isinstance(outcome, FetchTimeoutError), outcome
        else:
            assert "the time budget ran out" in outcome.content
    assert not isinstance(html, BaseException) and "Tide tables" in (html.title or "")
    assert new_children() == []


@pytest.mark.slow  # two seconds (a child's start, then a second of watching)
async def test_closing_the_workers_stops_a_child_still_starting(new_children: Callable[[], list[BaseProcess]]) -> None:
    """A replacement child the pool started in the background (after a kill, or to warm up) is stopped by aclose
    even while it is still starting: no extraction child outlives the Reading that owned it."""
    workers = ExtractionWorkers(WorkerBudget(pool_size=1))
    workers.warm()  # a child starting on a worker thread, as after a page overran its deadline
    await workers.aclose()
    for _ in range(200):  # a second after: a start aclose did not wait for would show its child meanwhile
        assert new_children() == []
        await asyncio.sleep(0.005)
