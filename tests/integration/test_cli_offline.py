"""The real CLI, in a subprocess, against the fake web on loopback: the whole stack over real sockets.

Every test is bounded: a handful of requests, subprocess timeouts, and the fake web stops with the fixture.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from secret_keys import GATEWAY_KEY, TEST_KEY
from webreach.testing import FakeWeb
from webreach.testing.environment import process_env

pytestmark = [pytest.mark.network, pytest.mark.slow]


@pytest.fixture
def web() -> Iterator[FakeWeb]:
    with FakeWeb.in_thread() as server:
        yield server


def run_cli(web: FakeWeb, tmp_path: Path, *args: str, **env: str) -> tuple[int, Any, str]:
    """Run `python -m webreach ARGS` pointed at the fake web; returns (exit code, parsed stdout JSON, stderr)."""
    environment = process_env(tmp_path, WEBREACH_FAKE_WEB=web.url) | env
    done = subprocess.run(
        [sys.executable, "-m", "webreach", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=environment,
        cwd=tmp_path,
    )
    # echoed so pytest captures them and the secret-leak scan (conftest.py) reads them
    print(done.stdout)
    print(done.stderr, file=sys.stderr)
    stdout = json.loads(done.stdout) if done.stdout.strip().startswith(("{", "[")) else done.stdout
    return done.returncode, stdout, done.stderr


def attempts(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {a["engine"]: a for a in body["meta"]["attempts"]}


def test_search_through_the_fake_web_returns_parsed_results(web: FakeWeb, tmp_path: Path) -> None:
    code, body, _ = run_cli(web, tmp_path, "search", "python asyncio", "-e", "mojeek", "--json")
    assert code == 0
    assert body["results"][0]["url"].startswith("https://")
    assert body["meta"]["attempts"][0]["engine"] == "mojeek"
    assert web.count("mojeek") == 1


def test_auto_falls_through_a_captcha_and_meta_shows_both(web: FakeWeb, tmp_path: Path) -> None:
    web.set_scenario("duckduckgo", fault="captcha")
    code, body, _ = run_cli(web, tmp_path, "search", "python asyncio", "--engines", "duckduckgo,mojeek", "--json")
    assert code == 0
    seen = attempts(body)
    assert seen["duckduckgo"]["status"] == "error"
    assert seen["duckduckgo"]["code"] == "captcha"
    assert seen["mojeek"]["status"] == "ok"
    assert {hit["engine"] for hit in body["results"]} == {"mojeek"}


def test_rate_limited_engine_reports_retry_after(web: FakeWeb, tmp_path: Path) -> None:
    web.set_scenario("mojeek", fault="retry_after", retry_after=120)
    code, body, _ = run_cli(web, tmp_path, "search", "python asyncio", "-e", "mojeek", "--json")
    assert code == 4
    assert body["status"] == "error"
    assert body["code"] == "rate_limited"
    assert body["retry_after"] == 120


def test_hung_engine_is_hedged_by_the_next(web: FakeWeb, tmp_path: Path) -> None:
    web.set_scenario("duckduckgo", fault="hang")
    code, body, _ = run_cli(
        web,
        tmp_path,
        "search",
        "python asyncio",
        "--engines",
        "duckduckgo,mojeek",
        "--json",
        WEBREACH_HEDGE_DELAY="0.3",
    )
    assert code == 0
    seen = attempts(body)
    assert seen["mojeek"]["status"] == "ok"
    assert seen["mojeek"]["hedged"] is True
    assert seen["duckduckgo"]["status"] == "cancelled"
    assert body["meta"]["engines_used"] == ["mojeek"]


def test_named_engine_is_never_substituted(web: FakeWeb, tmp_path: Path) -> None:
    web.set_scenario("mojeek", fault="captcha")  # mojeek has no CAPTCHA of its own: its 403 wall is "blocked"
    code, _, stderr = run_cli(web, tmp_path, "search", "python asyncio", "-e", "mojeek")
    assert code == 4
    assert "[blocked]" in stderr
    assert web.count("duckduckgo") == 0


def test_bad_input_is_a_typed_error_not_a_traceback(web: FakeWeb, tmp_path: Path) -> None:
    for args, expected in [
        (("search", "   ", "--json"), "invalid_input"),
        (("search", "x" * 501, "--json"), "invalid_input"),
        (("search", "q", "-n", "0", "--json"), "invalid_input"),
        (("search", "q", "--page", "99", "--json"), "invalid_input"),
        (("search", "q", "-e", "altavista", "--json"), "invalid_input"),
    ]:
        code, body, stderr = run_cli(web, tmp_path, *args)
        assert code == 2, (args, body, stderr)
        assert body["code"] == expected
        assert "Traceback" not in stderr
    code, body, _ = run_cli(web, tmp_path, "search", "q", "-e", "altavista", "--json")
    assert "mojeek" in body["message"], "the message lists the valid engines"
    assert web.count("mojeek") == 0


def test_api_engine_without_key_is_not_configured_and_auto_skips_it(web: FakeWeb, tmp_path: Path) -> None:
    code, body, _ = run_cli(web, tmp_path, "search", "q", "-e", "tavily", "--json")
    assert code == 3
    assert body["code"] == "not_configured"
    code, body, _ = run_cli(web, tmp_path, "search", "q", "--engines", "tavily,mojeek", "--json")
    assert code == 0
    assert attempts(body)["tavily"]["status"] == "skipped"
    assert attempts(body)["tavily"]["code"] == "not_configured"
    assert web.count("tavily") == 0


def test_a_captcha_suspends_the_engine_for_later_cli_runs(web: FakeWeb, tmp_path: Path) -> None:
    web.set_scenario("duckduckgo", fault="captcha")
    code, body, _ = run_cli(web, tmp_path, "search", "python asyncio", "--engines", "duckduckgo,mojeek", "--json")
    assert code == 0
    assert attempts(body)["duckduckgo"]["code"] == "captcha"
    assert (tmp_path / "data" / "webreach" / "state.sqlite3").is_file()
    asked = web.count("duckduckgo")

    web.reset()  # duckduckgo would answer now, but the next process must not ask it
    code, body, _ = run_cli(web, tmp_path, "search", "python asyncio", "--engines", "duckduckgo,mojeek", "--json")
    assert code == 0
    seen = attempts(body)
    assert (seen["duckduckgo"]["status"], seen["duckduckgo"]["code"]) == ("skipped", "suspended")
    assert seen["mojeek"]["status"] == "ok"
    assert web.count("duckduckgo") == asked

    code, statuses, _ = run_cli(web, tmp_path, "engines", "--json")
    assert code == 0
    duckduckgo = next(s for s in statuses if s["name"] == "duckduckgo")
    assert duckduckgo["breaker"] == "open"
    assert 0 < duckduckgo["retry_after"] <= 3600
    assert next(s for s in statuses if s["name"] == "mojeek")["breaker"] == "closed"


def test_memory_state_forgets_the_suspension_between_runs(web: FakeWeb, tmp_path: Path) -> None:
    web.set_scenario("duckduckgo", fault="captcha")
    run_cli(web, tmp_path, "search", "q", "--engines", "duckduckgo,mojeek", "--json", WEBREACH_STATE__BACKEND="memory")
    web.reset()
    asked = web.count("duckduckgo")
    code, body, _ = run_cli(
        web, tmp_path, "search", "q", "--engines", "duckduckgo,mojeek", "--json", WEBREACH_STATE__BACKEND="memory"
    )
    assert code == 0
    assert attempts(body)["duckduckgo"]["status"] == "ok"
    assert web.count("duckduckgo") > asked
    assert not (tmp_path / "data").exists()


def test_multi_merges_and_dedupes_through_the_cli(web: FakeWeb, tmp_path: Path) -> None:
    code, body, _ = run_cli(
        web, tmp_path, "search", "python asyncio", "-e", "multi", "--engines", "bing,mojeek,brave", "-n", "20", "--json"
    )
    assert code == 0
    urls = [hit["url"].rstrip("/") for hit in body["results"]]
    assert len(urls) == len(set(urls))
    merged = [hit for hit in body["results"] if len(hit["engines"]) > 1]
    assert merged and merged[0]["rank"] == 1, "a page several engines agree on ranks first"
    assert {a["engine"]: a["status"] for a in body["meta"]["attempts"]} == {"bing": "ok", "mojeek": "ok", "brave": "ok"}
    assert [hit["ref"] for hit in body["results"]] == list(range(1, len(urls) + 1))


def test_search_then_fetch_by_ref_in_a_named_session(web: FakeWeb, tmp_path: Path) -> None:
    code, body, _ = run_cli(web, tmp_path, "search", "python asyncio", "-e", "mojeek", "--session", "s", "--json")
    assert code == 0
    first = body["results"][0]
    code, out, _ = run_cli(web, tmp_path, "fetch", "--ref", "1", "--session", "s", "--json")
    # the ref resolved to the first result's URL, which the fake web serves a page for (no DNS query is made)
    assert code == 0 and out["url"] == first["url"], out
    code, out, _ = run_cli(web, tmp_path, "fetch", "--ref", "1", "--session", "other", "--json")
    assert code == 2 and out["code"] == "unknown_ref"  # the caller's ref: invalid input


def test_the_local_rate_limit_holds_across_cli_runs(web: FakeWeb, tmp_path: Path) -> None:
    # 2 per minute: a burst of one token and the next in 30 s, so quick runs after the first are refused
    slow = {"WEBREACH_ENGINES__MOJEEK__RATE_PER_MINUTE": "2"}
    code, body, _ = run_cli(web, tmp_path, "search", "python asyncio", "-e", "mojeek", "--json", **slow)
    assert code == 0 and body["results"]
    for query in ("rust async", "go channels"):  # other queries: nothing could come from a cache
        code, body, stderr = run_cli(web, tmp_path, "search", query, "-e", "mojeek", "--json", **slow)
        assert code != 0 and "Traceback" not in stderr
        assert (body["code"], body["engine"]) == ("throttled", "mojeek")  # our pacing, not a breaker suspension
        assert 2 < body["retry_after"] <= 30
    assert web.count("mojeek") == 1


def test_a_rejected_key_is_suspended_until_the_key_changes(web: FakeWeb, tmp_path: Path) -> None:
    old_key = {"WEBREACH_ENGINES__TAVILY__API_KEY": TEST_KEY}
    web.set_scenario("tavily", case="auth_failed")
    code, body, _ = run_cli(web, tmp_path, "search", "python asyncio", "-e", "tavily", "--json", **old_key)
    assert code != 0 and body["code"] == "auth_failed"
    web.reset()  # the provider would answer now, but not to the key it rejected

    code, body, _ = run_cli(web, tmp_path, "search", "python asyncio", "-e", "tavily", "--json", **old_key)
    assert code != 0 and body["code"] == "suspended"
    assert "lifts as soon as the key" in body["message"]
    assert 86_000 < body["retry_after"] <= 86_400
    assert web.count("tavily") == 1

    new_key = {"WEBREACH_ENGINES__TAVILY__API_KEY": GATEWAY_KEY}
    code, body, _ = run_cli(web, tmp_path, "search", "python asyncio", "-e", "tavily", "--json", **new_key)
    assert code == 0 and body["results"]
    assert web.count("tavily") == 2
    state = (tmp_path / "data" / "webreach" / "state.sqlite3").read_bytes()
    assert TEST_KEY.encode() not in state and GATEWAY_KEY.encode() not in state


def test_a_captcha_suspension_survives_a_key_change(web: FakeWeb, tmp_path: Path) -> None:
    web.set_scenario("tavily", fault="captcha")
    run_cli(web, tmp_path, "search", "q", "-e", "tavily", "--json", WEBREACH_ENGINES__TAVILY__API_KEY=TEST_KEY)
    asked = web.count("tavily")
    web.reset()
    code, body, _ = run_cli(
        web, tmp_path, "search", "q", "-e", "tavily", "--json", WEBREACH_ENGINES__TAVILY__API_KEY=GATEWAY_KEY
    )
    assert code != 0 and body["code"] == "suspended"
    assert web.count("tavily") == asked


def test_search_then_read_result_one_works_offline(web: FakeWeb, tmp_path: Path) -> None:
    code, _, _ = run_cli(web, tmp_path, "search", "python asyncio", "-e", "mojeek")
    assert code == 0
    code, page, stderr = run_cli(web, tmp_path, "fetch", "--ref", "1", "--json")
    assert code == 0, stderr
    assert page["status"] == 200 and page["url"].startswith("https://")
    assert "fake web" in page["content"]
    assert web.count("_sites") >= 1
