"""Nothing blocks the event loop on the ledger (issue 36, Deliver 2): while another process holds the SQLite
ledger's write lock, idempotent metered calls and admin writes wait for it on the ledger's worker thread, and
/healthz is answered meanwhile. (The idempotency record and the admin answer used to run on the event loop, so one
call waiting on the lock stalled every request until the database timeout.)"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from webreach.config import ServerSettings, Settings
from webreach.frontends.http import build_app
from webreach.testing import FakeWeb

from .servers import operator

pytestmark = pytest.mark.network
BASE = "http://127.0.0.1:9090"
WAITERS = 3
HEALTH_CHECKS = 10


@contextlib.contextmanager
def write_lock(database: str) -> Iterator[None]:
    """The ledger's write lock, held by another connection (as another process's long transaction would)."""
    conn = sqlite3.connect(database, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        yield
    finally:
        conn.execute("ROLLBACK")
        conn.close()


@pytest.mark.slow  # a second or more (measured 2026-11-28): the full suite runs it
def test_healthz_is_answered_while_calls_wait_on_a_locked_ledger(web: FakeWeb, tmp_path: Path) -> None:
    database = str(tmp_path / "ledger.sqlite3")
    with operator(database) as accounts:
        _, key = accounts.add("crawler", credits=100)
    settings = Settings(
        fake_web=web.url,
        state={"backend": "memory"},
        accounts={"enabled": True, "database": database, "database_timeout": 20},
    )
    app = build_app(settings, server=ServerSettings(port=9090))
    finished: list[int] = []

    def search(client: TestClient, n: int) -> None:
        headers = {"Authorization": f"Bearer {key}", "Idempotency-Key": f"slow-{n}"}
        finished.append(client.post("/v1/search", json={"query": "python asyncio"}, headers=headers).status_code)

    def grant(client: TestClient, n: int) -> None:
        finished.append(client.post("/v1/admin/agents/crawler/grant", json={"credits": 1}).status_code)

    with TestClient(app, base_url=BASE, client=("127.0.0.1", 40000)) as client:
        assert client.get("/healthz").status_code == 200  # the app and its ledger are up
        with write_lock(database):
            waiters = [
                threading.Thread(target=work, args=(client, n)) for n in range(WAITERS) for work in (search, grant)
            ]
            for waiter in waiters:
                waiter.start()
            time.sleep(1.0)  # let them reach the ledger (not an assertion: on a loop-blocking build this only helps)
            answered = [client.get("/healthz").status_code for _ in range(HEALTH_CHECKS)]
            still_waiting = len(finished)
        for waiter in waiters:
            waiter.join(timeout=120)
    assert answered == [200] * HEALTH_CHECKS
    assert still_waiting == 0, "the slow calls finished before /healthz was answered: the loop was blocked"
    assert sorted(finished) == [200] * (2 * WAITERS)
