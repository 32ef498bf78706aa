"""Benchmark: CPU per cached REST web_search in process (the ASGI app called directly, no sockets), beside the
bench-only bare endpoint, with a cProfile breakdown on request.

Run: python -m bench.rest_call [--calls 2000] [--rounds 5] [--profile single|auto]

The app is `build_app` (webreach serve's) over a gateway on the fake web (memory state, the default cache),
warmed so every measured search is a cache hit: POST /v1/search with engine=mojeek ("single") and with the
default engine=auto ("auto"), and GET /bench/bare. Each round runs the three in turn; each figure is the median
over rounds of CPU seconds (process_time) per call, with its range. This is the shared cached-call path without
uvicorn and wrk: bench/serve.py measures the same calls over sockets, where the server's HTTP work is added to
both REST and bare. `--profile` prints the 40 costliest functions (cumulative) of one round of that call.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.applications import Starlette

from webreach.config import ServerSettings, Settings
from webreach.frontends.http import build_app
from webreach.testing import FakeWeb

HOST = b"127.0.0.1:9090"
BODIES = {
    "single": json.dumps({"query": "python asyncio", "engine": "mojeek"}).encode(),
    "auto": json.dumps({"query": "python asyncio"}).encode(),
}


async def call(app: Starlette, method: str, path: str, body: bytes = b"") -> int:
    """One request through the ASGI app; its status."""
    headers = [(b"host", HOST), (b"content-type", b"application/json"), (b"x-webreach-session", b"bench-1")]
    headers.append((b"content-length", str(len(body)).encode()))
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "", "headers": headers,
        "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 9090), "state": {},
    }  # fmt: skip
    status = 0
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            await asyncio.Event().wait()  # the app never reads past the body
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await app(scope, receive, send)
    return status


def requests(app: Starlette) -> dict[str, Callable[[], Awaitable[int]]]:
    return {
        "bare": lambda: call(app, "GET", "/bench/bare"),
        "single": lambda: call(app, "POST", "/v1/search", BODIES["single"]),
        "auto": lambda: call(app, "POST", "/v1/search", BODIES["auto"]),
    }


async def cpu_per_call(request: Callable[[], Awaitable[int]], calls: int) -> float:
    start = time.process_time()
    for _ in range(calls):
        await request()
    return (time.process_time() - start) / calls


async def main(calls: int, rounds: int, profile: str | None) -> None:
    with FakeWeb.in_thread() as web:
        os.environ.setdefault("WEBREACH_HOME", tempfile.mkdtemp(prefix="webreach-bench-"))
        settings = Settings(fake_web=web.url, state={"backend": "memory"})  # type: ignore[arg-type]
        app = build_app(settings, server=ServerSettings(port=9090), bare_route=True)
        async with app.router.lifespan_context(app):
            calls_of = requests(app)
            for name, request in calls_of.items():
                for _ in range(50):  # warms the cache and every memo on the path
                    status = await request()
                assert status == 200, f"{name}: HTTP {status}"
            if profile is not None:
                profiler = cProfile.Profile()
                profiler.enable()
                await cpu_per_call(calls_of[profile], calls)
                profiler.disable()
                pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
                return
            figures: dict[str, list[float]] = {name: [] for name in calls_of}
            for _ in range(rounds):
                for name, request in calls_of.items():
                    figures[name].append(await cpu_per_call(request, calls) * 1e6)
    print(f"rest_call: {calls} cached calls x {rounds} rounds, in process, CPU per call (median, range)\n")
    print("| call | us/call | range | x bare |\n|---|---:|---:|---:|")
    bare = statistics.median(figures["bare"])
    for name, values in figures.items():
        median = statistics.median(values)
        print(f"| {name} | {median:.1f} | {min(values):.1f}-{max(values):.1f} | {median / bare:.2f}x |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", choices=("single", "auto"), default=None)
    options = parser.parse_args()
    asyncio.run(main(options.calls, options.rounds, options.profile))
