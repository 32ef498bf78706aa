"""Benchmark: a sustained mixed load on three replicas behind HAProxy (issue 37, item 6).

Run: python -m bench.replicas [--seconds 180] [--clients 24] [--window 30]

The fleet of tests/state/test_replicas.py (webreach.testing.fleet: three `webreach serve` on a real Redis and a
real PostgreSQL ledger, HAProxy running deploy/haproxy.cfg, the fake web as the internet), metered calls from
--clients closed-loop clients for --seconds: 50% cached searches, 15% multi searches, 20% page reads, 15% reads
by ref in the client's session. Reports per window: calls, errors by code, p50/p99 latency; each replica's RSS
and Redis's used memory and key count at every window's end. Targets: zero errors, flat RSS, bounded Redis memory.
Prints markdown tables and writes bench/results/replicas.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import random
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import redis

from webreach.testing import FakeWeb
from webreach.testing.fleet import Fleet, fleet

RESULTS = Path(__file__).parent / "results"
QUERIES = ["python asyncio", "rust tokio", "go channels", "postgres vacuum", "redis streams"]
UNPACED = {f"WEBREACH_ENGINES__{name}__RATE_PER_MINUTE": "6000" for name in ("MOJEEK", "YAHOO")}


def _call(n: int, web: str, rng: random.Random) -> tuple[str, dict[str, Any]]:
    """One call of the mix: (path, body)."""
    roll = rng.random()
    query = QUERIES[n % len(QUERIES)]
    if roll < 0.50:
        return "/v1/search", {"query": query, "engine": "mojeek", "limit": 3}
    if roll < 0.65:
        return "/v1/search_multi", {"query": query, "engines": ["mojeek", "yahoo"]}
    if roll < 0.85:
        return "/v1/fetch", {"url": f"{web}/_pages/article", "max_chars": 2000}
    return "/v1/fetch", {"ref": 1 + n % 3, "max_chars": 2000}


async def _client(running: Fleet, web: str, n: int, end: float, log: list[tuple[float, float, str]]) -> None:
    rng = random.Random(n)
    headers = {"Authorization": f"Bearer {running.key}", "X-Webreach-Session": f"bench-{n}"}
    async with httpx.AsyncClient(base_url=running.url, headers=headers, timeout=60, trust_env=False) as http:
        await http.post("/v1/search", json={"query": QUERIES[n % len(QUERIES)], "engine": "mojeek"})  # refs exist
        calls = 0
        while time.monotonic() < end:
            path, body = _call(calls, web, rng)
            started = time.monotonic()
            try:
                answer = await http.post(path, json=body)
                outcome = "ok" if answer.status_code == 200 else f"{answer.status_code} {_code(answer)}"
            except httpx.TransportError as failed:
                outcome = f"transport {type(failed).__name__}"
            log.append((started, time.monotonic() - started, outcome))
            calls += 1


def _code(answer: httpx.Response) -> str:
    try:
        return str(answer.json().get("code"))
    except ValueError:
        return "not json"


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def _sample(running: Fleet, end: float, window: float, samples: list[dict[str, Any]]) -> None:
    store = redis.Redis.from_url(running.redis.url)
    try:
        while True:
            info = store.info("memory")
            samples.append({
                "at": time.monotonic(),
                "rss_mb": [round(_rss_mb(replica.process.pid), 1) for replica in running.replicas],
                "redis_mb": round(int(info["used_memory"]) / 2**20, 2),
                "redis_keys": int(store.dbsize()),
            })  # fmt: skip
            if time.monotonic() >= end:
                return
            await asyncio.sleep(min(window, max(0.0, end - time.monotonic())))
    finally:
        store.close()


async def _run(running: Fleet, web: str, seconds: float, clients: int, window: float) -> dict[str, Any]:
    log: list[tuple[float, float, str]] = []
    samples: list[dict[str, Any]] = []
    start = time.monotonic()
    end = start + seconds
    await asyncio.gather(
        _sample(running, end, window, samples), *(_client(running, web, n, end, log) for n in range(clients))
    )
    windows = []
    for index in range(int(seconds // window)):
        low, high = start + index * window, start + (index + 1) * window
        inside = [entry for entry in log if low <= entry[0] < high]
        latencies = sorted(entry[1] * 1000 for entry in inside) or [0.0]
        errors = Counter(entry[2] for entry in inside if entry[2] != "ok")
        windows.append({
            "from_s": index * window, "calls": len(inside), "per_second": round(len(inside) / window, 1),
            "errors": dict(errors), "p50_ms": round(statistics.median(latencies), 1),
            "p99_ms": round(latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))], 1),
        })  # fmt: skip
    return {"windows": windows, "samples": samples, "calls": len(log)}


def _tables(result: dict[str, Any]) -> str:
    lines = ["| window | calls | calls/s | errors | p50 ms | p99 ms |", "|---|---:|---:|---|---:|---:|"]
    for w in result["windows"]:
        errors = ", ".join(f"{code}: {count}" for code, count in w["errors"].items()) or "0"
        lines.append(
            f"| {w['from_s']:.0f} s | {w['calls']} | {w['per_second']} | {errors} | {w['p50_ms']} | {w['p99_ms']} |"
        )
    lines += ["", "| at | RSS replica1 / 2 / 3 (MB) | Redis used (MB) | Redis keys |", "|---:|---|---:|---:|"]
    first = result["samples"][0]["at"]
    for s in result["samples"]:
        rss = " / ".join(f"{value:.0f}" for value in s["rss_mb"])
        lines.append(f"| {s['at'] - first:.0f} s | {rss} | {s['redis_mb']} | {s['redis_keys']} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=180.0)
    parser.add_argument("--clients", type=int, default=24)
    parser.add_argument("--window", type=float, default=30.0)
    args = parser.parse_args()
    with (
        FakeWeb.in_thread() as web,
        tempfile.TemporaryDirectory() as home,
        fleet(web.url, Path(home), env=UNPACED) as running,
    ):
        result = asyncio.run(_run(running, web.url, args.seconds, args.clients, args.window))
    result |= {"machine": platform.platform(), "clients": args.clients, "seconds": args.seconds}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "replicas.json").write_text(json.dumps(result, indent=2) + "\n")
    print(_tables(result))
    total_errors = sum(sum(w["errors"].values()) for w in result["windows"])
    print(f"\n{result['calls']} calls, {total_errors} errors, {args.clients} clients, {args.seconds:.0f} s")


if __name__ == "__main__":
    main()
