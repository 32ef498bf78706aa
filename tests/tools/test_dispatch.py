"""dispatch: an OpenAI-style tool call in, a rendered result out, errors as the agent error body, never raised."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webreach.errors import AllEnginesFailedError, BlockedError, FetchTimeoutError, RateLimitedError
from webreach.state.sessions import MemorySessionStore, SqliteSessionStore
from webreach.testing import FakeClock
from webreach.tools import ToolResult, dispatch, tool_memos
from webreach.tools.dispatch import MAX_PREPARED_TEXT

from .fakes import FakeBackend, page, response


@pytest.fixture
def store() -> MemorySessionStore:
    return MemorySessionStore(clock=FakeClock())


def error_of(result: ToolResult) -> dict[str, object]:
    assert result.is_error and result.error is not None and result.data is not None
    body = json.loads(result.text)
    assert body == result.data
    assert list(body)[:5] == ["status", "tool", "code", "message", "retry_after"]
    assert body["status"] == "error" and body["tool"] == result.tool
    return dict(body)


async def test_search_then_fetch_by_ref(store: MemorySessionStore) -> None:
    backend = FakeBackend(answers={"rust": response("rust", "https://a.example/1", "https://b.example/2")})
    found = await dispatch(backend, "web_search", {"query": "rust"}, sessions=store, session="s")
    assert not found.is_error and found.data is None
    assert "[2] Title 2\nb.example" in found.text and "https://" not in found.text
    read = await dispatch(backend, "web_fetch", '{"ref": 2, "max_chars": "500"}', sessions=store, session="s")
    assert backend.reads[0].url == "https://b.example/2" and backend.reads[0].max_chars == 500
    assert "URL: https://b.example/2" in read.text and "UNTRUSTED WEB PAGE" in read.text


async def test_search_arguments_reach_the_backend(store: MemorySessionStore) -> None:
    backend = FakeBackend()
    arguments = {"query": " rust  async ", "engine": "Bing", "limit": "3", "lang": "EN", "freshness": "w"}
    await dispatch(backend, "web_search", arguments, sessions=store)
    call = backend.searches[0]
    assert (call.engine, call.engines) == ("bing", None)
    request = call.request
    assert (request.query, request.limit, request.language, request.freshness) == ("rust async", 3, "en", "week")


async def test_refs_keep_counting_across_calls_and_repeat_for_known_urls(store: MemorySessionStore) -> None:
    backend = FakeBackend(
        answers={
            "a": response("a", "https://x.example/1", "https://x.example/2"),
            "b": response("b", "https://x.example/2"),
        }
    )
    first = await dispatch(backend, "web_search", {"query": "a"}, sessions=store)
    second = await dispatch(backend, "web_search", {"query": "b"}, sessions=store, output="json")
    assert "[1] Title 1" in first.text and "[2] Title 2" in first.text
    assert second.data is not None and second.data["results"][0]["ref"] == 2


async def test_several_queries_are_answered_together(store: MemorySessionStore) -> None:
    backend = FakeBackend(
        answers={
            "a": response("a", "https://x.example/1", "https://x.example/shared"),
            "b": response("b", "https://x.example/shared", "https://x.example/3"),
        }
    )
    result = await dispatch(backend, "web_search", {"query": ["a", "b"]}, sessions=store)
    assert [call.request.query for call in backend.searches] == ["a", "b"]
    text = result.text
    assert text.index('Results for "a"') < text.index('Results for "b"')
    assert text.count("[2] Title 2") == 1 and "[2] Title 1" in text and "[3] Title 2" in text
    assert text.count("Read a result with web_fetch(ref=N).") == 1


async def test_one_failed_query_of_several_is_reported_in_its_section(store: MemorySessionStore) -> None:
    backend = FakeBackend(answers={"b": RateLimitedError("slow down", engine="bing", retry_after=30)})
    result = await dispatch(backend, "web_search", {"query": ["a", "b"]}, sessions=store)
    assert not result.is_error
    assert 'Results for "a"' in result.text and 'Search "b" failed: rate_limited' in result.text


async def test_when_every_query_fails_the_call_fails(store: MemorySessionStore) -> None:
    failure = AllEnginesFailedError(
        "no engine answered", errors=[BlockedError("captcha page", kind="captcha", engine="bing", retry_after=60)]
    )
    backend = FakeBackend(answers={"a": failure, "b": failure})
    result = await dispatch(backend, "web_search", {"query": ["a", "b"]}, sessions=store)
    body = error_of(result)
    assert body["code"] == "all_engines_failed" and body["retry_after"] == 60
    assert "attempts" not in body  # compact output keeps the per-engine errors only
    full = await dispatch(backend, "web_search", {"query": "a"}, sessions=store, output="json")
    assert "attempts" in error_of(full)


async def test_unknown_engines_are_refused_listing_the_valid_ones(store: MemorySessionStore) -> None:
    backend = FakeBackend()
    result = await dispatch(backend, "web_search", {"query": "x", "engine": "altavista"}, sessions=store)
    body = error_of(result)
    assert body["code"] == "invalid_input"
    assert "Valid engines: auto, bing, duckduckgo, mojeek." in str(body["message"])
    multi = await dispatch(backend, "web_search", {"query": "x", "engine": "multi"}, sessions=store)
    assert "web_search_multi" in str(error_of(multi)["message"])
    listed = await dispatch(backend, "web_search_multi", {"query": "x", "engines": "bing,auto"}, sessions=store)
    assert "Valid engines: bing, duckduckgo, mojeek." in str(error_of(listed)["message"])
    assert backend.searches == []


async def test_multi_fans_out_through_the_backend(store: MemorySessionStore) -> None:
    backend = FakeBackend()
    result = await dispatch(backend, "web_search_multi", {"query": "x", "engines": "bing, mojeek"}, sessions=store)
    assert not result.is_error
    call = backend.searches[0]
    assert (call.engine, call.engines, call.request.limit) == ("multi", ("bing", "mojeek"), 8)


async def test_engine_errors_keep_code_and_retry_after(store: MemorySessionStore) -> None:
    backend = FakeBackend(answers={"x": RateLimitedError("slow down", engine="bing", retry_after=30)})
    result = await dispatch(backend, "web_search", {"query": "x", "engine": "bing"}, sessions=store)
    body = error_of(result)
    assert (body["code"], body["retry_after"], body["engine"]) == ("rate_limited", 30, "bing")
    assert isinstance(result.error, RateLimitedError)


async def test_fetch_errors_come_back_as_bodies(store: MemorySessionStore) -> None:
    backend = FakeBackend(pages={"https://slow.example/": FetchTimeoutError("too slow", url="https://slow.example/")})
    result = await dispatch(backend, "web_fetch", {"url": "https://slow.example/"}, sessions=store)
    assert error_of(result)["code"] == "timeout"


async def test_unknown_refs_tell_the_agent_what_to_do(store: MemorySessionStore) -> None:
    backend = FakeBackend()
    await dispatch(backend, "web_search", {"query": "x"}, sessions=store, session="a")
    result = await dispatch(backend, "web_fetch", {"ref": 1}, sessions=store, session="b")
    body = error_of(result)
    assert body["code"] == "unknown_ref"
    assert "search again" in str(body["message"]).lower() and "url" in str(body["message"])
    assert backend.reads == []


async def test_refs_need_a_session_store() -> None:
    result = await dispatch(FakeBackend(), "web_fetch", {"ref": 1}, sessions=None)
    assert error_of(result)["code"] == "invalid_input"


async def test_without_a_store_results_show_urls() -> None:
    result = await dispatch(FakeBackend(), "web_search", {"query": "x"}, sessions=None)
    assert "https://x.example/1" in result.text and "Note" not in result.text


async def test_a_failing_store_falls_back_to_urls(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    store = SqliteSessionStore(blocker / "state.sqlite3", clock=FakeClock())
    backend = FakeBackend()
    result = await dispatch(backend, "web_search", {"query": "x"}, sessions=store)
    assert not result.is_error
    assert "https://x.example/1" in result.text and "[1]" not in result.text
    assert "Note: numbered refs are unavailable (session store error)" in result.text
    as_json = await dispatch(backend, "web_search", {"query": "x"}, sessions=store, output="json")
    assert as_json.data is not None and as_json.data["notes"] and "ref" not in as_json.data["results"][0]
    fetched = await dispatch(backend, "web_fetch", {"ref": 1}, sessions=store)
    assert error_of(fetched)["code"] == "session_store_unavailable"


async def test_json_output(store: MemorySessionStore) -> None:
    backend = FakeBackend(pages={"https://p.example/": page("https://p.example/", "Body", total=100)})
    found = await dispatch(backend, "web_search", {"query": "x"}, sessions=store, output="json")
    assert found.data is not None and json.loads(found.text) == found.data
    assert found.data["results"][0]["url"] == "https://x.example/1" and found.data["results"][0]["ref"] == 1
    read = await dispatch(backend, "web_fetch", {"url": "https://p.example/"}, sessions=store, output="json")
    assert read.data is not None and read.data["next_start"] == 4 and read.data["content"] == "Body"


@pytest.mark.parametrize(
    ("name", "arguments", "fragment"),
    [
        ("web_browse", {}, "unknown tool 'web_browse'"),
        ("web_search", "{not json", "not valid JSON"),
        ("web_search", "[1, 2]", "must be a JSON object"),
        ("web_search", {"query": "x", "count": 3}, "unknown argument: 'count'"),
        ("web_search", None, "query"),
        ("web_fetch", {"url": "https://a.example", "ref": 1}, "exactly one of url or ref"),
    ],
)
async def test_bad_calls_become_invalid_input(
    store: MemorySessionStore, name: str, arguments: object, fragment: str
) -> None:
    result = await dispatch(FakeBackend(), name, arguments, sessions=store)  # type: ignore[arg-type]
    body = error_of(result)
    assert body["code"] == "invalid_input" and fragment in str(body["message"])


async def test_disabled_tools_cannot_be_called(store: MemorySessionStore) -> None:
    result = await dispatch(FakeBackend(), "web_search_multi", {"query": "x"}, sessions=store, enabled={"web_search"})
    body = error_of(result)
    assert "not enabled" in str(body["message"]) and "Available tools: web_search." in str(body["message"])


async def test_an_unknown_output_format_is_a_programming_error(store: MemorySessionStore) -> None:
    with pytest.raises(ValueError, match="output"):
        await dispatch(FakeBackend(), "web_search", {"query": "x"}, sessions=store, output="xml")  # type: ignore[arg-type]


async def test_a_bad_session_name_is_refused_before_searching(store: MemorySessionStore) -> None:
    backend = FakeBackend()
    result = await dispatch(backend, "web_search", {"query": "x"}, sessions=store, session="")
    assert error_of(result)["code"] == "invalid_input"
    assert backend.searches == []


async def test_memos_plan_an_argument_text_once(store: MemorySessionStore) -> None:
    backend = FakeBackend()
    memos = tool_memos(backend, entries=8)
    text = '{"query": "rust", "engine": "bing", "limit": 3}'
    first = await dispatch(backend, "web_search", text, sessions=store, session="s", memos=memos)
    again = await dispatch(backend, "web_search", text, sessions=store, session="t", memos=memos)
    assert len(memos.prepared) == 1 and first.text == again.text
    assert backend.searches[0].request is backend.searches[1].request  # planned once, the same request both times
    assert (backend.searches[0].engine, backend.searches[0].request.limit) == ("bing", 3)


async def test_memos_keep_no_failure_and_no_long_text(store: MemorySessionStore) -> None:
    backend = FakeBackend()
    memos = tool_memos(backend)
    for _ in range(2):
        wrong = await dispatch(backend, "web_search", '{"query": "q", "engine": "nope"}', memos=memos, sessions=store)
        assert error_of(wrong)["code"] == "invalid_input" and "Valid engines" in str(error_of(wrong)["message"])
    long_text = json.dumps({"query": "q"}) + " " * MAX_PREPARED_TEXT  # valid, just long
    assert not (await dispatch(backend, "web_search", long_text, memos=memos, sessions=store)).is_error
    assert len(memos.prepared) == 0
    # the same arguments as a mapping are planned afresh, never looked up
    await dispatch(backend, "web_search", {"query": "q"}, memos=memos, sessions=store)
    assert len(memos.prepared) == 0


async def test_memos_serve_only_the_backend_they_were_made_for(store: MemorySessionStore) -> None:
    memos = tool_memos(FakeBackend(engines=("bing",)))
    with pytest.raises(ValueError, match="another backend"):
        await dispatch(FakeBackend(), "web_search", '{"query": "q"}', sessions=store, memos=memos)
