"""Benchmark: the Gateway against raw HTTP, the cache, multi fan-out and hedged auto, on the fake web.

Run: python -m bench.gateway [--n 300] [--out PATH]. The fake web runs in its own process (so it does not share
our event loop or GIL); every number is compared side by side with its reference in the same run. Prints a table
and writes bench/results/gateway.json (or the --out file).

Targets: p50 overhead <= 1 ms over a raw httpx GET of the same response; cache-hit p50 <= 0.2 ms;
multi over 3 engines <= 1.1x the slowest engine alone; auto with a hung first engine answers within
hedge delay + the second engine's latency, in every round (each round's median of interleaved pairs; routing's
own addition, from the response's meta, is shown beside it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from webreach import EngineSettings, Gateway, SearchRequest, Settings
from webreach.config import CacheSettings, StateSettings

RESULTS = Path(__file__).parent / "results"
FAST = EngineSettings(rate_per_minute=1e9)
STATE_DIR = Path(tempfile.mkdtemp(prefix="webreach-bench-"))
STATE_BACKEND = os.environ.get("WEBREACH_BENCH_STATE", "sqlite")


@contextmanager
def fake_web_process() -> Iterator[str]:
    """Start `webreach fakeweb --port 0` and yield its URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "webreach", "fakeweb", "--port", "0"], stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        yield line.strip().rsplit(" ", 1)[-1]
    finally:
        process.terminate()
        process.wait(timeout=10)


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def timed(n: int, call: Callable[[int], Awaitable[Any]]) -> list[float]:
    """Milliseconds of n sequential calls (after 20 warm-up calls)."""
    for i in range(20):
        await call(-1 - i)
    samples = []
    for i in range(n):
        start = time.perf_counter()
        await call(i)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def gateway(url: str, **overrides: Any) -> Gateway:
    fields: dict[str, Any] = {
        "fake_web": url,
        # the default SQLite state backend, in a file of the bench's own (never the user's)
        "state": StateSettings(backend=STATE_BACKEND, path=STATE_DIR / "state.sqlite3"),
        "cache": CacheSettings(backend="none"),
        "engines": {name: FAST for name in ("mojeek", "bing", "brave", "duckduckgo")},
    }
    fields.update(overrides)
    return Gateway.from_settings(Settings(**fields))


async def overhead(url: str, n: int) -> dict[str, float]:
    async with httpx.AsyncClient(trust_env=False) as client:
        raw = await timed(n, lambda i: client.get(f"{url}/mojeek/search", params={"q": f"python asyncio {i}"}))
    async with gateway(url) as gw:
        ours = await timed(n, lambda i: gw.search(SearchRequest(query=f"python asyncio {i}"), engine="mojeek"))
    raw_p50, ours_p50 = statistics.median(raw), statistics.median(ours)
    return {
        "raw_p50_ms": raw_p50,
        "gateway_p50_ms": ours_p50,
        "overhead_p50_ms": ours_p50 - raw_p50,
        "raw_p99_ms": percentile(raw, 0.99),
        "gateway_p99_ms": percentile(ours, 0.99),
    }


async def cache_hit(url: str, n: int) -> dict[str, float]:
    async with gateway(url, cache=CacheSettings(backend="memory")) as gw:
        request = SearchRequest(query="python asyncio")
        await gw.search(request, engine="mojeek")
        hits = await timed(n, lambda i: gw.search(request, engine="mojeek"))
    return {"cache_hit_p50_ms": statistics.median(hits), "cache_hit_p99_ms": percentile(hits, 0.99)}


async def set_scenario(url: str, engine: str, **fields: Any) -> None:
    async with httpx.AsyncClient(trust_env=False) as client:
        response = await client.post(f"{url}/_fakeweb/scenario/{engine}", json=fields)
        response.raise_for_status()


async def multi_vs_slowest(url: str, n: int) -> dict[str, float]:
    for engine, latency in (("bing", 0.05), ("mojeek", 0.1), ("brave", 0.2)):
        await set_scenario(url, engine, latency=latency)
    async with gateway(url) as gw:
        alone = await timed(n, lambda i: gw.search(SearchRequest(query=f"q {i}"), engine="brave"))
        multi = await timed(
            n, lambda i: gw.search(SearchRequest(query=f"q {i}"), engine="multi", engines=["bing", "mojeek", "brave"])
        )
    ratio = statistics.median(multi) / statistics.median(alone)
    return {
        "slowest_alone_p50_ms": statistics.median(alone),
        "multi_p50_ms": statistics.median(multi),
        "multi_over_slowest": ratio,
    }


