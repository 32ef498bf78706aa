"""The tool pipeline: an OpenAI-style tool call in, a rendered result out, errors as the agent error body."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webreach.errors import (
    AllEnginesFailedError,
    BlockedError,
    FetchTimeoutError,
    RateLimitedError,
    WebreachError,
)
from webreach.models import MAX_WINDOW_CHARS, TOOL_LIMITS
from webreach.state.sessions import MemorySessionStore, SqliteSessionStore
from webreach.testing import FakeClock
from webreach.tools import PreparedCall, Toolbox, ToolResult
from webreach.tools.accounting import fingerprint
from webreach.tools.pipeline import Proceed

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
    found = await Toolbox(backend, store).call("web_search", {"query": "rust"}, session="s")
    assert not found.is_error and found.data is None
    assert "[2] Title 2\nb.example" in found.text and "https://" not in found.text
    read = await Toolbox(backend, store).call("web_fetch", '{"ref": 2, "max_chars": "500"}', session="s")
    assert backend.reads[0].url == "https://b.example/2" and backend.reads[0].max_chars == 500
    assert "URL: https://b.example/2" in read.text and "UNTRUSTED WEB PAGE" in read.text


async def test_search_arguments_reach_the_backend(store: MemorySessionStore) -> None:
    backend = FakeBackend()
    arguments = {"query": " rust  async ", "engine": "Bing", "limit": "3", "lang": "EN", "freshness": "w"}
    await Toolbox(backend, store).call("web_search", arguments)
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
    first = await Toolbox(backend, store).call("web_search", {"query": "a"})
    second = await Toolbox(backend, store).call("web_search", {"query": "b"}, output="json")
    assert "[1] Title 1" in first.text and "[2] Title 2" in first.text
    assert second.data is not None and second.data["results"][0]["ref"] == 2


async def test_several_queries_are_answered_together(store: MemorySessionStore) -> None:
    backend = FakeBackend(
        answers={
            "a": response("a", "https://x.example/1", "https://x.example/shared"),
            "b": response("b", "https://x.example/shared", "https://x.example/3"),
        }
    )
    result = await Toolbox(backend, store).call("web_search", {"query": ["a", "b"]})
    assert [call.request.query for call in backend.searches] == ["a", "b"]
    text = result.text
    assert text.index('Results for "a"') < text.index('Results for "b"')
    assert text.count("[2] Title 2") == 1 and "[2] Title 1" in text and "[3] Title 2" in text
    assert text.count("Read a result with web_fetch(ref=N).") == 1


async def test_one_failed_query_of_several_is_reported_in_its_section(store: MemorySessionStore) -> None:
    backend = FakeBackend(answers={"b": RateLimitedError("slow down", engine="bing", retry_after=30)})
    result = await Toolbox(backend, store).call("web_search", {"query": ["a", "b"]})
    assert not result.is_error
    assert 'Results for "a"' in result.text and 'Search "b" failed: rate_limited' in result.text


async def test_when_every_query_fails_the_call_fails(store: MemorySessionStore) -> None:
    failure = AllEnginesFailedError(
        "no engine answered", errors=[BlockedError("captcha page", kind="captcha", engine="bing", retry_after=60)]
    )
    backend = FakeBackend(answers={"a": failure, "b": failure})
    result = await Toolbox(backend, store).call("web_search", {"query": ["a", "b"]})
    body = error_of(result)
    assert body["code"] == "all_engines_failed" and body["retry_after"] == 60
    assert "attempts" not in body  # compact output keeps the per-engine errors only
    full = await Toolbox(backend, store).call("web_search", {"query": "a"}, output="json")
    assert "attempts" in error_of(full)


async def test_unknown_engines_are_refused_listing_the_valid_ones(store: MemorySessionStore) -> None:
    backend = FakeBackend()
    result = await Toolbox(backend, store).call("web_search", {"query": "x", "engine": "altavista"})
    body = error_of(result)
    assert body["code"] == "invalid_input"
    assert "Valid engines: auto, bing, duckduckgo, mojeek." in str(body["message"])
    multi = await Toolbox(backend, store).call("web_search", {"query": "x", "engine": "multi"})
    assert "web_search_multi" in str(error_of(multi)["message"])
    listed = await Toolbox(backend, store).call("web_search_multi", {"query": "x", "engines": "bing,auto"})
    assert "Valid engines: bing, duckduckgo, mojeek." in str(error_of(listed)["message"])
    assert backend.searches == []


async def test_multi_fans_out_through_the_backend(store: MemorySessionStore) -> None:
    backend = FakeBackend()
    result = await Toolbox(backend, store).call("web_search_multi", {"query": "x", "engines": "bing, mojeek"})
    assert not result.is_error
    call = backend.searches[0]
    assert (call.engine, call.engines, call.request.limit) == ("multi", ("bing", "mojeek"), 8)


async def test_engine_errors_keep_code_and_retry_after(store: MemorySessionStore) -> None:
    backend = FakeBackend(answers={"x": RateLimitedError("slow down", engine="bing", retry_after=30)})
    result = await Toolbox(backend, store).call("web_search", {"query": "x", "engine": "bing"})
    body = error_of(result)
    assert (body["code"], body["retry_after"], body["engine"]) == ("rate_limited", 30, "bing")
    assert isinstance(result.error, RateLimitedError)


async def test_fetch_errors_come_back_as_bodies(store: MemorySessionStore) -> None:
    backend = FakeBackend(pages={"https://slow.example/": FetchTimeoutError("too slow", url="https://slow.example/")})
    result = await Toolbox(backend, store).call("web_fetch", {"url": "https://slow.example/"})
    assert error_of(result)["code"] == "timeout"


async def test_unknown_refs_tell_the_agent_what_to_do(store: MemorySessionStore) -> None:
    backend = FakeBackend()
    await Toolbox(backend, store).call("web_search", {"query": "x"}, session="a")
    result = await Toolbox(backend, store).call("web_fetch", {"ref": 1}, session="b")
    body = error_of(result)
    assert body["code"] == "unknown_ref"
    assert "search again" in str(body["message"]).lower() and "url" in str(body["message"])
    assert backend.reads == []


async def test_refs_need_a_session_store() -> None:
    result = await Toolbox(FakeBackend(), None).call("web_fetch", {"ref": 1})
    assert error_of(result)["code"] == "invalid_input"


async def test_without_a_store_results_show_urls() -> None:
    result = await Toolbox(FakeBackend(), None).call("web_search", {"query": "x"})
    assert "https://x.example/1" in result.text and "Note" not in result.text


async def test_a_failing_store_falls_back_to_urls(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    store = SqliteSessionStore(blocker / "state.sqlite3", clock=FakeClock())
    backend = FakeBackend()
    result = await Toolbox(backend, store).call("web_search", {"query": "x"})
    assert not result.is_error
    assert "https://x.example/1" in result.text and "[1]" not in result.text
    assert "Note: numbered refs are unavailable (session store error)" in result.text
    as_json = await Toolbox(backend, store).call("web_search", {"query": "x"}, output="json")
    assert as_json.data is not None and as_json.data["notes"] and "ref" not in as_json.data["results"][0]
    fetched = await Toolbox(backend, store).call("web_fetch", {"ref": 1})
    assert error_of(fetched)["code"] == "session_store_unavailable"


async def test_json_output(store: MemorySessionStore) -> None:
    backend = FakeBackend(pages={"https://p.example/": page("https://p.example/", "Body", total=100)})
    found = await Toolbox(backend, store).call("web_search", {"query": "x"}, output="json")
    assert found.data is not None and json.loads(found.text) == found.data
    assert found.data["results"][0]["url"] == "https://x.example/1" and found.data["results"][0]["ref"] == 1
    read = await Toolbox(backend, store).call("web_fetch", {"url": "https://p.example/"}, output="json")
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
    result = await Toolbox(FakeBackend(), store).call(name, arguments)  # type: ignore[arg-type]
    body = error_of(result)
    assert body["code"] == "invalid_input" and fragment in str(body["message"])


async def test_disabled_tools_cannot_be_called(store: MemorySessionStore) -> None:
    result = await Toolbox(FakeBackend(), store, enabled={"web_search"}).call("web_search_multi", {"query": "x"})
    body = error_of(result)
    assert "not enabled" in str(body["message"]) and "Available tools: web_search." in str(body["message"])


async def test_an_unknown_output_format_is_a_programming_error(store: MemorySessionStore) -> None:
    with pytest.raises(ValueError, match="output"):
        await Toolbox(FakeBackend(), store).call("web_search", {"query": "x"}, output="xml")  # type: ignore[arg-type]


async def test_a_bad_session_name_is_refused_before_searching(store: MemorySessionStore) -> None:
    backend = FakeBackend()
    result = await Toolbox(backend, store).call("web_search", {"query": "x"}, session="")
    assert error_of(result)["code"] == "invalid_input"
    assert backend.searches == []


class Recording:
    """A CallPolicy that records what it saw and may refuse."""

    def __init__(self, name: str, log: list[str], refuse: WebreachError | None = None) -> None:
        self.name, self.log, self.refuse = name, log, refuse
        self.seen: list[PreparedCall] = []

    async def __call__(self, call: PreparedCall, proceed: Proceed) -> ToolResult:
        self.seen.append(call)
        self.log.append(f"{self.name} in")
        if self.refuse is not None:
            raise self.refuse
        result = await proceed()
        self.log.append(f"{self.name} out")
        return result


async def test_policies_wrap_each_checked_call_in_order(store: MemorySessionStore) -> None:
    log: list[str] = []
    outer, inner = Recording("outer", log), Recording("inner", log)
    backend = FakeBackend()
    tools = Toolbox(backend, store, policies=[outer, inner])
    result = await tools.call("web_search", {"query": "x"}, session="s", caller="agent-7", idempotency_key="k1")
    assert not result.is_error and log == ["outer in", "inner in", "inner out", "outer out"]
    (seen,) = outer.seen
    assert (seen.context.caller, seen.context.idempotency_key, seen.context.session) == ("agent-7", "k1", "s")
    assert seen.tool.name == "web_search" and seen.plan.requests[0].query == "x"


async def test_a_refused_input_never_reaches_a_policy(store: MemorySessionStore) -> None:
    policy = Recording("p", [])
    tools = Toolbox(FakeBackend(), store, policies=[policy])
    for name, arguments in [("web_search", {"query": ""}), ("web_nope", {}), ("web_fetch", {"url": "x", "ref": 1})]:
        assert error_of(await tools.call(name, arguments))["code"] == "invalid_input"
    assert error_of(await tools.call("web_search", {"query": "x"}, session=""))["code"] == "invalid_input"
    assert policy.seen == []


async def test_a_policy_refusal_is_an_error_body_and_nothing_goes_upstream(store: MemorySessionStore) -> None:
    backend = FakeBackend()
    refusal = RateLimitedError("10 calls an hour", retry_after=120)
    tools = Toolbox(backend, store, policies=[Recording("quota", [], refuse=refusal)])
    body = error_of(await tools.call("web_search", {"query": "x"}))
    assert (body["code"], body["retry_after"]) == ("rate_limited", 120)
    assert backend.searches == []


async def test_web_fetch_is_where_refs_become_urls(store: MemorySessionStore) -> None:
    backend = FakeBackend()
    tools = Toolbox(backend, store)
    await tools.call("web_search", {"query": "x"}, session="s")
    assert (await tools.call("web_fetch", {"ref": 2}, session="s")).value.url == "https://x.example/2"
    assert error_of(await tools.call("web_fetch", {"ref": 2}, session="other"))["code"] == "unknown_ref"
    both = error_of(await tools.call("web_fetch", {"url": "https://a.example/", "ref": 2}, session="s"))
    assert both["code"] == "invalid_input" and "exactly one of url or ref" in str(both["message"])
    refused = error_of(await Toolbox(backend, None).call("web_fetch", {"ref": 1}))
    assert refused["code"] == "invalid_input" and "not available" in str(refused["message"])


async def test_refs_past_the_largest_are_invalid_input(store: MemorySessionStore) -> None:
    body = error_of(await Toolbox(FakeBackend(), store).call("web_fetch", {"ref": 2**63}))
    assert body["code"] == "invalid_input" and "ref" in str(body["message"])


async def test_a_null_limit_takes_the_profile_default_like_a_missing_one(store: MemorySessionStore) -> None:
    # OpenAI's strict mode sends every argument, unset ones as null: null means the default, the profile's included
    backend = FakeBackend()
    tools = Toolbox(backend, store, profile=lambda caller: {"default_results": 3})
    for sent in ('{"query": "rust", "limit": null}', {"query": "rust", "limit": None}, {"query": "rust"}):
        assert not (await tools.call("web_search", sent, caller="bot")).is_error
    assert [call.request.limit for call in backend.searches] == [3, 3, 3]
    await tools.call("web_search", '{"query": "rust", "limit": 5}', caller="bot")
    assert backend.searches[-1].request.limit == 5  # a limit the agent gave stands


async def test_a_profile_default_above_the_tool_maximum_is_lowered_to_it(store: MemorySessionStore) -> None:
    backend = FakeBackend()
    tools = Toolbox(backend, store, profile=lambda caller: {"default_results": 500, "default_chars": 10**9})
    assert not (await tools.call("web_search", {"query": "rust"}, caller="bot")).is_error
    assert backend.searches[0].request.limit == TOOL_LIMITS["web_search"].maximum
    assert not (await tools.call("web_fetch", {"url": "https://a.example/"}, caller="bot")).is_error
    assert backend.reads[0].max_chars == MAX_WINDOW_CHARS


async def test_the_idempotency_fingerprint_reads_the_arguments_as_sent(store: MemorySessionStore) -> None:
    seen: list[str] = []

    async def remember(call: PreparedCall, proceed: Proceed) -> ToolResult:
        seen.append(fingerprint(call))
        return await proceed()

    tools = Toolbox(FakeBackend(), store, policies=[remember])
    await tools.call("web_search", '{"query": "rust", "limit": null}', idempotency_key="k")
    await tools.call("web_search", {"query": "rust", "limit": None}, idempotency_key="k")
    await tools.call("web_search", {"query": "rust"}, idempotency_key="k")
    assert seen[0] == seen[1] != seen[2]  # text and mapping alike; a null is part of what was sent
