"""GET /readyz answers 503 naming the backend that does not answer (a real redis-server or PostgreSQL stopped
mid-test, an unreadable state file) and 200 again once it is back, without a restart; /healthz stays 200."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from webreach.config import ServerSettings, Settings
from webreach.frontends.http import build_app
from webreach.testing import FakeWeb
from webreach.testing.postgres import PostgresUnavailable, restartable_cluster
from webreach.testing.redis import RedisUnavailable, restartable_redis

pytestmark = pytest.mark.network
BASE = "http://127.0.0.1:9090"


def served(settings: Settings) -> TestClient:
    return TestClient(build_app(settings, server=ServerSettings(port=9090)), base_url=BASE)


def readyz(client: TestClient) -> tuple[int, dict[str, Any]]:
    response = client.get("/readyz")
    assert response.headers["cache-control"] == "no-store"
    return response.status_code, response.json()


def test_memory_state_is_ready(web: FakeWeb) -> None:
    with served(Settings(fake_web=web.url, state={"backend": "memory"})) as client:
        assert readyz(client) == (200, {"status": "ready", "checks": {"state": {"ok": True, "backend": "memory"}}})
        assert client.get("/healthz").json() == {"status": "ok"}


def test_sqlite_state_and_ledger_are_checked(web: FakeWeb, tmp_path: Path) -> None:
    state = tmp_path / "state" / "state.sqlite3"
    ledger = tmp_path / "accounts.sqlite3"
    settings = Settings(
        fake_web=web.url, state={"path": str(state)}, accounts={"enabled": True, "database": str(ledger)}
    )
    with served(settings) as client:
        status, body = readyz(client)
        assert status == 200, body
        assert body["checks"] == {
            "state": {"ok": True, "backend": "sqlite"},
            "accounts": {"ok": True, "backend": "sqlite"},
        }
        # the state directory replaced by a plain file: the state file can be neither opened nor created
        shutil.rmtree(state.parent)
        state.parent.write_text("not a directory")
        status, body = readyz(client)
        assert status == 503 and body["status"] == "unready"
        assert body["checks"]["accounts"]["ok"] is True
        failed = body["checks"]["state"]
        assert failed["ok"] is False and failed["code"] == "state_backend_unavailable" and failed["retryable"]
        assert str(state.parent) in failed["message"]
        assert client.get("/healthz").status_code == 200, "the process itself is fine"
        state.parent.unlink()  # the directory can be created again
        assert readyz(client)[0] == 200


@pytest.mark.redis
def test_redis_stopped_mid_test_is_unready_then_ready_again(web: FakeWeb) -> None:
    try:
        started = restartable_redis()
        server = started.__enter__()
    except RedisUnavailable as missing:
        pytest.skip(str(missing))
    try:
        settings = Settings(fake_web=web.url, state={"backend": "redis", "url": server.url, "timeout": 0.3})
        with served(settings) as client:
            assert readyz(client) == (200, {"status": "ready", "checks": {"state": {"ok": True, "backend": "redis"}}})
            server.stop()
            response = client.get("/readyz")
            assert response.status_code == 503
            failed = response.json()["checks"]["state"]
            assert failed["ok"] is False and failed["backend"] == "redis"
            assert failed["code"] == "state_backend_unavailable" and failed["retryable"] is True
            assert "redis" in failed["message"] and "127.0.0.1" not in response.text
            assert client.get("/healthz").status_code == 200
            server.start()
            assert readyz(client)[0] == 200, "ready again without a restart"
    finally:
        started.__exit__(None, None, None)


@pytest.fixture(scope="module")
def pg_cluster() -> Iterator[Any]:
    try:
        with restartable_cluster(max_connections=20) as cluster:
            yield cluster
    except PostgresUnavailable as missing:
        pytest.skip(str(missing))


@pytest.mark.postgres
def test_postgres_stopped_mid_test_is_unready_then_ready_again(web: FakeWeb, pg_cluster: Any) -> None:
    settings = Settings(
        fake_web=web.url,
        state={"backend": "memory"},
        accounts={"enabled": True, "database": pg_cluster.url, "database_timeout": 1.0},
    )
    with served(settings) as client:
        status, body = readyz(client)
        assert status == 200 and body["checks"]["accounts"] == {"ok": True, "backend": "postgresql"}, body
        pg_cluster.stop()
        try:
            status, body = readyz(client)
            assert status == 503, body
            failed = body["checks"]["accounts"]
            assert failed["ok"] is False and failed["backend"] == "postgresql"
            assert failed["code"] == "accounting_unavailable" and failed["retryable"] is True
            assert "webreach@" not in str(body), "no database URL in the answer"
            assert body["checks"]["state"]["ok"] is True
        finally:
            pg_cluster.start()
        status, body = readyz(client)
        assert status == 200, body