async def hedged_pair(url: str, settings: dict[str, Any], i: int) -> tuple[float, float, float]:
    """One interleaved pair: ms of the second engine alone, ms of auto with the first hung, and what routing
    itself added in that auto call (its elapsed time less the hedge delay and the winner's own latency)."""
    # fresh gateways, so the hung engine's breaker never learns to skip it
    async with gateway(url, **settings) as gw:
        start = time.perf_counter()
        await gw.search(SearchRequest(query=f"alone {i}"), engine="mojeek")
        alone = (time.perf_counter() - start) * 1000
    async with gateway(url, **settings) as gw:
        start = time.perf_counter()
        response = await gw.search(SearchRequest(query=f"q {i}"), engines=["duckduckgo", "mojeek"])
        auto = (time.perf_counter() - start) * 1000
    added = response.meta.elapsed_ms - settings["hedge_delay"] * 1000 - response.meta.attempts[-1].latency_ms
    return alone, auto, added


async def hedged_auto(url: str, rounds: int, per_round: int = 3) -> dict[str, Any]:
    """Rounds of `per_round` interleaved pairs; a round is within budget when its median auto call is within
    the hedge delay plus its median second-engine-alone call (medians, so one disturbed call counts little)."""
    hedge, second = 0.3, 0.05
    await set_scenario(url, "duckduckgo", fault="hang")
    await set_scenario(url, "mojeek", latency=second)
    settings: dict[str, Any] = {"hedge_delay": hedge, "engine_timeout": 15.0, "retries": 0}
    alone_rounds, auto_rounds, added = [], [], []
    for r in range(rounds):
        pairs = [await hedged_pair(url, settings, r * per_round + k) for k in range(per_round)]
        alone_rounds.append(statistics.median(p[0] for p in pairs))
        auto_rounds.append(statistics.median(p[1] for p in pairs))
        added += [p[2] for p in pairs]
    over = [auto - (hedge * 1000 + alone) for auto, alone in zip(auto_rounds, alone_rounds, strict=True)]
    second_ms = statistics.median(alone_rounds)
    return {
        "hedge_delay_ms": hedge * 1000,
        "second_engine_ms": second_ms,
        "timeout_ms": 15000,
        "auto_p50_ms": statistics.median(auto_rounds),
        "auto_max_ms": max(auto_rounds),
        "budget_ms": hedge * 1000 + second_ms,
        "rounds": rounds,
        "rounds_within_budget": sum(o <= 0 for o in over),
        "round_over_budget_ms": over,
        "routing_added_p50_ms": statistics.median(added),
        "routing_added_max_ms": max(added),
    }


async def run(n: int) -> dict[str, dict[str, Any]]:
    with fake_web_process() as url:
        return {
            "overhead": await overhead(url, n),
            "cache_hit": await cache_hit(url, n),
            "multi": await multi_vs_slowest(url, max(10, n // 10)),
            "hedged_auto": await hedged_auto(url, max(5, n // 30)),
        }


def report(results: dict[str, dict[str, Any]]) -> None:
    o, c, m, h = results["overhead"], results["cache_hit"], results["multi"], results["hedged_auto"]
    rows = [
        (
            "gateway overhead p50",
            f"{o['gateway_p50_ms']:.3f} ms vs raw {o['raw_p50_ms']:.3f} ms",
            f"+{o['overhead_p50_ms']:.3f} ms",
            "<= 1 ms",
            o["overhead_p50_ms"] <= 1.0,
        ),
        (
            "cache hit p50",
            f"{c['cache_hit_p50_ms']:.4f} ms",
            f"p99 {c['cache_hit_p99_ms']:.4f} ms",
            "<= 0.2 ms",
            c["cache_hit_p50_ms"] <= 0.2,
        ),
        (
            "multi (3 engines) vs slowest alone",
            f"{m['multi_p50_ms']:.1f} vs {m['slowest_alone_p50_ms']:.1f} ms",
            f"{m['multi_over_slowest']:.3f}x",
            "<= 1.1x",
            m["multi_over_slowest"] <= 1.1,
        ),
        (
            "auto, first engine hung",
            f"p50 {h['auto_p50_ms']:.0f} ms, max {h['auto_max_ms']:.0f} ms",
            f"timeout {h['timeout_ms']:.0f} ms; second engine alone {h['second_engine_ms']:.0f} ms",
            f"<= hedge {h['hedge_delay_ms']:.0f} + second {h['second_engine_ms']:.0f} ms",
            h["auto_p50_ms"] <= h["budget_ms"],
        ),
        (
            "auto, rounds within budget",
            f"{h['rounds_within_budget']}/{h['rounds']} rounds",
            f"round medians over budget: max {max(h['round_over_budget_ms']):+.1f} ms",
            "every round",
            h["rounds_within_budget"] == h["rounds"],
        ),
        (
            "auto, what routing adds",
            f"p50 {h['routing_added_p50_ms']:.2f} ms, max {h['routing_added_max_ms']:.2f} ms",
            "elapsed less hedge delay and the winner's latency (timer wake-up, task start, return)",
            "(detail)",
            True,
        ),
    ]
    print("| measure | webreach vs reference | ratio / detail | target | met |")
    print("|---|---|---|---|---|")
    for name, value, detail, target, met in rows:
        print(f"| {name} | {value} | {detail} | {target} | {'yes' if met else 'NO'} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--out", type=Path, default=RESULTS / "gateway.json", help="results file")
    args = parser.parse_args()
    results = asyncio.run(run(args.n))
    report(results)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
