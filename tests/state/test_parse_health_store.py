"""Parse-health stores and the recorder: memory, a real SQLite file shared by instances, the recent window."""

from __future__ import annotations

import logging
import sqlite3
from contextlib import closing, suppress
from pathlib import Path

import pytest

from webreach.config import StateSettings
from webreach.errors import BlockedError, ParseError
from webreach.models import Hit, SearchRequest
from webreach.policies.contract import EngineResult
from webreach.policies.parse_health import ParseHealth, ParseHealthRecorder
from webreach.state.parse_health_store import (
    RECENT,
    MemoryParseHealthStore,
    ParseHealthStore,
    SqliteParseHealthStore,
    open_parse_health_store,
)
from webreach.testing import FakeClock

T0 = 1_700_000_000.0


def stores(tmp_path: Path) -> list[ParseHealthStore]:
    return [MemoryParseHealthStore(), SqliteParseHealthStore(tmp_path / "state.sqlite3")]


@pytest.mark.parametrize("kind", [0, 1], ids=["memory", "sqlite"])
def test_history_keeps_the_last_mode_and_the_recent_window(tmp_path: Path, kind: int) -> None:
    store = stores(tmp_path)[kind]
    for n in range(RECENT + 5):
        store.record("bing", "generic" if n % 5 == 0 else "engine", T0 + n)
    store.record("bing", "parse_error", T0 + 100)
    view = ParseHealth.of("bing", store.load_all()["bing"])
    assert view.last_mode == "parse_error" and view.last_at == T0 + 100
    assert view.answers == RECENT
    assert (view.generic, view.parse_errors) == (3, 1)  # the window holds answers 6..25: generic at 10, 15, 20
    assert view.summary() == "parse_error (3/20 generic, 1 failed)"
    store.close()


def test_two_instances_on_one_file_add_up(tmp_path: Path) -> None:
    first = SqliteParseHealthStore(tmp_path / "state.sqlite3")
    second = SqliteParseHealthStore(tmp_path / "state.sqlite3")
    first.record("mojeek", "generic", T0)
    second.record("mojeek", "engine", T0 + 1)
    first.record("mojeek", "generic", T0 + 2)
    record = second.load_all()["mojeek"]
    assert (record.recent, record.last_mode) == ("geg", "generic")
    first.close()
    second.close()


def test_reading_creates_no_file_and_a_bad_row_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    store = SqliteParseHealthStore(path)
    assert store.load_all() == {}
    assert not path.exists()
    store.record("bing", "engine", T0)
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("INSERT INTO parse_health_v1 VALUES ('yahoo', 'sideways', 1.0, 'e')")
    assert set(store.load_all()) == {"bing"}
    store.close()


def test_an_unusable_file_keeps_the_history_in_memory(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    store = SqliteParseHealthStore(blocker / "state.sqlite3")
    with caplog.at_level(logging.WARNING):
        store.record("bing", "generic", T0)
    assert store.load_all()["bing"].recent == "g"
    assert "parse health is kept by this process only" in caplog.text


def test_open_parse_health_store_follows_the_backend(tmp_path: Path) -> None:
    assert isinstance(open_parse_health_store(StateSettings(backend="memory")), MemoryParseHealthStore)
    opened = open_parse_health_store(StateSettings(path=tmp_path / "s.sqlite3"))
    assert isinstance(opened, SqliteParseHealthStore) and opened.path == tmp_path / "s.sqlite3"


def hit() -> Hit:
    return Hit(rank=1, title="t", url="https://example.com/", engine="bing")


async def test_recorder_records_parses_and_parse_errors_but_not_cache_answers_or_blocks() -> None:
    store = MemoryParseHealthStore()
    clock = FakeClock(T0)
    answers: list[EngineResult | Exception] = [
        EngineResult((hit(),), parsed_by="generic"),
        EngineResult((hit(),), cached=True),  # from the cache: nothing parsed
        ParseError("no results", engine="bing"),
        BlockedError("captcha", kind="captcha", engine="bing"),
        EngineResult((), parsed_by="engine"),
    ]

    async def inner(request: SearchRequest) -> EngineResult:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    recorder = ParseHealthRecorder(inner, engine="bing", store=store, clock=clock)
    request = SearchRequest(query="q")
    for _ in range(5):
        with suppress(ParseError, BlockedError):
            await recorder(request)
    record = store.load_all()["bing"]
    assert record.recent == "gxe"
    assert ParseHealth.of("yahoo", None).summary() == "-"
