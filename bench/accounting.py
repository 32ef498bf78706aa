"""Benchmark: what accounting adds to a tool call, off against SQLite and PostgreSQL (loopback), side by side.

Run: python -m bench.accounting [--calls 2000] [--rounds 5] [--seconds 4] [--clients 8]

1. Per-call overhead, in process: Toolbox.call("web_search", output="json") of a cached search over a real Gateway
   and the fake web, as the HTTP door makes it (with accounts on, the key is authenticated first, then the
   metering policy reserves and settles: three short transactions). Modes take turns in each round; p50 and p99 over
   every call; "added" is the mode's p50 minus the off mode's p50 (the same calls, the same cache).
2. REST cached searches under wrk (bench/load.py; httpx clients saturated near 300 req/s here and hid the
   server's cost): a `webreach serve` process per mode, a closed loop from --clients wrk connections for --seconds
   per round, modes taking turns (reversed every other round). Reported: req/s, the server's CPU per request (its
   CPU time over the run from /proc, per answered request: comparable on a busy machine), each round's CPU ratio
   to accounting off (median and range), and the p99 of a /healthz probe sent every 50 ms during the runs.

The agent has a quota (1,000,000 calls an hour), so the quota count is part of every call, as in production.
Targets (issue 38): server CPU per request at most 1.25x off with SQLite and 1.6x with PostgreSQL; /healthz p99
under 10 ms while saturated. Prints a markdown table and writes
bench/results/accounting.json. A PostgreSQL cluster is started in a temporary directory (webreach.testing.postgres).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.load import STARTUP, Endpoint, Plan, wrk_run
from bench.serve import cpu_seconds
from webreach.config import Settings
from webreach.gateway import Gateway
from webreach.testing import FakeWeb
from webreach.testing.environment import process_env
from webreach.testing.postgres import fresh_database, throwaway_cluster
from webreach.testing.server_process import serve_process
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
def server(web: FakeWeb, home: Path, database: str | None) -> Iterator[tuple[str, int]]:
    """A `webreach serve` process for one mode: its URL and PID (for its CPU time)."""
    env = process_env(home, WEBREACH_FAKE_WEB=web.url, WEBREACH_STATE__BACKEND="memory")
    if database:
        env |= {"WEBREACH_ACCOUNTS__ENABLED": "true", "WEBREACH_ACCOUNTS__DATABASE": database}
    home.mkdir(parents=True, exist_ok=True)
    with serve_process(env, home) as running:  # its stderr drained: a full pipe would stall the server under load
        yield running.url, running.process.pid


def endpoint(key: str | None, clients: int) -> Endpoint:
    headers = {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {key}"} if key else {})
    body = json.dumps(ARGUMENTS).encode()
    return Endpoint("search", "POST", "/v1/search", body, [headers] * clients)


@dataclass
class Rate:
    rps: float
    cpu_ms: float  # server CPU per request
    cpus: float  # CPUs the server used
    healthz_ms: list[float]


def saturated(url: str, pid: int, key: str | None, clients: int, seconds: float) -> Rate:
    """One closed-loop wrk run of cached searches: requests per second, server CPU ms per request, and the
    latency of /healthz asked every 50 ms from another thread meanwhile."""
    probes: list[float] = []
    stop = threading.Event()

    def probe() -> None:
        with httpx.Client(base_url=url, trust_env=False, timeout=10) as http:
            while not stop.wait(0.05):
                started = time.perf_counter()
                http.get("/healthz").raise_for_status()
                probes.append((time.perf_counter() - started) * 1000)

    plan = Plan(clients, time.monotonic() + STARTUP, seconds)
    prober = threading.Thread(target=probe, daemon=True)
    before, wall = cpu_seconds(pid), time.monotonic()
    prober.start()
    try:
        run = wrk_run(url, endpoint(key, clients), plan)
    finally:
        stop.set()
        prober.join()
    served = cpu_seconds(pid)[1] - before[1]
    elapsed = time.monotonic() - wall
    done = sum(1 for start, _ in run.samples if plan.start <= start < plan.end)
    if run.failures:
        raise RuntimeError(f"{run.failures} failed searches")
    # CPU over the whole run (warm-up and tail included) per request answered in it: the server did nothing else
    return Rate(done / plan.window, served * 1000 / max(1, len(run.samples)), served / elapsed, probes)


def rest(web: FakeWeb, databases: dict[str, str], rounds: int, clients: int, seconds: float) -> dict[str, list[Rate]]:
    """Each mode's server under wrk, modes taking turns each round."""
    rates: dict[str, list[Rate]] = {mode: [] for mode in MODES}
    with tempfile.TemporaryDirectory() as home, contextlib.ExitStack() as stack:
        keys: dict[str, str | None] = {"off": None}
        servers = {}
        for mode in MODES:
            database = databases.get(mode)
            if database:
                keys[mode] = asyncio.run(_add_agent(database, mode))
            servers[mode] = stack.enter_context(server(web, Path(home) / mode, database))
            url = servers[mode][0]
            headers = {"Authorization": f"Bearer {keys[mode]}"} if keys[mode] else {}
            httpx.post(f"{url}/v1/search", json=ARGUMENTS, headers=headers, trust_env=False).raise_for_status()
        for index in range(rounds):
            for mode in MODES if index % 2 == 0 else reversed(MODES):
                url, pid = servers[mode]
                rates[mode].append(saturated(url, pid, keys[mode], clients, seconds))
    return rates


async def _add_agent(database: str, name: str) -> str:
    settings = Settings(state={"backend": "memory"}, accounts={"enabled": True, "database": database})
    async with Gateway.from_settings(settings) as gateway:
        _, key = gateway.accounts.add(f"rest-{name}", credits=10**12, per_hour=1_000_000)
    return key


def table(samples: dict[str, list[float]], rates: dict[str, list[Rate]]) -> tuple[str, dict[str, Any]]:
    base = statistics.median(samples["off"])
    lines = [
        "| accounting | p50 ms/call | p99 ms/call | added p50 ms | REST req/s | server CPU ms/req | CPU vs off "
        "(median, min-max) | /healthz p99 ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    summary: dict[str, Any] = {}
    for mode in MODES:
        p50, p99 = statistics.median(samples[mode]), percentile(samples[mode], 0.99)
        rate = statistics.median(r.rps for r in rates[mode])
        cpu = statistics.median(r.cpu_ms for r in rates[mode])
        # each round's own ratio: rounds run at different moments of a busy machine
        ratios = [r.cpu_ms / off.cpu_ms for r, off in zip(rates[mode], rates["off"], strict=True)]
        healthz = percentile([ms for r in rates[mode] for ms in r.healthz_ms] or [0.0], 0.99)
        summary[mode] = {
            "p50_ms": p50, "p99_ms": p99, "added_p50_ms": p50 - base, "rest_rps": rate, "server_cpu_ms": cpu,
            "cpu_vs_off": statistics.median(ratios), "healthz_p99_ms": healthz,
            "rounds": [{"rps": r.rps, "cpu_ms": r.cpu_ms, "cpus": r.cpus} for r in rates[mode]],
        }  # fmt: skip
        lines.append(
            f"| {mode} | {p50:.3f} | {p99:.3f} | {p50 - base:+.3f} | {rate:.0f} | {cpu:.3f} | "
            f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) | {healthz:.1f} |"
        )
    return "\n".join(lines), summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--clients", type=int, default=8)
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
