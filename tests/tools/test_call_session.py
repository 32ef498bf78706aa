"""Which store session a call's refs live in (tools/call_session.py), alone and through the pipeline."""

from __future__ import annotations

import json

import pytest

from webreach.errors import InvalidInputError
from webreach.state.sessions import MAX_SESSION_CHARS, MemorySessionStore
from webreach.testing import FakeClock
from webreach.tools import DEFAULT_SESSION, Toolbox, store_session

from .fakes import FakeBackend, response

URLS = ("https://a.example/1", "https://b.example/2")


def test_named_else_caller_else_default() -> None:
    assert store_session(None) == DEFAULT_SESSION == "default"
    assert store_session("research") == "research"
    assert store_session(None, "acct_1") == "@acct_1/default"
    assert store_session("research", "acct_1") == "@acct_1/research"


@pytest.mark.parametrize("name", ["@acct_1/default", "@", "", "x" * (MAX_SESSION_CHARS + 1), "a\nb"])
def test_reserved_and_bad_names_are_refused(name: str) -> None:
    with pytest.raises(InvalidInputError):
        store_session(name)


async def test_calls_without_a_session_share_the_default() -> None:
    """A client that opens a new MCP session (or process) per call names no session: its refs still resolve."""
    store = MemorySessionStore(clock=FakeClock())
    backend = FakeBackend(answers={"rust": response("rust", *URLS)})
    await Toolbox(backend, store).call("web_search", {"query": "rust"})
    read = await Toolbox(backend, store).call("web_fetch", {"ref": 2})
    assert not read.is_error and backend.reads[0].url == URLS[1]
    assert await store.resolve("default", 2) == URLS[1]


async def test_each_caller_has_its_own_refs() -> None:
    store = MemorySessionStore(clock=FakeClock())
    tools = Toolbox(FakeBackend(answers={"rust": response("rust", *URLS)}), store)
    await tools.call("web_search", {"query": "rust"}, caller="acct_1")
    own = await tools.call("web_fetch", {"ref": 1}, caller="acct_1")
    other = await tools.call("web_fetch", {"ref": 1}, caller="acct_2")
    anonymous = await tools.call("web_fetch", {"ref": 1})
    named = await tools.call("web_fetch", {"ref": 1}, session="@acct_1/default")
    assert not own.is_error
    assert [json.loads(r.text)["code"] for r in (other, anonymous, named)] == [
        "unknown_ref",
        "unknown_ref",
        "invalid_input",
    ]


async def test_a_remembered_store_session_keeps_callers_apart_and_never_keeps_a_refused_name() -> None:
    """The Toolbox remembers each (session, caller) pair's store session (Toolbox._store_session): asked again, the
    same pair lands in the same store session, another caller with the same name in its own, and a refused name
    is refused every time."""
    store = MemorySessionStore(clock=FakeClock())
    tools = Toolbox(FakeBackend(answers={"rust": response("rust", *URLS)}), store)
    for _ in range(2):
        assert not (await tools.call("web_search", {"query": "rust"}, session="s", caller="acct_1")).is_error
        assert not (await tools.call("web_search", {"query": "rust"}, session="s")).is_error
    assert await store.resolve("@acct_1/s", 2) == URLS[1] and await store.resolve("s", 2) == URLS[1]
    other = await tools.call("web_fetch", {"ref": 1}, session="s", caller="acct_2")
    assert json.loads(other.text)["code"] == "unknown_ref"
    for _ in range(2):
        refused = await tools.call("web_search", {"query": "rust"}, session="@acct_1/s")
        assert json.loads(refused.text)["code"] == "invalid_input"
