"""`webreach canary` and parse health, the real CLI in subprocesses against the fake web on loopback.

Each run is a separate process over one state file, so the parse health one run records is what the next shows.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from webreach.testing import FakeWeb

from .test_cli_offline import run_cli

pytestmark = [pytest.mark.network, pytest.mark.slow]


@pytest.fixture
def web() -> Iterator[FakeWeb]:
    with FakeWeb.in_thread() as server:
        yield server


ENGINES = "bing,mojeek,google,duckduckgo"


def by_engine(rows: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    return {str(row["engine"]): row for row in rows}


def test_canary_reports_ok_generic_blocked_and_parse_error_per_engine(web: FakeWeb, tmp_path: Path) -> None:
    web.set_scenario("mojeek", case="results-relayout")  # markup the engine's selectors do not know
    web.set_scenario("google", fault="captcha")
    web.set_scenario("duckduckgo", case="no_results")
    code, rows, _ = run_cli(web, tmp_path, "canary", "--engines", ENGINES, "--json")
    seen = by_engine(rows)
    assert code == 4  # not every engine is ok
    assert seen["bing"]["status"] == "ok" and seen["bing"]["hits"] > 0
    assert seen["mojeek"]["status"] == "generic" and seen["mojeek"]["hits"] == 3
    assert seen["google"]["status"] == "blocked" and seen["google"]["code"] == "captcha"
    assert seen["duckduckgo"] == seen["duckduckgo"] | {"status": "ok", "hits": 0}  # a genuine no-results page
    web.set_scenario("mojeek", case="parse_error-relayout")
    code, rows, _ = run_cli(web, tmp_path, "canary", "--engines", "mojeek", "--json")
    assert code == 4
    assert rows[0] == rows[0] | {"engine": "mojeek", "status": "parse_error", "code": "parse_error"}


def test_canary_exits_zero_when_every_engine_is_ok_and_prints_a_table(web: FakeWeb, tmp_path: Path) -> None:
    code, out, _ = run_cli(web, tmp_path, "canary", "--engines", "bing,mojeek")
    assert code == 0
    assert "bing" in out and "mojeek" in out and "ok" in out


def test_canary_bypasses_the_cache(web: FakeWeb, tmp_path: Path) -> None:
    env = {"WEBREACH_CACHE__BACKEND": "sqlite"}
    run_cli(web, tmp_path, "canary", "--engines", "mojeek", "--json", **env)
    run_cli(web, tmp_path, "canary", "--engines", "mojeek", "--json", **env)
    assert web.count("mojeek") == 2


def test_parse_health_recorded_by_one_process_is_shown_by_the_next(web: FakeWeb, tmp_path: Path) -> None:
    web.set_scenario("mojeek", case="results-relayout")
    fresh = {"WEBREACH_CACHE__BACKEND": "memory"}  # each search asks the engine (the CLI's cache would answer)
    for _ in range(2):
        assert run_cli(web, tmp_path, "search", "python", "-e", "mojeek", "--json", **fresh)[0] == 0
    web.reset("mojeek")
    code, body, _ = run_cli(web, tmp_path, "search", "python", "-e", "mojeek", "--json", **fresh)
    assert code == 0 and body["meta"]["attempts"][0]["parsed_by"] == "engine"
    code, rows, _ = run_cli(web, tmp_path, "engines", "--json")
    health = {row["name"]: row["parse_health"] for row in rows}
    assert health["mojeek"] == health["mojeek"] | {"last_mode": "engine", "answers": 3, "generic": 2}
    assert health["bing"] == health["bing"] | {"last_mode": None, "answers": 0}
    assert health["tavily"] is None  # an API answers JSON: no page to parse
    code, table, _ = run_cli(web, tmp_path, "engines", "--wide")
    assert "(2/3" in table  # the parser column, shown with --wide (rich wraps it in a narrow terminal)


def test_a_search_read_by_the_generic_parser_says_so(web: FakeWeb, tmp_path: Path) -> None:
    web.set_scenario("mojeek", case="results-relayout")
    code, body, _ = run_cli(web, tmp_path, "search", "python", "-e", "mojeek", "--json")
    assert code == 0
    assert body["meta"]["attempts"][0]["parsed_by"] == "generic"
    assert body["results"][0]["url"] == "https://docs.python.org/3/"
    fresh = {"WEBREACH_CACHE__BACKEND": "memory"}  # the engine asked again (the CLI's cache would answer)
    code, text, _ = run_cli(web, tmp_path, "search", "python", "-e", "mojeek", "--format", "compact", **fresh)
    assert "generic parser" in text
