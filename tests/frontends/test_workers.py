"""`webreach serve --workers N` (issue 37): several processes on one port share the state file and one metrics
directory, so /metrics on any of them counts every worker's calls; a worker that dies is started again; SIGTERM
stops them all, the calls in flight answered; metered calls on one SQLite ledger are charged exactly once and
hold the quota across workers; the memory state backend, which the workers could not share, is refused typed."""

from __future__ import annotations

import concurrent.futures
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from webreach.testing import FakeWeb
from webreach.testing.environment import process_env

from .serving import http_server

pytestmark = [pytest.mark.network, pytest.mark.slow]
CALLS = 40


def children(pid: int) -> set[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return {int(child) for child in path.read_text().split()} if path.exists() else set()


def search(url: str, n: int) -> int:
    body = {"query": f"workers {n % 4}", "engine": "mojeek"}
    with httpx.Client(trust_env=False, timeout=60) as client:  # a connection per call: the workers share accepts
        return client.post(url + "/v1/search", json=body).status_code


def counted(url: str) -> float:
    text = httpx.get(url + "/metrics", trust_env=False, timeout=60).text
    found = re.findall(r'^webreach_tool_calls_total\{outcome="ok",tool="web_search"\} (\S+)$', text, re.M)
    return float(found[0]) if found else 0.0


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def test_two_workers_share_the_port_the_state_and_the_metrics(
    web: FakeWeb, tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    metrics = tmp_path / "metrics"
    metrics.mkdir()
    env = {
        "WEBREACH_STATE__BACKEND": backend, "WEBREACH_CACHE__BACKEND": backend,
        "WEBREACH_ENGINES__MOJEEK__RATE_PER_MINUTE": "6000", "PROMETHEUS_MULTIPROC_DIR": str(metrics),
    }  # fmt: skip
    if backend == "redis":  # each worker opens its own pool after the fork
        env["WEBREACH_STATE__URL"] = request.getfixturevalue("redis_url")
    with http_server(web, tmp_path, "--workers", "2", **env) as server:
        workers = children(server.process.pid)
        assert len(workers) == 2, workers
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            statuses = list(pool.map(lambda n: search(server.url, n), range(CALLS)))
        assert statuses == [200] * CALLS
        assert counted(server.url) == CALLS, "a scrape of either worker sums both"
        writers = {int(m.group(1)) for f in metrics.iterdir() if (m := re.match(r"counter_(\d+)\.db", f.name))}
        assert writers == workers, (writers, workers)  # both workers served calls
        upstream = web.count("mojeek")
        assert [search(server.url, n) for n in range(8)] == [200] * 8
        assert web.count("mojeek") == upstream, "whichever worker answers, the shared cache has the 4 queries"
        os.kill(min(workers), signal.SIGKILL)  # a worker dies: the parent starts another
        deadline = time.monotonic() + 30
        while len(children(server.process.pid) - {min(workers)}) < 2:
            assert time.monotonic() < deadline, children(server.process.pid)
            time.sleep(0.1)
        assert [search(server.url, n) for n in range(4)] == [200] * 4
        assert web.count("mojeek") == upstream, "the new worker reads the same cache"
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(30) == 0
    assert "starting it again" in server.output()
    assert not any(Path(f"/proc/{pid}").exists() for pid in children(server.process.pid) | workers)


def test_several_workers_on_per_process_state_are_refused(tmp_path: Path, web: FakeWeb) -> None:
    env = process_env(tmp_path, WEBREACH_FAKE_WEB=web.url, WEBREACH_STATE__BACKEND="memory")
    command = [sys.executable, "-m", "webreach", "serve", "--port", "0", "--workers", "3"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "--workers 3 needs state the workers share" in done.stderr and "Traceback" not in done.stderr


def test_sigterm_to_the_parent_lets_every_workers_calls_in_flight_finish(web: FakeWeb, tmp_path: Path) -> None:
    metrics = tmp_path / "metrics"
    metrics.mkdir()
    env = {
        "WEBREACH_STATE__BACKEND": "sqlite", "WEBREACH_CACHE__BACKEND": "sqlite",
        "WEBREACH_ENGINES__MOJEEK__RATE_PER_MINUTE": "6000", "PROMETHEUS_MULTIPROC_DIR": str(metrics),
    }  # fmt: skip
    web.set_scenario("mojeek", latency=1.5)  # each call is in flight for 1.5 s at the engine
    try:
        with (
            http_server(web, tmp_path, "--workers", "2", **env) as server,
            concurrent.futures.ThreadPoolExecutor(4) as pool,
        ):
            before = web.count("mojeek")
            calls = [pool.submit(search, server.url, n) for n in range(4)]  # 4 distinct queries: no cache hit
            deadline = time.monotonic() + 30
            while web.count("mojeek") < before + 4:  # every call has reached the engine
                assert time.monotonic() < deadline, web.count("mojeek") - before
                time.sleep(0.02)
            server.process.send_signal(signal.SIGTERM)  # the parent's PID, as an operator or Kubernetes would
            statuses = [call.result(timeout=30) for call in calls]
            assert server.process.wait(30) == 0, server.output()
    finally:
        web.reset("mojeek")
    assert statuses == [200] * 4, "the calls in flight were answered, not cut"
    from prometheus_client import CollectorRegistry
    from prometheus_client.multiprocess import MultiProcessCollector

    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(metrics))
    served = registry.get_sample_value("webreach_tool_calls_total", {"tool": "web_search", "outcome": "ok"})
    assert served == 4, "each call finished and was counted before its worker exited"


def agents_cli(env: dict[str, str], home: Path, *args: str) -> dict[str, object]:
    command = [sys.executable, "-m", "webreach", "agents", *args, "--json"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, cwd=home)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_two_workers_on_one_sqlite_ledger_charge_exactly_and_hold_the_quota(web: FakeWeb, tmp_path: Path) -> None:
    metrics = tmp_path / "metrics"
    metrics.mkdir()
    env = {
        "WEBREACH_STATE__BACKEND": "sqlite", "WEBREACH_CACHE__BACKEND": "sqlite", "WEBREACH_ACCOUNTS__ENABLED": "true",
        "WEBREACH_ACCOUNTS__DATABASE": f"sqlite://{tmp_path / 'ledger.sqlite3'}",
        "WEBREACH_ENGINES__MOJEEK__RATE_PER_MINUTE": "6000", "PROMETHEUS_MULTIPROC_DIR": str(metrics),
    }  # fmt: skip
    cli_env = process_env(tmp_path, WEBREACH_FAKE_WEB=web.url) | env
    key = agents_cli(cli_env, tmp_path, "add", "crawler", "--credits", "1000", "--per-hour", "60")["key"]

    def metered(n: int) -> httpx.Response:
        headers = {"Authorization": f"Bearer {key}", "Idempotency-Key": f"call-{n}"}
        body = {"query": f"ledger {n % 3}", "engine": "mojeek"}
        with httpx.Client(trust_env=False, timeout=60) as client:  # a connection per call: both workers serve
            return client.post(server.url + "/v1/search", json=body, headers=headers)

    with http_server(web, tmp_path, "--workers", "2", **env) as server:
        workers = children(server.process.pid)
        with concurrent.futures.ThreadPoolExecutor(12) as pool:
            answers = list(pool.map(metered, range(100)))
            replays = list(pool.map(metered, range(100)))  # the same keys again: replayed, never charged again
        writers = {int(m.group(1)) for f in metrics.iterdir() if (m := re.match(r"counter_(\d+)\.db", f.name))}
    codes = [a.status_code for a in answers]
    assert codes.count(200) == 60 and codes.count(429) == 40, codes  # exactly the quota, across both workers
    assert {a.json()["code"] for a in answers if a.status_code == 429} == {"agent_quota_exhausted"}
    assert [r.status_code for r in replays] == codes
    assert [r.json()["results"] for r, a in zip(replays, answers, strict=True) if a.status_code == 200] == [
        a.json()["results"] for a in answers if a.status_code == 200
    ]
    assert writers == workers, (writers, workers)  # both workers served metered calls
    shown = agents_cli(cli_env, tmp_path, "show", "crawler")
    assert shown["balance"] == 1000 - 2 * 60, shown  # each served call charged once, the replays not at all
    assert shown["quota"] == shown["quota"] | {"hour_used": 60, "remaining": 0}, shown["quota"]
