"""Live changes across real `webreach serve` processes sharing one database (a SQLite file, PostgreSQL): a change
made through one server's admin API reaches the other without a restart, within its one-second poll."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from accounts.servers import operator, servers
from frontends.serving import ServerProcess
from secret_keys import CONSOLE_KEY
from webreach.testing import FakeWeb

pytestmark = [pytest.mark.network, pytest.mark.slow]
SHARED_KEY = "oNbiiyq7qbP5XYUl3HTSojVo4d0V1D3m5Sm3JHGaZqk="  # a Fernet key both servers hold (not an API key)
PATIENCE = 30.0  # seconds a change may take to show on a loaded machine (the poll is every second)


def admin(server: ServerProcess, body: dict[str, Any] | None = None) -> dict[str, Any]:
    if body is None:
        answer = httpx.get(f"{server.url}/v1/admin/config", trust_env=False, timeout=30)
    else:
        answer = httpx.post(f"{server.url}/v1/admin/config", json=body, trust_env=False, timeout=30)
    assert answer.status_code == 200, answer.text
    assert CONSOLE_KEY not in answer.text
    data: dict[str, Any] = answer.json()
    return data


def first_engine(server: ServerProcess, key: str, query: str) -> str:
    body = {"query": query, "limit": 2}
    answer = httpx.post(
        f"{server.url}/v1/search", json=body, headers={"Authorization": f"Bearer {key}"}, trust_env=False, timeout=60
    )
    assert answer.status_code == 200, answer.text
    return str(answer.json()["meta"]["attempts"][0]["engine"])


def wait_for_version(server: ServerProcess, version: int) -> dict[str, Any]:
    deadline = time.monotonic() + PATIENCE
    while True:
        seen = admin(server)
        if seen["version"] == version or time.monotonic() > deadline:
            return seen
        time.sleep(0.2)


def test_a_change_on_one_server_reaches_the_other(web: FakeWeb, tmp_path: Path, database_url: str) -> None:
    with operator(database_url) as accounts:
        _, key = accounts.add("live-bot", credits=1000, per_hour=None)
    with servers(web, tmp_path, database_url, 2, WEBREACH_SECRET_KEY=SHARED_KEY) as (one, other):
        changed = admin(one, {"auto_order": ["yahoo", "mojeek"], "engines": {"brave_api": {"api_key": CONSOLE_KEY}}})
        assert changed["routing"]["auto_order"]["winner"] == "console"
        seen = wait_for_version(other, changed["version"])
        assert seen["version"] == changed["version"]
        assert seen["engines"]["brave_api"]["api_key"]["layers"][0] == {"source": "console", "value": "set (hidden)"}
        assert first_engine(other, key, "python asyncio") == "yahoo"
        statuses = httpx.get(f"{other.url}/v1/admin/engines", trust_env=False, timeout=30).json()["engines"]
        assert next(s for s in statuses if s["name"] == "brave_api")["key_configured"] is True

        # and back the other way: the order changed on the second server is followed by the first
        again = admin(other, {"auto_order": ["mojeek", "yahoo"]})
        assert wait_for_version(one, again["version"])["version"] == again["version"]
        assert first_engine(one, key, "python asyncio 2") == "mojeek"
        for server in (one, other):
            assert CONSOLE_KEY not in server.output()
