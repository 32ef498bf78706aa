"""A server and the CLI through ledger outages (issue 35): PostgreSQL restarted under a serving server answers the
typed 503 accounting_unavailable meanwhile and recovers without restarting webreach, the money exact; the CLI
prints typed errors, never a traceback, for an unreachable PostgreSQL, a read-only ledger, out-of-range numbers
and a lease shorter than the longest call."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from webreach.config import Settings
from webreach.errors import AccountingUnavailableError
from webreach.gateway import Gateway
from webreach.testing import FakeWeb
from webreach.testing.environment import FAST_OUTAGES as FAST
from webreach.testing.environment import process_env
from webreach.testing.postgres import Cluster, fresh_database
from webreach.tools import Toolbox, account_policies

from .servers import operator, servers
from .test_ledger_faults import fill, read_only_view, small_file_system

pytestmark = [pytest.mark.network, pytest.mark.slow]  # webreach processes, outages and restarts
T = TypeVar("T")
SEARCH = {"query": "python asyncio", "engine": "mojeek", "limit": 2}
LIMIT = 60


def search(url: str, key: str) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"}
    return httpx.post(url + "/v1/search", json=SEARCH, headers=headers, timeout=LIMIT, trust_env=False)


class Caller:
    """Metered calls one after another from a thread until stopped: every answer's status, code and charge."""

    def __init__(self, url: str, key: str) -> None:
        self.url, self.key = url, key
        self.answers: list[tuple[int, str, int, str | None]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            answer = search(self.url, self.key)
            body = answer.json()
            code = "ok" if answer.status_code == 200 else body["code"]
            charged = body.get("cost", {}).get("charged", 0) if answer.status_code == 200 else 0
            self.answers.append((answer.status_code, code, charged, answer.headers.get("retry-after")))

    def __enter__(self) -> Caller:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(LIMIT)

    def wait_for(self, count: int, *, code: str) -> None:
        deadline = time.monotonic() + LIMIT
        while sum(answer[1] == code for answer in self.answers) < count:
            assert time.monotonic() < deadline, Counter(answer[1] for answer in self.answers)
            time.sleep(0.05)


def test_postgresql_restarted_under_a_serving_server(web: FakeWeb, tmp_path: Path, own_cluster: Cluster) -> None:
    """Before: after the restart every metered call answered 500 "This is a bug" until webreach was restarted,
    and about 30% of calls on reused connections were reset. Now: 503 accounting_unavailable with Retry-After
    while PostgreSQL is down, served again once it is up (same server process), and the ledger exact."""
    database = fresh_database(own_cluster.url)
    with operator(database) as accounts:
        _, key = accounts.add("bot", credits=10_000)
        accounts.set_limits("bot", per_hour=None)
    with servers(web, tmp_path, database, 1, **FAST) as (server,):
        with Caller(server.url, key) as caller:
            caller.wait_for(5, code="ok")
            own_cluster.stop()
            caller.wait_for(3, code="accounting_unavailable")
            own_cluster.start()
            served_before = sum(answer[1] == "ok" for answer in caller.answers)
            caller.wait_for(served_before + 10, code="ok")
        time.sleep(8.5)  # a call cut mid-way keeps its hold until the lease (8 s) passes; the next call recovers it
        last = search(server.url, key)
        assert server.process.poll() is None  # the same process throughout
    answers = [*caller.answers, (last.status_code, "ok", last.json()["cost"]["charged"], None)]
    codes = Counter(code for _, code, _, _ in answers)
    assert set(codes) == {"ok", "accounting_unavailable"}, codes  # never a 500, never a reset
    assert all(status == 503 and retry for status, code, _, retry in answers if code != "ok")
    last_refusal = max(n for n, answer in enumerate(answers) if answer[1] != "ok")
    after = [code for _, code, _, _ in answers[last_refusal + 1 :]]
    assert len(after) >= 11 and set(after) == {"ok"}  # back, and no call on a connection the restart broke fails
    with operator(database) as accounts:
        ledger = accounts.ledger
        balance = ledger.agent("bot").balance
        assert balance == ledger.journal_sum("bot")
        assert balance + sum(charged for _, _, charged, _ in answers) == 10_000  # nothing served uncharged
        with ledger.database.transaction(write=False) as tx:
            assert tx.rows("SELECT call_id FROM accounts_open_v1") == []


def test_a_server_whose_sqlite_ledger_fills_its_disk(web: FakeWeb, tmp_path: Path) -> None:
    """Before: on a full disk half the calls answered 500 "This is a bug" and the other half were reset. Now every
    call is served and charged, or answers 503 accounting_unavailable; freeing space brings service back in the
    same process, and the ledger stays exact."""
    with small_file_system(tmp_path / "disk", "3m") as disk:
        database = str(disk / "accounts.sqlite3")
        with operator(database) as accounts:
            _, key = accounts.add("bot", credits=10_000)
            accounts.set_limits("bot", per_hour=None)
        with servers(web, tmp_path, database, 1, **FAST) as (server,):
            answers = [search(server.url, key) for _ in range(3)]
            filler = fill(disk)
            answers += [search(server.url, key) for _ in range(60)]
            filler.unlink()
            time.sleep(8.5)  # a call whose settle failed keeps its hold until the lease (8 s) passes
            answers += [search(server.url, key) for _ in range(5)]
            assert server.process.poll() is None
        with operator(database) as accounts:
            balance = accounts.ledger.agent("bot").balance
            assert balance == accounts.ledger.journal_sum("bot")
    codes = Counter(answer.json().get("code", "ok") if answer.status_code != 200 else "ok" for answer in answers)
    assert set(codes) == {"ok", "accounting_unavailable"}, codes
    assert all(answer.headers["retry-after"] for answer in answers if answer.status_code != 200)
    assert all(answer.status_code == 200 for answer in answers[-5:])
    charged = sum(answer.json()["cost"]["charged"] for answer in answers if answer.status_code == 200)
    assert balance + charged == 10_000  # nothing served uncharged, nothing charged unserved


async def test_a_call_whose_charge_cannot_be_recorded_is_not_served(web: FakeWeb, own_cluster: Cluster) -> None:
    """PostgreSQL goes down while a call runs: its reservation was made, its settle cannot be. The result is
    withheld (accounting_unavailable), the hold stays open, and once PostgreSQL is back and the lease passed the
    next call's recovery gives the credits back: the agent paid nothing for what it did not get."""
    settings = Settings(
        fake_web=web.url,
        state={"backend": "memory"},
        request_deadline=3,
        read={"timeout": 3, "jina_timeout": 3, "browser_timeout": 3},
        accounts={
            "enabled": True,
            "database": fresh_database(own_cluster.url),
            "lease_seconds": 5,
            "database_timeout": 0.5,
        },
    )
    web.set_scenario("bing", latency=1.5)
    try:
        async with Gateway.from_settings(settings) as gateway:
            accounts = gateway.accounts
            accounts.add("bot", credits=100)
            toolbox = Toolbox.over(gateway, policies=account_policies(accounts))
            slow = {**SEARCH, "engine": "bing"}
            running = asyncio.create_task(toolbox.call("web_search", slow, output="json", caller="bot"))
            while not accounts.ledger.calls("bot"):  # reserved: the handler runs now
                await asyncio.sleep(0.02)
            await asyncio.to_thread(own_cluster.stop)
            withheld = (await running).data
            await asyncio.to_thread(own_cluster.start)
            assert await back(lambda: accounts.ledger.agent("bot").balance) == 98  # held by the call not served
            await asyncio.sleep(5.2)  # its lease passes
            after = (await toolbox.call("web_search", SEARCH, output="json", caller="bot")).data
            ledger = accounts.ledger
            assert ledger.agent("bot").balance == 98 == ledger.journal_sum("bot")
    finally:
        web.reset("bing")
    assert withheld is not None and withheld["code"] == "accounting_unavailable" and "results" not in withheld
    assert "result is withheld" in withheld["message"] and withheld["retry_after"]
    assert after is not None and after["cost"]["charged"] == 2 and after["cost"]["balance"] == 98


async def back(read: Callable[[], T]) -> T:
    """`read()` once the ledger answers again (the pool reconnects in the background)."""
    deadline = time.monotonic() + LIMIT
    while True:
        try:
            return read()
        except AccountingUnavailableError:
            assert time.monotonic() < deadline, "the ledger never came back"
            await asyncio.sleep(0.1)


def webreach(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = process_env(home, WEBREACH_ACCOUNTS__ENABLED="true") | env
    command = [sys.executable, "-m", "webreach", *args]
    return subprocess.run(command, env=environment, cwd=home, capture_output=True, text=True, timeout=LIMIT)


def refused(done: subprocess.CompletedProcess[str], code: str, status: int) -> dict[str, Any]:
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    assert done.returncode == status, (done.returncode, done.stderr, done.stdout)
    body: dict[str, Any] = json.loads(done.stdout)
    assert body["code"] == code, body
    return body


def test_cli_out_of_range_numbers_are_typed_invalid_input(tmp_path: Path) -> None:
    database = str(tmp_path / "ledger.sqlite3")
    with operator(database) as accounts:
        accounts.add("bot", credits=5)
    env = {"WEBREACH_ACCOUNTS__DATABASE": database}
    huge = str(10**30)
    for args in (
        ("agents", "grant", "--json", "bot", huge),
        ("agents", "grant", "--json", "bot", "--", "-" + huge),
        ("agents", "grant", "--json", "bot", str(2**63)),
        ("agents", "add", "--json", "other", "--credits", huge),
        ("agents", "set", "--json", "bot", "--per-hour", huge),
        ("agents", "set", "--json", "bot", "--per-day", "9" * 5000),
        ("agents", "set", "--json", "bot", "--price", f"web_search={huge}"),
    ):
        body = refused(webreach(tmp_path, *args, **env), "invalid_input", 2)
        assert "out of range" in body["message"] or "from 0 to" in body["message"], body
    near = webreach(tmp_path, "agents", "grant", "bot", str(2**53 - 6), "--json", **env)
    assert near.returncode == 0 and json.loads(near.stdout)["balance"] == 2**53 - 1
    over = refused(webreach(tmp_path, "agents", "grant", "bot", "1", "--json", **env), "invalid_input", 2)
    assert "at most 9007199254740991" in over["message"]
    with operator(database) as accounts:
        assert accounts.ledger.agent("bot").balance == 2**53 - 1 == accounts.ledger.journal_sum("bot")


def test_cli_with_postgresql_unreachable_says_accounting_unavailable(tmp_path: Path) -> None:
    with socket_nobody_listens_on() as port:
        env = {"WEBREACH_ACCOUNTS__DATABASE": f"postgresql://webreach@127.0.0.1:{port}/postgres"}
        shown = webreach(tmp_path, "agents", "show", "bot", "--json", **env)
        plain = webreach(tmp_path, "agents", "list", **env)
    body = refused(shown, "accounting_unavailable", 4)
    assert body["retry_after"] and "PostgreSQL" in body["message"]
    assert plain.returncode == 4 and "Traceback" not in plain.stderr
    assert plain.stderr.startswith("error [accounting_unavailable]: the credits ledger cannot be used now")


def test_cli_on_a_read_only_ledger_says_accounting_unavailable(tmp_path: Path) -> None:
    data = tmp_path / "data-dir"
    data.mkdir()
    with operator(str(data / "accounts.sqlite3")) as accounts:
        accounts.add("bot", credits=5)
    with read_only_view(data, tmp_path / "read-only") as view:
        env = {"WEBREACH_ACCOUNTS__DATABASE": str(view / "accounts.sqlite3")}
        shown = webreach(tmp_path, "agents", "show", "bot", "--json", **env)
        plain = webreach(tmp_path, "agents", "show", "bot", **env)
    refused(shown, "accounting_unavailable", 4)
    assert plain.returncode == 4 and "Traceback" not in plain.stderr
    assert plain.stderr.startswith("error [accounting_unavailable]:")


def test_a_lease_shorter_than_the_longest_call_stops_start_up_with_a_clear_error(tmp_path: Path) -> None:
    env = {"WEBREACH_ACCOUNTS__DATABASE": str(tmp_path / "l.sqlite3"), "WEBREACH_ACCOUNTS__LEASE_SECONDS": "10"}
    body = refused(webreach(tmp_path, "agents", "list", "--json", **env), "invalid_input", 2)
    assert "lease_seconds = 10 must be longer than the longest call" in body["message"]
    served = subprocess.run(
        [sys.executable, "-m", "webreach", "serve", "--port", "0"],
        env={**os.environ, "WEBREACH_CONFIG": os.devnull, **env},
        capture_output=True,
        text=True,
        timeout=LIMIT,
    )
    assert served.returncode == 2 and "lease_seconds" in served.stderr and "Traceback" not in served.stderr


@contextlib.contextmanager
def socket_nobody_listens_on() -> Iterator[int]:
    """A loopback port bound but not listening: a connect is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])
