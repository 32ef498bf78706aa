"""One breaker truth across real processes: a `webreach serve` process and `webreach engines` CLI runs share one
state file in tmp. The server gets suspended by a fake-web engine showing a CAPTCHA; a CLI reset, the admin
endpoint (over the real loopback socket) and deleting the state file each bring it back without a restart.

Waits are bounded polls (the server takes changes in every 0.5 s), never timing assertions.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from webreach.testing import FakeWeb

from .serving import ServerProcess, http_server, server_env

pytestmark = [pytest.mark.network, pytest.mark.slow]
ENGINE = "mojeek"
WAIT = 20.0  # the most any poll below waits for the server to take a change in


@pytest.fixture
def shared(web: FakeWeb, tmp_path: Path) -> Iterator[tuple[ServerProcess, Path]]:
    """A server whose state lives in the SQLite file under `home` (the CLI runs below use the same home)."""
    web.reset()
    with http_server(web, tmp_path, WEBREACH_STATE__BACKEND="sqlite") as server:
        yield server, tmp_path


def search(server: ServerProcess, query: str) -> httpx.Response:
    body = {"query": query, "engine": ENGINE}
    return httpx.post(f"{server.url}/v1/search", json=body, timeout=30, trust_env=False)


def suspend(web: FakeWeb, server: ServerProcess, query: str) -> str:
    """Make the engine show its bot wall, see the server suspend it, then let the engine answer again; the code
    the wall was answered with (mojeek's wall is a block page: blocked, 10 minutes)."""
    web.set_scenario(ENGINE, fault="captcha")
    code = search(server, f"{query} 1").json()["code"]
    assert code in ("captcha", "blocked")
    suspended = search(server, f"{query} 2")
    assert (suspended.status_code, suspended.json()["code"]) == (503, "suspended")
    web.reset(ENGINE)  # the engine is fine again; the server does not know it
    assert search(server, f"{query} 3").json()["code"] == "suspended"
    return str(code)


def cli(web: FakeWeb, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = server_env(web, home, WEBREACH_STATE__BACKEND="sqlite")
    done = subprocess.run(
        [sys.executable, "-m", "webreach", *args], env=env, cwd=home, capture_output=True, text=True, timeout=60
    )
    print(done.stdout, done.stderr, file=sys.stderr)
    return done


def answers_again(server: ServerProcess, query: str) -> httpx.Response:
    """Search until the server answers (it takes changes in within 0.5 s); the last answer."""
    deadline = time.monotonic() + WAIT
    while True:
        answer = search(server, query)
        if answer.status_code == 200 or time.monotonic() > deadline:
            return answer
        time.sleep(0.1)


def test_a_cli_reset_reaches_the_running_server(web: FakeWeb, shared: tuple[ServerProcess, Path]) -> None:
    server, home = shared
    suspend(web, server, "cli reset")
    done = cli(web, home, "engines", "--reset", ENGINE)
    assert done.returncode == 0
    assert f"picked up by the running server (pid {server.process.pid}, webreach serve)" in done.stderr
    answer = search(server, "cli reset 4")  # picked up means already in force: no waiting
    assert answer.status_code == 200, answer.text
    assert answer.json()["results"]


def test_the_admin_endpoint_lists_and_resets_over_the_socket(web: FakeWeb, shared: tuple[ServerProcess, Path]) -> None:
    server, home = shared
    code = suspend(web, server, "admin reset")
    with httpx.Client(base_url=server.url, timeout=30, trust_env=False) as admin:
        listed = admin.get("/v1/admin/engines").json()["engines"]
        state = next(engine for engine in listed if engine["name"] == ENGINE)
        assert (state["breaker"], state["last_error"], state["failures"]) == ("open", code, 0)
        assert state["suspended_until"] > time.time() + 300
        assert state["retry_after"] > 300
        unknown = admin.post("/v1/admin/engines/auto/reset")
        assert (unknown.status_code, unknown.json()["code"]) == (400, "invalid_input")
        assert "auto" not in unknown.json()["message"].partition("Valid engines")[2].split(", ")
        reset = admin.post(f"/v1/admin/engines/{ENGINE}/reset").json()
    assert reset["reset"] == [ENGINE]
    assert next(e for e in reset["engines"] if e["name"] == ENGINE)["breaker"] == "closed"
    assert search(server, "admin reset 4").status_code == 200
    # the reset went through the state file: another process sees the engine closed too
    statuses = json.loads(cli(web, home, "engines", "--json").stdout)
    assert next(s for s in statuses if s["name"] == ENGINE)["breaker"] == "closed"


def test_a_suspension_recorded_by_the_cli_reaches_the_server(web: FakeWeb, shared: tuple[ServerProcess, Path]) -> None:
    server, home = shared
    assert search(server, "from the cli 1").status_code == 200
    web.set_scenario(ENGINE, fault="captcha")
    assert cli(web, home, "search", "from the cli 2", "-e", ENGINE).returncode != 0
    web.reset(ENGINE)
    deadline = time.monotonic() + WAIT
    # a new query each time: an answer the server gave before it saw the suspension is cached, and a cache hit
    # never reaches the breaker
    for attempt in itertools.count(3):
        if search(server, f"from the cli {attempt}").json().get("code") == "suspended":
            break
        assert time.monotonic() < deadline, "the server never saw the CLI's suspension"
        time.sleep(0.1)


def test_deleting_the_state_file_reaches_the_running_server(web: FakeWeb, shared: tuple[ServerProcess, Path]) -> None:
    server, home = shared
    suspend(web, server, "deleted file")
    state_dir = home / "data" / "webreach"
    for leftover in state_dir.glob("state.sqlite3*"):
        os.unlink(leftover)
    answer = answers_again(server, "deleted file 4")
    assert answer.status_code == 200, answer.text
