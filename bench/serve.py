"""Benchmark: serving cached searches over REST and MCP (streamable HTTP) beside a bare JSON endpoint.

Run: python -m bench.serve [--clients 100] [--requests 30] [--rounds 3] [--state sqlite|memory]

The server is `webreach.frontends.http.run_http` in its own process (uvicorn, one worker) with the bench-only
GET /bench/bare route: a Starlette endpoint answering {"status": "ok"} in the same app, behind the same
middleware, so it measures what the framework and server cost by themselves. Engines point at the fake web; one
search warms the cache, so every measured search is a cache hit. The clients run here: `--clients` concurrent
tasks, each with its own httpx.AsyncClient and connection (so `--clients` connections in all), each sending
`--requests` requests back to back per endpoint per round; endpoints take turns within each round so they share
the machine's conditions.

Endpoints:
  bare          GET /bench/bare
  rest          POST /v1/search (web_search arguments, JSON output), each client its own X-Webreach-Session
  mcp-session   POST /mcp tools/call web_search in a 2025-11-25 session (initialize first, Mcp-Session-Id)
  mcp-2026      POST /mcp tools/call web_search as a self-contained 2026-07-28 request (no session)

Targets: REST cached search >= 0.5x the bare endpoint's throughput, REST p99 <= 50 ms at 100 clients.
Prints a markdown table and writes bench/results/serve.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from webreach.testing import FakeWeb

RESULTS = Path(__file__).parent / "results"
ARGUMENTS = {"query": "python asyncio", "engine": "mojeek"}
HANDSHAKE = "2025-11-25"
MODERN = "2026-07-28"
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
SERVER_ENTRY = (
    "from webreach.config import Settings; from webreach.frontends.http import run_http; "
    "run_http(Settings(), host='127.0.0.1', port=0, bare_route=True)"
)

Call = Callable[[httpx.AsyncClient], Awaitable[None]]


@contextmanager
def server_process(fake_web: str, state: str, home: Path) -> Iterator[str]:
    """Start the HTTP server with the bare route; yield its base URL once it has announced it."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "WEBREACH_CONFIG": str(home / "absent.toml"),
        "WEBREACH_FAKE_WEB": fake_web,
        "WEBREACH_STATE__BACKEND": state,
    }
    process = subprocess.Popen([sys.executable, "-c", SERVER_ENTRY], stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        match = re.search(r"serving (http://\S+)", line)
        if match is None:
            raise RuntimeError(f"the server did not start: {line}{process.stderr.read()}")
        yield match.group(1)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


# --- one request per endpoint --------------------------------------------------------------------------------


def bare_call() -> Call:
    async def call(http: httpx.AsyncClient) -> None:
        check(await http.get("/bench/bare"))

    return call


def rest_call(client_id: int) -> Call:
    headers = {"X-Webreach-Session": f"bench-{client_id}"}

    async def call(http: httpx.AsyncClient) -> None:
        check(await http.post("/v1/search", json=ARGUMENTS, headers=headers))

    return call


async def mcp_session_call(http: httpx.AsyncClient) -> Call:
    """Initialize a 2025-11-25 session (not timed); the call sends tools/call in it."""
    hello = {"protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}
    opened = check(await http.post("/mcp", json=rpc("initialize", hello), headers=MCP_HEADERS))
    headers = {**MCP_HEADERS, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": HANDSHAKE}
    notice = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    await http.post("/mcp", json=notice, headers=headers)
    body = rpc("tools/call", {"name": "web_search", "arguments": ARGUMENTS})

    async def call(http: httpx.AsyncClient) -> None:
        check_tool(await http.post("/mcp", json=body, headers=headers))

    return call


def mcp_modern_call() -> Call:
    envelope = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = rpc("tools/call", {"name": "web_search", "arguments": ARGUMENTS, "_meta": envelope})
    headers = {**MCP_HEADERS, "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "web_search"}

    async def call(http: httpx.AsyncClient) -> None:
        check_tool(await http.post("/mcp", json=body, headers=headers))

    return call


def rpc(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


def check(response: httpx.Response) -> httpx.Response:
    if response.status_code != 200:
        raise RuntimeError(f"{response.request.url}: HTTP {response.status_code}: {response.text[:300]}")
    return response


def check_tool(response: httpx.Response) -> None:
    body = check(response).json()
    if "result" not in body or body["result"].get("isError"):
        raise RuntimeError(f"tool call failed: {json.dumps(body)[:300]}")


# --- load ----------------------------------------------------------------------------------------------------


@dataclass
class Measured:
    """Every latency (ms) and the wall time of the rounds of one endpoint."""

    latencies: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def row(self, bare_rps: float | None) -> dict[str, Any]:
        ordered = sorted(self.latencies)
        rps = len(ordered) / self.seconds
        return {
            "requests": len(ordered),
            "rps": round(rps, 1),
            "p50_ms": round(ordered[len(ordered) // 2], 2),
            "p99_ms": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 2),
            "vs_bare": round(rps / bare_rps, 2) if bare_rps else 1.0,
        }


async def load(clients: list[Client], requests: int, into: Measured) -> None:
    """Every client sends `requests` requests back to back, all clients at once (after one untimed request each,
    which reopens connections the server closed while other endpoints had their turn)."""
    await asyncio.gather(*(client.call(client.http) for client in clients))

    async def run(client: Client) -> None:
        for _ in range(requests):
            start = time.perf_counter()
            await client.call(client.http)
            into.latencies.append((time.perf_counter() - start) * 1000)

    start = time.perf_counter()
    await asyncio.gather(*(run(client) for client in clients))
    into.seconds += time.perf_counter() - start


@dataclass
class Client:
    """One simulated agent: its own connection and its way of calling the endpoint under test."""

    http: httpx.AsyncClient
    call: Call


async def bench(url: str, clients: int, requests: int, rounds: int) -> dict[str, Measured]:
    # one AsyncClient per simulated client, one connection each (100 connections at 100 clients): a single
    # shared pool costs O(connections) per request in httpcore and caps the load near 150 req/s here, which would
    # measure the pool instead of the server. Idle connections expire before the server's 5 s keep-alive does.
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1, keepalive_expiry=2.0)
    async with contextlib.AsyncExitStack() as stack:
        pool = [
            await stack.enter_async_context(httpx.AsyncClient(base_url=url, limits=limits, timeout=60, trust_env=False))
            for _ in range(clients)
        ]
        check(await pool[0].post("/v1/search", json=ARGUMENTS))  # the one engine request: warms the cache
        endpoints: dict[str, list[Client]] = {
            "bare": [Client(http, bare_call()) for http in pool],
            "rest": [Client(http, rest_call(i)) for i, http in enumerate(pool)],
            "mcp-session": [Client(http, await mcp_session_call(http)) for http in pool],
            "mcp-2026": [Client(http, mcp_modern_call()) for http in pool],
        }
        measured = {name: Measured() for name in endpoints}
        for _ in range(rounds):
            for name, group in endpoints.items():
                await load(group, requests, measured[name])
    return measured


def report(measured: dict[str, Measured], clients: int, state: str) -> dict[str, Any]:
    bare = measured["bare"]
    bare_rps = len(bare.latencies) / bare.seconds
    rows = {name: m.row(None if name == "bare" else bare_rps) for name, m in measured.items()}
    rest = rows["rest"]
    targets = {
        "rest_vs_bare >= 0.5": rest["vs_bare"] >= 0.5,
        "rest_p99_ms <= 50": rest["p99_ms"] <= 50,
    }
    print(f"\nserve: {clients} concurrent clients, cached web_search, state={state} ({platform.python_version()})\n")
    print("| endpoint | requests | req/s | p50 ms | p99 ms | vs bare |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, row in rows.items():
        print(f"| {name} | {row['requests']} | {row['rps']} | {row['p50_ms']} | {row['p99_ms']} | {row['vs_bare']}x |")
    # a closed loop: each client waits for its answer, so mean latency = clients / throughput (Little's law); a
    # p99 under 50 ms at this many clients needs the client side alone to drive clients / 0.05 requests per second
    floor_ms = clients / bare_rps * 1000
    print(f"\nclosed loop: the bare endpoint's {bare_rps:.0f} req/s already means {floor_ms:.0f} ms mean latency at")
    print(f"{clients} clients; p99 <= 50 ms needs >= {clients / 0.05:.0f} req/s from this client process.\n")
    for target, met in targets.items():
        print(f"target {target}: {'met' if met else 'MISSED'}")
    return {
        "clients": clients,
        "state": state,
        "endpoints": rows,
        "targets": targets,
        "bare_mean_latency_floor_ms": round(floor_ms, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--requests", type=int, default=30, help="requests per client per round and endpoint")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--state", choices=("sqlite", "memory"), default="sqlite", help="session store backend")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home, FakeWeb.in_thread() as web:
        with server_process(web.url, args.state, Path(home)) as url:
            measured = asyncio.run(bench(url, args.clients, args.requests, args.rounds))
        result = report(measured, args.clients, args.state)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "serve.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
