"""A search that answers with reading, through the real tool pipeline, offline: web_search(question, read_top) reads
its top results from the fake web at once, attaches each page's best passages with anchors [ref§n], turns a read
that fails into that result's note, charges the search plus a web_fetch per page read, and leaves each page cached
under its ref so web_fetch(ref, passage) reads an anchor again without a new request.

The search's first two results (docs.python.org's asyncio page and realpython.com's walkthrough in the fake web's
recordings) are served as long pages registered by the test, so the reader, extractor and cache are the real ones.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from webreach.config import Settings
from webreach.gateway import Gateway
from webreach.testing import FakeWeb
from webreach.tools import Toolbox, account_policies
from webreach.tools.arguments import MAX_READ_TOP

from .test_question_read import page_html

pytestmark = pytest.mark.network
DOCS, DOCS_PATH = "docs.python.org", "/3/library/asyncio.html"
WALK, WALK_PATH = "realpython.com", "/async-io-python/"
SEARCH = {"query": "python asyncio tutorial"}
QUESTION = "How do I stop waiting for a coroutine after a timeout?"
HTML = {"content-type": "text/html; charset=utf-8"}


def walkthrough_html() -> bytes:
    filler = " ".join(f"Sentence {n} walks through one more example of coroutines at length." for n in range(30))
    return (
        "<!doctype html><html><head><title>Python's asyncio: A Hands-On Walkthrough</title></head><body><main>"
        "<h1>Python's asyncio: A Hands-On Walkthrough</h1><p>This walkthrough shows async IO in Python.</p>"
        f"<h2>Coroutines</h2><p>{filler}</p><p>{filler} Again.</p>"
        "<h2>Giving up after a timeout</h2><p>A coroutine that may hang is wrapped in asyncio.wait_for; after the "
        "timeout the coroutine is cancelled and the caller stops waiting for it.</p>"
        f"<h2>Gathering</h2><p>{filler} Gather runs coroutines together.</p></main></body></html>"
    ).encode()


@pytest.fixture
async def web() -> AsyncIterator[FakeWeb]:
    async with FakeWeb() as server:
        server.pages.add(DOCS_PATH, page_html(), host=DOCS, headers=HTML)
        server.pages.add(WALK_PATH, walkthrough_html(), host=WALK, headers=HTML)
        yield server


def reads_of(web: FakeWeb, host: str, path: str) -> int:
    return len([r for r in web.pages.requests if r.path == path and host in (r.host or "")])


async def call(tools: Toolbox, name: str, arguments: dict[str, Any], output: Any = "compact") -> Any:
    return await tools.call(name, arguments, session="agent-1", output=output, caller="bot")


async def test_a_search_with_a_question_reads_the_top_two_with_anchors(web: FakeWeb) -> None:
    async with Gateway.from_settings(Settings(fake_web=web.url, state={"backend": "memory"})) as gateway:
        tools = Toolbox.over(gateway)
        found = await call(tools, "web_search", {**SEARCH, "question": QUESTION, "read_top": 2})
        text = found.text
        assert found.reads == 2 and not found.is_error
        assert text.index("[1] asyncio") < text.index(f"Read for: {QUESTION}")  # the results, then the reading
        docs = re.findall(r"^\[1§(\d+)\] (.*)$", text, re.M)
        walk = re.findall(r"^\[2§(\d+)\] (.*)$", text, re.M)
        assert any(path.endswith("Timeouts") for _, path in docs)
        assert any(path.endswith("Giving up after a timeout") for _, path in walk)
        assert "with a timeout argument" in text and "the caller stops waiting" in text
        assert not re.search(r"^\[3§", text, re.M)  # read_top=2: the third result is not read
        assert len(re.findall(r"^(Left out:|Nothing left out)", text, re.M)) == 2  # one read-on line per page
        # json: the same passages with anchors, each page's tokens within its share of the default 1000
        body = json.loads(
            (await call(tools, "web_search", {**SEARCH, "question": QUESTION, "read_top": 2}, "json")).text
        )
    assert body["question"] == QUESTION and [r["ref"] for r in body["readings"]] == [1, 2]
    for reading in body["readings"]:
        assert reading["tokens"] <= 500 and reading["more"].startswith(("Left out:", "Nothing left out"))
        assert all(p["anchor"] == f"[{reading['ref']}§{p['index']}]" for p in reading["passages"])
    assert body["results"][0]["ref"] == 1
    assert reads_of(web, DOCS, DOCS_PATH) == 1 == reads_of(web, WALK, WALK_PATH)  # the second search: the cache


async def test_an_anchor_is_read_again_from_the_cache_without_a_request(web: FakeWeb) -> None:
    async with Gateway.from_settings(Settings(fake_web=web.url, state={"backend": "memory"})) as gateway:
        tools = Toolbox.over(gateway)
        found = json.loads(
            (await call(tools, "web_search", {**SEARCH, "question": QUESTION, "read_top": 2}, "json")).text
        )
        walk = next(r for r in found["readings"] if r["ref"] == 2)
        passage = next(p for p in walk["passages"] if p["headings"][-1] == "Giving up after a timeout")
        requests = len(web.pages.requests)
        again = json.loads((await call(tools, "web_fetch", {"ref": 2, "passage": passage["index"]}, "json")).text)
    assert again["cached"] is True and again["passages"] == [passage]
    assert len(web.pages.requests) == requests, "web_fetch(ref, passage) after the search made no new request"


async def test_a_read_that_fails_is_that_results_note_and_the_search_succeeds(web: FakeWeb) -> None:
    web.pages.add(WALK_PATH, b"down for maintenance", status=503, host=WALK)
    async with Gateway.from_settings(Settings(fake_web=web.url, state={"backend": "memory"})) as gateway:
        tools = Toolbox.over(gateway)
        compact = await call(tools, "web_search", {**SEARCH, "question": QUESTION, "read_top": 2})
        body = json.loads(
            (await call(tools, "web_search", {**SEARCH, "question": QUESTION, "read_top": 2}, "json")).text
        )
    assert not compact.is_error and compact.reads == 1  # a retryable failure is not charged
    assert re.search(r"^\[2\] could not be read: http_error: ", compact.text, re.M)
    assert re.search(r"^\[1§\d+\] .*Timeouts$", compact.text, re.M)
    docs, walk = body["readings"]
    assert docs["passages"] and "error" not in docs
    assert walk["error"]["code"] == "http_error" and walk["ref"] == 2 and "passages" not in walk
    assert body["results"]  # the search's own answer is whole


async def test_reading_arguments_are_checked_before_anything_is_sent(web: FakeWeb) -> None:
    async with Gateway.from_settings(Settings(fake_web=web.url, state={"backend": "memory"})) as gateway:
        tools = Toolbox.over(gateway)
        too_many = json.loads((await call(tools, "web_search", {**SEARCH, "question": "q", "read_top": 9})).text)
        alone = json.loads((await call(tools, "web_search", {**SEARCH, "read_top": 2}, output="json")).text)
        budget = json.loads((await call(tools, "web_search", {**SEARCH, "max_tokens": 300}, output="json")).text)
        default = await call(tools, "web_search", {**SEARCH, "question": QUESTION})
    assert too_many["code"] == "invalid_input" and "read_top" in too_many["message"]
    assert str(MAX_READ_TOP) in too_many["message"]
    # without a question nothing is read: the schema allows read_top and max_tokens alone, so the server does too
    assert alone["results"] and budget["results"] and "code" not in alone and "code" not in budget
    assert "readings" not in alone and "readings" not in budget
    assert default.reads == 3  # a question alone reads the default 3 top results (the fake web's article: the 3rd)
    assert re.search(r"^\[3§\d+\]", default.text, re.M)


async def test_the_charge_is_the_search_plus_a_fetch_per_page_read(web: FakeWeb, tmp_path: Path) -> None:
    settings = Settings(
        fake_web=web.url, state={"backend": "memory"}, accounts={"enabled": True, "database": str(tmp_path / "a.db")}
    )
    async with Gateway.from_settings(settings) as gateway:
        gateway.accounts.add("bot", credits=100)
        tools = Toolbox.over(gateway, policies=account_policies(gateway.accounts))
        web.pages.add(WALK_PATH, b"down", status=503, host=WALK)
        one = json.loads(
            (await call(tools, "web_search", {**SEARCH, "question": QUESTION, "read_top": 2}, "json")).text
        )
        assert [("error" in reading) for reading in one["readings"]] == [False, True]
        assert one["cost"]["charged"] == 2 + 1 * 1  # the 503 is no read made (retryable: never charged)
        web.pages.add(WALK_PATH, walkthrough_html(), host=WALK, headers=HTML)
        gateway.accounts.set_options("bot", {"prices": {"web_fetch": 3}})  # per-agent prices apply to reads
        both = json.loads(
            (await call(tools, "web_search", {**SEARCH, "question": "what is asyncio?", "read_top": 2}, "json")).text
        )
        assert [("error" in reading) for reading in both["readings"]] == [False, False]
        assert both["cost"]["charged"] == 2 + 3 * 2  # a page read from the cache costs a web_fetch, as web_fetch does
        ledger = gateway.accounts.ledger
        assert ledger.agent("bot").balance == 100 - 3 - 8 == ledger.journal_sum("bot")


async def test_a_multi_engine_search_with_a_question_reads_its_top_results_the_same_way(web: FakeWeb) -> None:
    async with Gateway.from_settings(Settings(fake_web=web.url, state={"backend": "memory"})) as gateway:
        tools = Toolbox.over(gateway)
        found = await call(tools, "web_search_multi", {**SEARCH, "question": QUESTION, "read_top": 2})
        body = json.loads(
            (await call(tools, "web_search_multi", {**SEARCH, "question": QUESTION, "read_top": 2}, "json")).text
        )
        plain = await call(tools, "web_search_multi", SEARCH)
        requests = len(web.pages.requests)
        passage = next(p for p in body["readings"][1]["passages"] if p["headings"][-1] == "Giving up after a timeout")
        again = json.loads((await call(tools, "web_fetch", {"ref": 2, "passage": passage["index"]}, "json")).text)
    assert found.reads == 2 and not found.is_error
    assert found.text.index("[1] asyncio") < found.text.index(f"Read for: {QUESTION}")
    assert re.search(r"^\[1§\d+\] .*Timeouts$", found.text, re.M)
    assert re.search(r"^\[2§\d+\] .*Giving up after a timeout$", found.text, re.M)
    assert "the caller stops waiting" in found.text and not re.search(r"^\[3§", found.text, re.M)
    assert body["question"] == QUESTION and [r["ref"] for r in body["readings"]] == [1, 2]
    assert all(r["tokens"] <= 500 for r in body["readings"])  # each page's share of the default 1000
    assert all(len(r["engines"]) > 1 for r in body["results"][:2])  # the merged answer, read on
    assert plain.reads == 0 and "Read for:" not in plain.text  # without a question nothing is read
    assert again["cached"] is True and again["passages"] == [passage] and len(web.pages.requests) == requests
    assert reads_of(web, DOCS, DOCS_PATH) == 1 == reads_of(web, WALK, WALK_PATH)  # the second search: the cache


async def test_a_multi_engine_search_is_charged_a_fetch_per_page_read(web: FakeWeb, tmp_path: Path) -> None:
    settings = Settings(
        fake_web=web.url, state={"backend": "memory"}, accounts={"enabled": True, "database": str(tmp_path / "a.db")}
    )
    async with Gateway.from_settings(settings) as gateway:
        gateway.accounts.add("bot", credits=100)
        gateway.accounts.set_options("bot", {"prices": {"web_fetch": 3}})
        tools = Toolbox.over(gateway, policies=account_policies(gateway.accounts))
        web.pages.add(WALK_PATH, b"down", status=503, host=WALK)
        body = json.loads(
            (await call(tools, "web_search_multi", {**SEARCH, "question": QUESTION, "read_top": 2}, "json")).text
        )
        plain = json.loads((await call(tools, "web_search_multi", SEARCH, "json")).text)
        too_many = json.loads((await call(tools, "web_search_multi", {**SEARCH, "question": "q", "read_top": 9})).text)
        ledger = gateway.accounts.ledger
        search_price = plain["cost"]["charged"]
        assert [("error" in reading) for reading in body["readings"]] == [False, True]
        assert search_price > 0 and body["cost"]["charged"] == search_price + 3  # one read made: the 503 is free
        assert ledger.agent("bot").balance == 100 - 2 * search_price - 3 == ledger.journal_sum("bot")
    assert too_many["code"] == "invalid_input" and "read_top" in too_many["message"]
