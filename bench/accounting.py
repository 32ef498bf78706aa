"""Benchmark: what accounting adds to a tool call, off against SQLite and PostgreSQL (loopback), side by side.

Run: python -m bench.accounting [--calls 2000] [--rounds 5] [--seconds 4] [--clients 16]

1. Per-call overhead, in process: Toolbox.call("web_search", output="json") of a cached search over a real Gateway
   and the fake web, as the HTTP door makes it (with accounts on, the key is authenticated first, then the
   metering policy reserves and settles: three short transactions). Modes take turns in each round; p50 and p99 over
   every call; "added" is the mode's p50 minus the off mode's p50 (the same calls, the same cache).
2. REST cached-search throughput: a `webreach serve` process per mode, closed loop from --clients httpx clients
   for --seconds per round; the median req/s over the rounds and its ratio to accounting off.

The agent has a quota (1,000,000 calls an hour), so the quota count is part of every call, as in production.
Targets: at most 1 ms p50 added on SQLite, 2 ms on PostgreSQL. Prints a markdown table and writes
bench/results/accounting.json. A PostgreSQL cluster is started in a temporary directory (webreach.testing.postgres).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from webreach.config import Settings
from webreach.gateway import Gateway
from webreach.testing import FakeWeb
from webreach.testing.environment import process_env
from webreach.testing.postgres import fresh_database, throwaway_cluster
from webreach.tools import Toolbox, account_policies

RESULTS = Path(__file__).parent / "results"
ARGUMENTS = {"query": "python asyncio", "engine": "mojeek"}
MODES = ("off", "sqlite", "postgresql")


async def per_call(web: FakeWeb, databases: dict[str, str], calls: int, rounds: int) -> dict[str, list[float]]:
    """Milliseconds per call for each mode, modes taking turns each round."""
    samples: dict[str, list[float]] = {mode: [] for mode in MODES}
    async with contextlib.AsyncExitStack() as stack:
        runners = {mode: await stack.enter_async_context(_runner(web, databases.get(mode))) for mode in MODES}
        for _ in range(rounds):
            for mode, run in runners.items():
                samples[mode] += await run(calls // rounds)
    return samples


@contextlib.asynccontextmanager
async def _runner(web: FakeWeb, database: str | None):  # type: ignore[no-untyped-def]
    accounts = {"enabled": True, "database": database} if database else {}
    settings = Settings(fake_web=web.url, state={"backend": "memory"}, accounts=accounts)
    async with Gateway.from_settings(settings) as gateway:
        key = None
        if database:
            _, key = gateway.accounts.add("bench", credits=10**12, per_hour=1_000_000)
        tools = Toolbox.over(gateway, policies=account_policies(gateway.accounts))

        async def run(count: int) -> list[float]:
            timings = []
            for _ in range(count):
                started = time.perf_counter()
                caller = gateway.accounts.authenticate(key) if key else None
                result = await tools.call("web_search", ARGUMENTS, output="json", caller=caller)
                timings.append((time.perf_counter() - started) * 1000)
                assert not result.is_error, result.text
            return timings

        await run(20)  # the cache warm, the database open
        yield run


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@contextlib.contextmanager
def server(web: FakeWeb, home: Path, database: str | None) -> Iterator[str]:
    env = process_env(home, WEBREACH_FAKE_WEB=web.url, WEBREACH_STATE__BACKEND="memory")
    if database:
        env |= {"WEBREACH_ACCOUNTS__ENABLED": "true", "WEBREACH_ACCOUNTS__DATABASE": database}
    command = [sys.executable, "-m", "webreach", "serve", "--port", "0"]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        match = re.search(r"serving (http://\S+)", line)
        if match is None:
            raise RuntimeError(f"the server did not start: {line}")
        yield match.group(1)
    finally:
        process.terminate()
        process.wait(timeout=10)


async def throughput(url: str, key: str | None, clients: int, seconds: float) -> float:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    limits = httpx.Limits(max_connections=clients)
    async with httpx.AsyncClient(base_url=url, headers=headers, limits=limits, trust_env=False, timeout=30) as http:
        assert (await http.post("/v1/search", json=ARGUMENTS)).status_code == 200  # warm
        done = 0
        end = time.perf_counter() + seconds

        async def client() -> None:
            nonlocal done
            while time.perf_counter() < end:
                response = await http.post("/v1/search", json=ARGUMENTS)
                assert response.status_code == 200, response.text
                done += 1

        started = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(clients)))
        return done / (time.perf_counter() - started)


def rest(web: FakeWeb, databases: dict[str, str], rounds: int, clients: int, seconds: float) -> dict[str, list[float]]:
    rates: dict[str, list[float]] = {mode: [] for mode in MODES}
    with tempfile.TemporaryDirectory() as home, contextlib.ExitStack() as stack:
        keys: dict[str, str | None] = {"off": None}
        urls = {}
        for mode in MODES:
            database = databases.get(mode)
            if database:
                keys[mode] = asyncio.run(_add_agent(database, mode))
            urls[mode] = stack.enter_context(server(web, Path(home) / mode, database))
        for _ in range(rounds):
            for mode in MODES:
                rates[mode].append(asyncio.run(throughput(urls[mode], keys[mode], clients, seconds)))
    return rates


async def _add_agent(database: str, name: str) -> str:
    settings = Settings(state={"backend": "memory"}, accounts={"enabled": True, "database": database})
    async with Gateway.from_settings(settings) as gateway:
        _, key = gateway.accounts.add(f"rest-{name}", credits=10**12, per_hour=1_000_000)
    return key


def table(samples: dict[str, list[float]], rates: dict[str, list[float]]) -> tuple[str, dict[str, Any]]:
    base = statistics.median(samples["off"])
    off_rate = statistics.median(rates["off"])
    lines = [
        "| accounting | p50 ms/call | p99 ms/call | added p50 ms | REST req/s | vs off |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    summary: dict[str, Any] = {}
    for mode in MODES:
        p50, p99, rate = (
            statistics.median(samples[mode]),
            percentile(samples[mode], 0.99),
            statistics.median(rates[mode]),
        )
        summary[mode] = {
            "p50_ms": p50,
            "p99_ms": p99,
            "added_p50_ms": p50 - base,
            "rest_rps": rate,
            "rounds": rates[mode],
        }
        lines.append(f"| {mode} | {p50:.3f} | {p99:.3f} | {p50 - base:+.3f} | {rate:.0f} | {rate / off_rate:.2f}x |")
    return "\n".join(lines), summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--clients", type=int, default=16)
    args = parser.parse_args()
    with FakeWeb.in_thread() as web, throwaway_cluster() as cluster, tempfile.TemporaryDirectory() as tmp:
        databases = {"sqlite": str(Path(tmp) / "bench.sqlite3"), "postgresql": fresh_database(cluster)}
        samples = asyncio.run(per_call(web, databases, args.calls, args.rounds))
        databases = {"sqlite": str(Path(tmp) / "rest.sqlite3"), "postgresql": fresh_database(cluster)}
        rates = rest(web, databases, args.rounds, args.clients, args.seconds)
    text, summary = table(samples, rates)
    print(text)
    RESULTS.mkdir(exist_ok=True)
    record = {"machine": platform.platform(), "cpus": os.cpu_count(), "args": vars(args), "modes": summary}
    (RESULTS / "accounting.json").write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
