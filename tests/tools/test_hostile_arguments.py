"""Hostile arguments through the one tool pipeline: every answer is a result or a typed error, never an exception.

Property tests run a bounded number of examples (hypothesis profile "default", 200); WEBREACH_FUZZ=long runs the
"long" profile for a deeper search.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webreach.bounded_json import nests_deeper_than
from webreach.errors import InvalidInputError
from webreach.frontends._errors import HTTP_STATUS
from webreach.models import Page, ReadRequest
from webreach.state.sessions import MemorySessionStore, check_session, storable
from webreach.tools import Toolbox
from webreach.tools.arguments import MAX_JSON_DEPTH, check_depth, check_json_depth

from .fakes import FakeBackend, page, response

settings.register_profile("default", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("long" if os.environ.get("WEBREACH_FUZZ") == "long" else "default")

TOOLS = ("web_search", "web_search_multi", "web_fetch")
BOMB = "[" * 100_000 + "]" * 100_000


class AnyUrlBackend(FakeBackend):
    """Reads any URL it is given: what a URL is allowed to be is the reader's business (tests/net), not this one's."""

    async def read(self, request: ReadRequest) -> Page:
        self.reads.append(request)
        return page(request.url)


def toolbox(backend: FakeBackend | None = None) -> Toolbox:
    return Toolbox(backend or AnyUrlBackend(), MemorySessionStore())


def assert_answer(text: str, is_error: bool) -> None:
    """A typed error body whose code the doors know, or a result."""
    if is_error:
        body = json.loads(text)
        assert body["status"] == "error"
        assert body["code"] in HTTP_STATUS and body["code"] != "error"


HOSTILE = [
    ("web_search", '{"query":' + BOMB + "}"),
    ("web_search", BOMB),
    ("web_search", "{" * 50_000),
    ("web_search_multi", json.dumps({"query": "x", "engines": BOMB})),
    ("web_search", json.dumps({"query": BOMB})),
    ("web_search", json.dumps({"query": "[" + '"a",' * 100_000 + '"a"]'})),
    ("web_search", json.dumps({"query": "x", "site": "a" * 70_000})),
    ("web_search", json.dumps({"query": "x", "lang": ""})),
    ("web_search", json.dumps({"query": " " * 10 + "x" * 495 + " " * 10})),
    ("web_search_multi", json.dumps({"query": "x", "engines": ["bing"] * 1000})),
    ("web_search_multi", json.dumps({"query": "x", "engines": ["b" * 100_000]})),
    ("web_fetch", json.dumps({"ref": 2**63})),
    ("web_fetch", json.dumps({"ref": -(2**63)})),
    ("web_fetch", '{"ref": 1e400}'),
    ("web_search", '{"query": "x", "limit": 99999999999999999999999999}'),
    ("web_search", '{"query": "\\ud800"}'),
    ("web_search", '"just a string"'),
]


@pytest.mark.parametrize(("tool", "text"), HOSTILE, ids=[f"{tool}-{i}" for i, (tool, _) in enumerate(HOSTILE)])
async def test_hostile_json_is_invalid_input(tool: str, text: str) -> None:
    result = await toolbox().call(tool, text, output="json")
    assert result.is_error
    assert json.loads(result.text)["code"] == "invalid_input"


async def test_nesting_is_refused_in_decoded_arguments_too() -> None:
    nested: Any = "x"
    for _ in range(10_000):
        nested = [nested]
    result = await toolbox().call("web_search", {"query": nested}, output="json")
    assert json.loads(result.text)["code"] == "invalid_input"
    assert str(MAX_JSON_DEPTH) in json.loads(result.text)["message"]


def test_depth_scan_ignores_brackets_in_strings() -> None:
    assert not nests_deeper_than('{"query": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}', 1)
    assert not nests_deeper_than('{"q": "\\"[[[", "l": [[1]]}', 3)
    assert nests_deeper_than('{"q": "\\"[[[", "l": [[1]]}', 2)
    check_json_depth('{"query": "' + "[" * 1000 + '"}')
    with pytest.raises(InvalidInputError):
        check_json_depth(b"[" * (MAX_JSON_DEPTH + 1))
    with pytest.raises(InvalidInputError):
        check_depth({"a": json.loads("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH)})


@pytest.mark.parametrize("name", ["", "a" * 201, "a\x00b", "a\udcffb", "a\x85b", "a\nb"])
def test_session_names_the_store_cannot_hold_are_refused(name: str) -> None:
    with pytest.raises(InvalidInputError):
        check_session(name)


async def test_a_result_url_with_a_lone_surrogate_gets_no_ref_and_the_search_goes_on() -> None:
    bad = "https://example.com/\udcff"
    backend = FakeBackend(answers={"q": response("q", "https://example.com/a", bad)})
    result = await toolbox(backend).call("web_search", {"query": "q"}, output="json")
    assert not result.is_error
    refs = [hit.get("ref") for hit in json.loads(result.text)["results"]]
    assert refs == [1, None]
    assert not storable(bad)
    with pytest.raises(InvalidInputError):
        await MemorySessionStore().remember("s", [bad])


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)
ARGUMENT_NAMES = st.sampled_from(
    [
        "query",
        "engine",
        "engines",
        "limit",
        "page",
        "site",
        "lang",
        "freshness",
        "ref",
        "url",
        "start",
        "max_chars",
        "format",
    ]
) | st.text(max_size=8)


@given(
    tool=st.sampled_from(TOOLS),
    arguments=st.dictionaries(ARGUMENT_NAMES, JSON_VALUES | st.text(alphabet='[]{}",:\\ ', max_size=200), max_size=5),
    session=st.text(max_size=30),
)
async def test_any_arguments_get_a_result_or_a_typed_error(tool: str, arguments: dict[str, Any], session: str) -> None:
    tools = toolbox()
    result = await tools.call(tool, arguments, session=session or "s", output="json")
    assert_answer(result.text, result.is_error)


@given(tool=st.sampled_from(TOOLS), text=st.text(max_size=300) | st.text(alphabet='[]{}",:\\ 0aq', max_size=300))
async def test_any_json_text_gets_a_result_or_a_typed_error(tool: str, text: str) -> None:
    result = await toolbox().call(tool, text, output="compact")
    assert_answer(result.text, result.is_error)
