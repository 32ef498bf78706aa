"""Accounts through real server processes: Bearer keys at REST and MCP over HTTP, exact charging under 1,000
concurrent calls across processes sharing PostgreSQL or one SQLite file, and a server killed mid-call."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from webreach.testing import FakeWeb

from .servers import operator, servers

pytestmark = [pytest.mark.network, pytest.mark.slow]
SEARCH = {"query": "python asyncio", "engine": "mojeek", "limit": 2}
LIMIT = 60
HAMMER_LIMIT = 300  # 1,000 calls on a loaded 2-core machine
IN_FLIGHT = 250


def post(url: str, path: str, body: dict[str, Any], key: str | None = None, **headers: str) -> httpx.Response:
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    return httpx.post(url + path, json=body, headers=headers, timeout=LIMIT, trust_env=False)


def test_rest_needs_a_valid_key_and_says_what_each_call_cost(web: FakeWeb, tmp_path: Path) -> None:
    database = str(tmp_path / "ledger.sqlite3")
    with operator(database) as accounts:
        _, key = accounts.add("bot", credits=100)
        _, stopped = accounts.add("stopped", credits=100)
        accounts.set_disabled("stopped")
    with servers(web, tmp_path, database, 1) as (server,):
        missing = post(server.url, "/v1/search", SEARCH)
        wrong = post(server.url, "/v1/search", SEARCH, key="wr_not-a-key")
        disabled = post(server.url, "/v1/search", SEARCH, key=stopped)
        listing = httpx.get(server.url + "/v1/tools", trust_env=False)
        searched = post(server.url, "/v1/search", SEARCH, key=key)
        fetched = post(server.url, "/v1/fetch", {"url": f"{web.url}/_pages/article"}, key=key)
        private = post(server.url, "/v1/fetch", {"url": "http://10.0.0.1/"}, key=key)
        health = httpx.get(server.url + "/healthz", trust_env=False)
    for refused in (missing, wrong, disabled, listing):
        assert refused.status_code == 401 and refused.json()["code"] == "agent_auth_failed"
    assert missing.headers["www-authenticate"].startswith("Bearer")
    assert "wr_not-a-key" not in wrong.text
    assert health.status_code == 200
    assert searched.status_code == 200 and searched.json()["cost"]["balance"] == 98
    assert fetched.json()["cost"]["balance"] == 97
    assert private.status_code == 403 and private.json()["cost"] == {**private.json()["cost"], "charged": 0}
    with operator(database) as accounts:
        assert accounts.ledger.agent("bot").balance == 97 == accounts.ledger.journal_sum("bot")


def test_rest_idempotency_key_replays_and_refuses_other_arguments(web: FakeWeb, tmp_path: Path) -> None:
    database = str(tmp_path / "ledger.sqlite3")
    with operator(database) as accounts:
        _, key = accounts.add("bot", credits=100)
    with servers(web, tmp_path, database, 1) as (server,):
        answers = [post(server.url, "/v1/search", SEARCH, key=key, **{"Idempotency-Key": "once"}) for _ in range(3)]
        other = post(server.url, "/v1/search", {**SEARCH, "limit": 3}, key=key, **{"Idempotency-Key": "once"})
    replays = [answer.json() for answer in answers[1:]]
    assert [replay["cost"] for replay in replays] == [_replay_cost(answers[0].json()["cost"])] * 2
    assert all({**replay, "cost": None} == {**answers[0].json(), "cost": None} for replay in replays)
    assert other.status_code == 422 and other.json()["code"] == "idempotency_mismatch"
    with operator(database) as accounts:
        assert accounts.ledger.agent("bot").balance == 98


async def test_mcp_over_http_authenticates_and_meters(web: FakeWeb, tmp_path: Path) -> None:
    database = str(tmp_path / "ledger.sqlite3")
    with operator(database) as accounts:
        _, key = accounts.add("bot", credits=10)
        accounts.set_options("bot", {"profile": {"tools": ["web_search", "web_fetch"]}})
    with servers(web, tmp_path, database, 1) as (server,), anyio.fail_after(LIMIT):
        refused = httpx.post(server.url + "/mcp", json={}, timeout=LIMIT, trust_env=False)
        headers = {"Authorization": f"Bearer {key}", "X-Webreach-Agent": "someone-else"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=LIMIT) as http,
            Client(streamable_http_client(f"{server.url}/mcp", http_client=http), mode="legacy") as mcp,
        ):
            listed = await mcp.list_tools()
            first = await mcp.call_tool("web_search", SEARCH, meta={"idempotency_key": "m1"})
            replayed = await mcp.call_tool("web_search", SEARCH, meta={"idempotency_key": "m1"})
    assert refused.status_code == 401 and refused.json()["code"] == "agent_auth_failed"
    assert [tool.name for tool in listed.tools] == ["web_search", "web_fetch"]
    assert first.content[0].text.splitlines()[-1].startswith("[cost: 2 credits; balance 8;")
    assert replayed.content[0].text.splitlines()[:-1] == first.content[0].text.splitlines()[:-1]
    assert replayed.content[0].text.splitlines()[-1].startswith("[cost: 0 credits (a replay of a call charged 2);")
    with operator(database) as accounts:
        assert accounts.ledger.agent("bot").balance == 8  # as bot, whatever X-Webreach-Agent claimed


async def test_a_profiles_mcp_path_needs_the_same_key_and_meters_the_same(web: FakeWeb, tmp_path: Path) -> None:
    """/mcp/rollout-gateway and the root mapped to it are doors like /mcp: no key, 401; a key, the call is charged
    as the native tool it runs (文搜文 as web_search)."""
    database = str(tmp_path / "ledger.sqlite3")
    with operator(database) as accounts:
        _, key = accounts.add("bot", credits=10)
    paths = {"WEBREACH_TOOLS__MCP_PATHS": '{"/": "rollout-gateway", "/mcp/rollout-gateway": "rollout-gateway"}'}
    with servers(web, tmp_path, database, 1, **paths) as (server,), anyio.fail_after(LIMIT):
        refused = [
            httpx.post(server.url + path, json={}, timeout=LIMIT, trust_env=False)
            for path in ("/", "/mcp/rollout-gateway")
        ]
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=LIMIT) as http,
            Client(streamable_http_client(f"{server.url}/mcp/rollout-gateway", http_client=http)) as mcp,
        ):
            listed = await mcp.list_tools()
            searched = await mcp.call_tool("文搜文", {"query": "python asyncio", "k": 2})
    assert [answer.status_code for answer in refused] == [401, 401]
    assert all(answer.json()["code"] == "agent_auth_failed" for answer in refused)
    assert "文搜文" in [tool.name for tool in listed.tools]
    assert not searched.is_error and json.loads(searched.content[0].text)["cost"]["charged"] == 2
    with operator(database) as accounts:
        assert accounts.ledger.agent("bot").balance == 8


async def _hammer(urls: list[str], key: str, calls: int) -> Counter[str]:
    """`calls` concurrent searches spread over the servers; the outcome of each (ok or the error code)."""
    # no keep-alive: a loaded machine can idle a kept connection past the server's keep-alive timeout, and a call
    # sent as the server closes it would fail without reaching it (a retry could not tell whether it did)
    limits = httpx.Limits(max_connections=IN_FLIGHT, max_keepalive_connections=0)
    # every call is issued at once; a call may wait for a connection as long as it takes (the whole run is bounded)
    timeout = httpx.Timeout(LIMIT, pool=None)
    async with httpx.AsyncClient(timeout=timeout, trust_env=False, limits=limits) as client:
        # at most IN_FLIGHT at once: past that httpx's pool spends its time walking its queue of waiting requests
        gate = asyncio.Semaphore(IN_FLIGHT)

        async def one(n: int) -> str:
            async with gate:
                response = await client.post(
                    urls[n % len(urls)] + "/v1/search", json=SEARCH, headers={"Authorization": f"Bearer {key}"}
                )
            body = response.json()
            return "ok" if response.status_code == 200 else str(body["code"])

        outcomes = await asyncio.wait_for(asyncio.gather(*(one(n) for n in range(calls))), HAMMER_LIMIT)
    return Counter(outcomes)


def _exactly_150_of_1000(web: FakeWeb, tmp_path: Path, database: str, processes: int) -> Counter[str]:
    with operator(database) as accounts:
        _, key = accounts.add("bot", credits=300, per_hour=None)
        accounts.set_limits("bot", per_hour=None)
    # the engine's own rate limit out of the way: this is about credits, not about mojeek's politeness
    unlimited = {"WEBREACH_ENGINES__MOJEEK__RATE_PER_MINUTE": "1000000"}
    with servers(web, tmp_path, database, processes, **unlimited) as started:
        started_at = time.perf_counter()
        outcomes = asyncio.run(_hammer([server.url for server in started], key, 1000))
        print(f"1,000 calls over {processes} processes: {outcomes} in {time.perf_counter() - started_at:.1f} s")
    with operator(database) as accounts:
        ledger = accounts.ledger
        assert ledger.agent("bot").balance == 0 == ledger.journal_sum("bot")
        kinds = Counter(row["kind"] for row in ledger.journal("bot", limit=10_000))
        states = Counter(call["state"] for call in ledger.calls("bot", limit=10_000))
    assert outcomes == {"ok": 150, "insufficient_credits": 850}
    assert kinds == {"grant": 1, "reserve": 150} and states == {"committed": 150}  # whole commits write no row
    return outcomes


def test_two_servers_sharing_postgresql_charge_exactly(web: FakeWeb, tmp_path: Path, postgres_url: str) -> None:
    _exactly_150_of_1000(web, tmp_path, postgres_url, processes=2)


def test_three_servers_sharing_one_sqlite_file_charge_exactly(web: FakeWeb, tmp_path: Path) -> None:
    _exactly_150_of_1000(web, tmp_path, str(tmp_path / "ledger.sqlite3"), processes=3)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_server_killed_mid_call_loses_no_credit_and_charges_nothing_twice(
    web: FakeWeb, tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    database = str(tmp_path / "l.sqlite3") if backend == "sqlite" else request.getfixturevalue("postgres_url")
    with operator(database) as accounts:
        _, key = accounts.add("bot", credits=10)
    # a lease of 2 s must outlast the longest call (checked at start-up): deadlines of 1 s, ledger waits of 0.2 s
    deadlines = ("WEBREACH_REQUEST_DEADLINE", "WEBREACH_READ__TIMEOUT", "WEBREACH_READ__JINA_TIMEOUT")
    lease = {"WEBREACH_ACCOUNTS__LEASE_SECONDS": "2", "WEBREACH_ACCOUNTS__DATABASE_TIMEOUT": "0.2"}
    lease |= dict.fromkeys((*deadlines, "WEBREACH_READ__BROWSER_TIMEOUT"), "1")
    web.set_scenario("bing", latency=20)
    try:
        with servers(web, tmp_path, database, 1, **lease) as (doomed,):
            caller = threading.Thread(target=_call_slowly, args=(doomed.url, key), daemon=True)
            caller.start()
            _wait_for_open_reservation(database)
            os.kill(doomed.process.pid, signal.SIGKILL)
            doomed.process.wait(LIMIT)
            caller.join(LIMIT)
    finally:
        web.reset("bing")
    with operator(database) as accounts:
        assert accounts.ledger.agent("bot").balance == 8  # held by the dead call, not yet released
    time.sleep(2.5)  # the dead call's lease (2 s) passes; recovery needs it over, by the ledger's clock
    with servers(web, tmp_path, database, 1, **lease) as (survivor,):
        after = post(survivor.url, "/v1/search", SEARCH, key=key)
    assert after.json()["cost"]["balance"] == 8  # the dead call's 2 came back, this call's 2 were charged
    with operator(database) as accounts:
        ledger = accounts.ledger
        assert ledger.agent("bot").balance == 8 == ledger.journal_sum("bot")
        kinds = Counter(row["kind"] for row in ledger.journal("bot"))
        states = Counter(call["state"] for call in ledger.calls("bot"))
    assert kinds == {"grant": 1, "reserve": 2, "release": 1} and states == {"released": 1, "committed": 1}


def _call_slowly(url: str, key: str) -> None:
    with contextlib.suppress(httpx.HTTPError):  # the server dies under it: a connection error is what happens
        post(url, "/v1/search", {**SEARCH, "engine": "bing"}, key=key)


def _wait_for_open_reservation(database: str) -> None:
    deadline = time.monotonic() + LIMIT
    with operator(database) as accounts:
        while time.monotonic() < deadline:
            with accounts.ledger.database.transaction() as tx:
                if tx.rows("SELECT call_id FROM accounts_open_v1 WHERE agent = 'bot'"):
                    return
            time.sleep(0.02)
    raise AssertionError("the slow call never reserved its credits")


def test_a_duplicate_while_the_first_call_runs_is_told_to_come_back(web: FakeWeb, tmp_path: Path) -> None:
    database = str(tmp_path / "ledger.sqlite3")
    with operator(database) as accounts:
        _, key = accounts.add("bot", credits=10)
    slow = {**SEARCH, "engine": "bing"}
    web.set_scenario("bing", latency=3)
    first: list[httpx.Response] = []
    try:
        with servers(web, tmp_path, database, 1) as (server,):
            headers = {"Idempotency-Key": "slow-1"}
            caller = threading.Thread(target=lambda: first.append(post(server.url, "/v1/search", slow, key, **headers)))
            caller.start()
            _wait_for_claim(database)
            duplicate = post(server.url, "/v1/search", slow, key=key, **headers)
            caller.join(LIMIT)
            replayed = post(server.url, "/v1/search", slow, key=key, **headers)
    finally:
        web.reset("bing")
    assert duplicate.status_code == 409 and duplicate.json()["code"] == "in_progress"
    assert duplicate.headers["retry-after"] == "1"
    assert first[0].status_code == 200 and replayed.json()["cost"] == _replay_cost(first[0].json()["cost"])
    with operator(database) as accounts:
        assert accounts.ledger.agent("bot").balance == 8


def _wait_for_claim(database: str) -> None:
    deadline = time.monotonic() + LIMIT
    with operator(database) as accounts:
        while time.monotonic() < deadline:
            with accounts.ledger.database.transaction(write=False) as tx:
                if tx.rows("SELECT key FROM accounts_idempotency_v1 WHERE state = 'running'"):
                    return
            time.sleep(0.02)
    raise AssertionError("the first call never claimed its idempotency key")


def _replay_cost(original: dict[str, object]) -> dict[str, object]:
    """What a replay's cost says: nothing charged now, what the first call was charged, the balance as it is."""
    return {**original, "charged": 0, "replayed": True, "original_charged": original["charged"]}
