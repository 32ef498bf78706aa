"""Outbound proxy cost: guarded fetches of a fake-web page direct, through an HTTP CONNECT proxy and through SOCKS5.

Both proxies are webreach.testing.proxy's loopback one, so this measures webreach's side (the tunnel handshake
on a new connection, nothing on a reused one) plus one extra loopback hop per byte, not a real proxy's latency.
"cold" opens a new tunnel per fetch (a new Fetcher each time); "warm" reuses the pinned pool's connection.

    python bench/proxy.py [--fetches 40]

Prints a Markdown table and writes bench/results/proxy.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path

from webreach.net import AddressPolicy, Guard, StaticResolver
from webreach.net.fetcher import Fetcher
from webreach.net.proxy import ProxyUrl
from webreach.testing import FakeWeb
from webreach.testing.proxy import TestProxy

RESULTS = Path(__file__).resolve().parent / "results" / "proxy.json"
BODY = b"<p>" + b"tide pools " * 2000 + b"</p>"  # about 22 kB


def _ms(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median_ms": round(statistics.median(ordered) * 1000, 2),
        "p90_ms": round(ordered[int(len(ordered) * 0.9) - 1] * 1000, 2),
    }


async def _run(url: str, proxy: ProxyUrl | None, fetches: int) -> dict[str, dict[str, float]]:
    guard = Guard(AddressPolicy(["127.0.0.1/32"]), StaticResolver({"site.test": "127.0.0.1"}))
    cold: list[float] = []
    for _ in range(fetches):
        async with Fetcher(guard, proxy=proxy) as fetcher:
            started = time.perf_counter()
            await fetcher.fetch(url)
            cold.append(time.perf_counter() - started)
    warm: list[float] = []
    async with Fetcher(guard, proxy=proxy) as fetcher:
        await fetcher.fetch(url)
        for _ in range(fetches):
            started = time.perf_counter()
            await fetcher.fetch(url)
            warm.append(time.perf_counter() - started)
    return {"cold": _ms(cold), "warm": _ms(warm)}


async def main(fetches: int) -> None:
    async with FakeWeb() as web, TestProxy(credentials=("bench", "bench-password")) as proxy:
        web.pages.add("/page", BODY, host="site.test")
        url = f"http://site.test:{web.port}/page"
        rows = {
            "direct": await _run(url, None, fetches),
            "http CONNECT": await _run(url, ProxyUrl.parse(proxy.url("http")), fetches),
            "socks5": await _run(url, ProxyUrl.parse(proxy.url("socks5")), fetches),
        }
    print(f"| path ({fetches} fetches each) | cold median ms | cold p90 ms | warm median ms | warm p90 ms |")
    print("|---|---|---|---|---|")
    for name, row in rows.items():
        cold, warm = row["cold"], row["warm"]
        print(f"| {name} | {cold['median_ms']} | {cold['p90_ms']} | {warm['median_ms']} | {warm['p90_ms']} |")
    RESULTS.write_text(json.dumps({"fetches": fetches, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fetches", type=int, default=40)
    asyncio.run(main(parser.parse_args().fetches))
