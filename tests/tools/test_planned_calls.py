"""A repeated call is planned once (tools/planned_calls.py): the same text meets the same plan, a profile still
shapes each caller's own call, refused text is refused every time, and the memo stays bounded. The same JSON
given as a mapping (MCP) meets the same plan; a mapping of other types is planned anew."""

from __future__ import annotations

import math
from collections import OrderedDict
from enum import IntEnum
from typing import Any

from webreach.state.sessions import MemorySessionStore
from webreach.tools import Toolbox
from webreach.tools.arguments import DEFAULT_TOOL_LIMIT
from webreach.tools.planned_calls import MAX_NODES, MAX_TEXT, Planned, PlannedCalls, memo_key

from .fakes import FakeBackend

SENT = '{"query": "rust async", "limit": 4}'


async def test_the_same_text_is_planned_once_and_searched_the_same() -> None:
    backend = FakeBackend()
    tools = Toolbox(backend, MemorySessionStore())
    first, second = [await tools.call("web_search", SENT) for _ in range(2)]
    assert first.text == second.text and not first.is_error
    assert backend.searches[0].request is backend.searches[1].request  # one plan, met twice
    await tools.call("web_search", {"query": "rust async", "limit": 4})  # the same JSON as a mapping (MCP)
    assert backend.searches[2].request is backend.searches[0].request


async def test_a_mapping_shares_a_plan_only_when_it_is_the_same_json() -> None:
    backend = FakeBackend()
    tools = Toolbox(backend, MemorySessionStore())
    given: dict[str, Any] = {"query": "rust", "limit": 4}
    await tools.call("web_search", given)
    given["query"] = "go"  # its owner changes it after the call: the memo kept its own copy
    await tools.call("web_search", {"query": "rust", "limit": 4})
    await tools.call("web_search", given)
    first, again, changed = (call.request for call in backend.searches)
    assert again is first and first.query == "rust" and changed.query == "go"


def test_only_json_made_of_its_own_types_has_a_memo_key() -> None:
    assert memo_key('{"query": "x"}') == '{"query": "x"}'
    assert memo_key({"query": "x", "engines": ["a"], "n": 1, "f": 1.5, "b": True, "z": None}) is not None
    assert (
        memo_key({"query": "x", "limit": 1})
        != memo_key({"query": "x", "limit": 1.0})
        != memo_key({"query": "x", "limit": True})
    )
    assert memo_key({"engines": ("a", "b")}) is None  # a tuple is not JSON: planned anew
    assert memo_key({"limit": IntEnum("Limit", "ONE").ONE}) is None  # nor a subclass of int
    assert memo_key({"limit": math.nan}) is None
    assert memo_key({"items": list(range(MAX_NODES))}) is None  # too big to be worth a key
    assert memo_key(None) is None and memo_key(OrderedDict(query="x")) is None


async def test_a_profile_shapes_its_callers_calls_and_no_one_elses() -> None:
    backend = FakeBackend()
    tools = Toolbox(backend, MemorySessionStore(), profile=lambda caller: {"max_results": 2} if caller else {})
    sent = '{"query": "rust"}'
    for caller in (None, "capped", None):
        assert not (await tools.call("web_search", sent, caller=caller)).is_error
    assert [call.request.limit for call in backend.searches] == [DEFAULT_TOOL_LIMIT, 2, DEFAULT_TOOL_LIMIT]


async def test_refused_text_is_refused_every_time() -> None:
    tools = Toolbox(FakeBackend(), MemorySessionStore())
    for _ in range(2):
        result = await tools.call("web_search", '{"query": "rust", "limit": "many"}')
        assert result.error is not None and result.error.code == "invalid_input"


def test_the_memo_keeps_the_latest_texts_and_no_long_one() -> None:
    memo = PlannedCalls(max_entries=2)
    tool = object()
    planned = Planned({}, None, None)
    for text in ("a", "b", "c"):
        memo.put(tool, text, planned)
    assert memo.get(tool, "a") is None and memo.get(tool, "c") is planned
    memo.get(tool, "b")  # used: now the latest
    memo.put(tool, "d", planned)
    assert memo.get(tool, "b") is planned and memo.get(tool, "c") is None
    memo.put(tool, "x" * (MAX_TEXT + 1), planned)
    assert memo.get(tool, "x" * (MAX_TEXT + 1)) is None
    assert memo.get(object(), "b") is None  # per tool
