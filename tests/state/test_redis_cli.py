"""Two `webreach search` processes on one Redis share the search cache; an unreachable Redis is a typed exit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from webreach.testing import FakeWeb

pytestmark = [pytest.mark.slow, pytest.mark.redis]


@pytest.fixture
def web() -> Iterator[FakeWeb]:
    with FakeWeb.in_thread() as server:
        yield server


def search(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "webreach", "search", "-e", "mojeek", "--json", "python asyncio"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)
    print(done.stdout[-500:], done.stderr[-500:])
    return done


def test_processes_share_the_redis_cache_and_a_missing_redis_is_typed(
    web: FakeWeb, redis_url: str, tmp_path: Path
) -> None:
    env = dict(
        os.environ,
        WEBREACH_FAKE_WEB=web.url,
        WEBREACH_STATE__BACKEND="redis",
        WEBREACH_STATE__URL=redis_url,
        WEBREACH_CACHE__BACKEND="redis",
    )
    cached = []
    for run in ("a", "b"):  # each process its own state directory: only Redis is shared
        env.update(XDG_DATA_HOME=str(tmp_path / run / "data"), XDG_CACHE_HOME=str(tmp_path / run / "cache"))
        done = search(env)
        assert done.returncode == 0
        cached.append(json.loads(done.stdout)["meta"]["attempts"][0]["cached"])
    assert cached == [False, True]
    assert web.count("mojeek") == 1

    unreachable = search(dict(env, WEBREACH_STATE__URL="redis://127.0.0.1:1/0"))
    assert unreachable.returncode != 0
    error = json.loads(unreachable.stdout)
    assert (error["status"], error["code"]) == ("error", "state_backend_unavailable")
