"""Reading for a question through the real tool pipeline, offline: search the fake web, then read the first
result for a question, quote an anchor, read a passage by it, ask again; the page is fetched once.

The fake web serves the first result's URL (docs.python.org's asyncio page in its recordings) as a long
documentation page registered by the test, so the reader, the extractor, the page cache and the renderers are
all the real ones.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest

from webreach.config import Settings
from webreach.gateway import Gateway
from webreach.models import QUESTION_MAX_TOKENS, TRIM_MARK
from webreach.testing import FakeWeb
from webreach.tools import Toolbox

pytestmark = pytest.mark.network
HOST, PATH = "docs.python.org", "/3/library/asyncio.html"
TOPICS = {
    "Event loops": "The event loop runs asynchronous tasks and callbacks, performs network IO operations and runs "
    "subprocesses. Application developers should typically use the high-level asyncio functions.",
    "Timeouts": "To stop waiting for a coroutine after some seconds, wrap it in asyncio.wait_for with a timeout "
    "argument. When the timeout expires the task is cancelled and TimeoutError is raised. The asyncio.timeout "
    "context manager does the same for a block of code.",
    "Queues": "Queues let producers hand work to consumers. A queue with a maximum size blocks a producer until a "
    "consumer has taken an item, which keeps memory bounded.",
    "Subprocesses": "Create a subprocess with create_subprocess_exec and read its output through stream readers. "
    "Always wait for the process to finish so its resources are released.",
    "Synchronization": "Locks, events, conditions and semaphores coordinate tasks. They are not thread-safe and "
    "must be used from the event loop's thread only.",
}


def page_html() -> bytes:
    sections = []
    for number, (heading, sentence) in enumerate(TOPICS.items()):
        filler = " ".join(f"Paragraph {n} of {heading.lower()} explains one more detail at length." for n in range(6))
        sections.append(f"<h2>{heading}</h2><p>{sentence}</p><p>{filler}</p><p>{filler} Note {number}.</p>")
    code = "<pre><code>async def main():\n    await asyncio.wait_for(work(), timeout=1.0)\n</code></pre>"
    body = "".join(sections[:2]) + code + "".join(sections[2:])
    return (
        "<!doctype html><html><head><title>asyncio — Asynchronous I/O</title></head><body><main>"
        f"<h1>asyncio — Asynchronous I/O</h1><p>asyncio is a library to write concurrent code.</p>{body}"
        "</main></body></html>"
    ).encode()


@pytest.fixture
async def web() -> AsyncIterator[FakeWeb]:
    async with FakeWeb() as server:
        server.pages.add(PATH, page_html(), host=HOST, headers={"content-type": "text/html; charset=utf-8"})
        yield server


async def call(tools: Toolbox, name: str, arguments: dict[str, Any], output: Any = "compact") -> str:
    return (await tools.call(name, arguments, session="agent-1", output=output)).text


async def test_search_then_read_for_a_question_then_by_anchor(web: FakeWeb) -> None:
    async with Gateway.from_settings(Settings(fake_web=web.url, state={"backend": "memory"})) as gateway:
        tools = Toolbox.over(gateway)
        results = await call(tools, "web_search", {"query": "python asyncio tutorial"})
        assert "[1] asyncio" in results
        question = "How do I stop waiting for a coroutine after a timeout?"
        answer = await call(tools, "web_fetch", {"ref": 1, "question": question, "max_tokens": 200})
        # the Timeouts section's passage, labelled with its anchor and heading path
        anchors = re.findall(r"^\[1§(\d+)\] (.*)$", answer, re.M)
        assert anchors and ("asyncio — Asynchronous I/O > Timeouts" in [path for _, path in anchors])
        assert "with a timeout argument" in answer
        assert f"Question: {question}" in answer
        assert "Queues let producers" not in answer  # not relevant, left out
        left = re.search(r"^Left out: (\d+) of (\d+) passages .* web_fetch\(ref=1, passage=(\d+)\)", answer, re.M)
        assert left is not None and int(left.group(1)) > 0
        timeouts = next(n for n, path in anchors if path.endswith("Timeouts"))
        # the anchor reads the same text back, from the cache
        again = await call(tools, "web_fetch", {"ref": 1, "passage": int(timeouts)})
        assert re.findall(r"^\[1§(\d+)\]", again, re.M) == [timeouts]
        passage_text = again.split(f"[1§{timeouts}] asyncio — Asynchronous I/O > Timeouts\n", 1)[1].split("\n===")[0]
        assert passage_text in answer
        # a second question on the same page
        second = await call(tools, "web_fetch", {"ref": 1, "question": "Are locks thread-safe?", "max_tokens": 150})
        assert "not thread-safe" in second
        # reading on from a passage within a budget
        on = json.loads(await call(tools, "web_fetch", {"ref": 1, "passage": 1, "max_tokens": 400}, "json"))
        assert [p["index"] for p in on["passages"]] == list(range(1, len(on["passages"]) + 1))
        assert len(on["passages"]) > 1 and on["tokens"] <= 400
    reads = [r for r in web.pages.requests if r.path == PATH]
    assert len(reads) == 1, "one fetch and one extraction serve every question and passage"


async def test_json_output_carries_anchors_and_the_default_budget(web: FakeWeb) -> None:
    async with Gateway.from_settings(Settings(fake_web=web.url, state={"backend": "memory"})) as gateway:
        tools = Toolbox.over(gateway)
        await call(tools, "web_search", {"query": "python asyncio tutorial"})
        body = json.loads(await call(tools, "web_fetch", {"ref": 1, "question": "what is a queue for"}, "json"))
    assert body["ref"] == 1 and body["question"] == "what is a queue for"
    assert body["tokens"] <= QUESTION_MAX_TOKENS and body["total_passages"] >= len(body["passages"])
    for passage in body["passages"]:
        assert passage["anchor"] == f"[1§{passage['index']}]"
        assert passage["headings"][0] == "asyncio — Asynchronous I/O"
    assert body["content"] == "\n\n".join(p["text"] for p in body["passages"])
    assert "Queues let producers" in body["content"]
    assert body["more"].startswith(("Left out:", "Nothing left out", "Passage"))  # "Passages 3, 5 are trimmed"


async def test_bad_passages_refs_and_combinations_are_typed_errors(web: FakeWeb) -> None:
    async with Gateway.from_settings(Settings(fake_web=web.url, state={"backend": "memory"})) as gateway:
        tools = Toolbox.over(gateway)
        await call(tools, "web_search", {"query": "python asyncio tutorial"})
        unknown = json.loads(await call(tools, "web_fetch", {"ref": 1, "passage": 500}))
        expired = json.loads(await call(tools, "web_fetch", {"ref": 77, "question": "anything"}))
        both = json.loads(await call(tools, "web_fetch", {"ref": 1, "passage": 1, "question": "what"}))
        html = json.loads(await call(tools, "web_fetch", {"ref": 1, "question": "what", "format": "html"}))
        blank = json.loads(await call(tools, "web_fetch", {"ref": 1, "question": "   "}))
        zero = json.loads(await call(tools, "web_fetch", {"ref": 1, "passage": 0}))
    assert unknown["code"] == "unknown_passage"
    assert re.search(r"this page has \d+ passages\. Pass passage=1 to \d+", unknown["message"])
    assert expired["code"] == "unknown_ref" and "Search again" in expired["message"]
    assert both["code"] == "invalid_input" and "not both" in both["message"]
    assert html["code"] == "invalid_input" and "format='markdown'" in html["message"]
    assert blank["code"] == "invalid_input" and "question" in blank["message"]
    assert zero["code"] == "invalid_input" and "passage" in zero["message"]


@pytest.mark.parametrize("dialect", ["mcp", "openai", "openai-responses", "anthropic"])
async def test_every_dialect_gets_the_new_arguments_from_the_one_definition(web: FakeWeb, dialect: Any) -> None:
    async with Gateway.from_settings(Settings(fake_web=web.url, state={"backend": "memory"})) as gateway:
        schemas = Toolbox.over(gateway).schemas(dialect, strict=dialect.startswith("openai"))
    fetch = next(s for s in schemas if s.get("function", s).get("name") == "web_fetch")
    text = json.dumps(fetch)
    for name in ("question", "passage"):
        assert f'"{name}"' in text
    assert '"max_tokens"' not in text  # taken, but left out of the model-facing schema (tools/schemas.py)


async def test_concurrent_questions_on_one_cached_page_agree(web: FakeWeb) -> None:
    async with Gateway.from_settings(Settings(fake_web=web.url, state={"backend": "memory"})) as gateway:
        tools = Toolbox.over(gateway)
        await call(tools, "web_search", {"query": "python asyncio tutorial"})
        await call(tools, "web_fetch", {"ref": 1, "passage": 1})  # the page is read and cut once
        questions = ["Are locks thread-safe?", "What is a queue for?", "How do I read a subprocess's output?"] * 2
        answers = await asyncio.gather(
            *(call(tools, "web_fetch", {"ref": 1, "question": q, "max_tokens": 150}) for q in questions)
        )
    assert answers[:3] == answers[3:]
    assert "not thread-safe" in answers[0] and "producers" in answers[1] and "stream readers" in answers[2]
    assert len([r for r in web.pages.requests if r.path == PATH]) == 1


async def test_a_tight_budget_trims_passages_to_whole_sentences_and_the_anchor_reads_them_whole(web: FakeWeb) -> None:
    async with Gateway.from_settings(Settings(fake_web=web.url, state={"backend": "memory"})) as gateway:
        tools = Toolbox.over(gateway)
        await call(tools, "web_search", {"query": "python asyncio tutorial"})
        question = "How do I stop waiting for a coroutine after a timeout?"
        arguments = {"ref": 1, "question": question, "max_tokens": 250}
        body = json.loads(await call(tools, "web_fetch", arguments, "json"))
        text = await call(tools, "web_fetch", arguments)
        trimmed = [p for p in body["passages"] if p.get("trimmed")]
        assert trimmed and body["tokens"] <= 250
        assert "with a timeout argument." in body["content"]
        assert all("trimmed" not in p for p in body["passages"] if p not in trimmed)  # only said when true
        for passage in trimmed:
            whole = json.loads(await call(tools, "web_fetch", {"ref": 1, "passage": passage["index"]}, "json"))
            full = whole["passages"][0]["text"]
            assert "trimmed" not in whole["passages"][0] and TRIM_MARK not in full
            shown = passage["text"].removeprefix(f"{TRIM_MARK} ").removesuffix(f" {TRIM_MARK}")
            assert TRIM_MARK in passage["text"] and shown in full and len(shown) < len(full)
            assert shown[-1] in ".!?;" or full.endswith(shown)  # cut at a sentence's end
            before = full[: full.index(shown)].rstrip()
            assert not before or before[-1] in ".!?;"  # and at a sentence's start
            assert f"[1§{passage['index']}] " in text
        assert re.search(
            rf"trimmed to (its|their) best sentences \({TRIM_MARK} marks a cut\): web_fetch\(ref=1, ", text
        )
