"""Benchmark: serving cached searches over REST and MCP (streamable HTTP) beside a bare JSON endpoint.

Run: python -m bench.serve [--clients 100] [--seconds 4] [--rounds 5] [--load 0.5 | --rate R]
                           [--driver auto|wrk|python] [--state sqlite|memory] [--http auto|httptools|h11]
                           [--loop asyncio|uvloop]

The server is `run_http` in its own process (uvicorn, one worker) with the bench-only GET /bench/bare route, a
Starlette endpoint answering {"status": "ok"} behind the same middleware: what framework and server cost alone.
Engines point at the fake web; one search warms the cache, so every measured search is a cache hit.
Endpoints: bare (GET /bench/bare); rest (POST /v1/search, JSON output); mcp-session (tools/call web_search in a
2025-11-25 session, initialized beforehand); mcp-2026 (tools/call as a self-contained 2026-07-28 request).

Load comes from wrk (Debian's `wrk`) when installed, so the client does not take the CPU the server needs on a
small machine; else from httpx, which costs about as much CPU per request as the server and understates
throughput. Each simulated client has its own connection and session (wrk: one thread per client, recording its
own requests from a generated Lua script). Endpoints take turns within each round, sharing the machine's state;
each figure is the median over the rounds (so one round disturbed by other work counts little). "vs bare" is
the median of each round's own ratio to the bare endpoint (the rounds' ratios are in serve.json).
  closed loop  each client sends again as soon as it has its answer: saturated throughput, and the latency at
               saturation, which is about clients / throughput (Little's law) however fast the server is;
  open loop    the clients together offer one fixed rate below saturation (`--load` x the slowest endpoint's
               closed-loop req/s, or `--rate`), each client on its own schedule; latency counts from the
               scheduled send time, so queueing is charged even when it delays the next send (no coordinated
               omission), and a request unanswered when the run ends counts as infinitely slow.

Targets (issue 38): REST cached search >= 0.6x the bare endpoint's throughput (so at most ~1.67x its server CPU per
request, printed below the table: the figure a busy machine disturbs least); REST p99 <= 50 ms at 100 clients.
Prints a markdown table and writes bench/results/serve.json (serve-<http>-<loop>.json for other server settings;
--out names another file).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import math
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from bench.load import STARTUP, Endpoint, Plan, Run, python_run, wrk_run
from webreach.testing import FakeWeb
from webreach.testing.environment import process_env

RESULTS = Path(__file__).parent / "results"
ARGUMENTS = {"query": "python asyncio", "engine": "mojeek"}
REST_BODY = json.dumps(ARGUMENTS).encode()
HANDSHAKE = "2025-11-25"
MODERN = "2026-07-28"
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
SERVER_ENTRY = (
    "from webreach.config import Settings; from webreach.frontends.http import run_http; "
    "run_http(Settings(), host='127.0.0.1', port=0, bare_route=True)"
)


@contextmanager
def server_process(
    fake_web: str, state: str, home: Path, *, http_parser: str = "auto", event_loop: str = "asyncio"
) -> Iterator[tuple[str, int]]:
    """Start the HTTP server with the bare route; yield its base URL and process id once it is serving."""
    env = process_env(
        home, WEBREACH_FAKE_WEB=fake_web, WEBREACH_STATE__BACKEND=state,
        WEBREACH_SERVER__HTTP_PARSER=http_parser, WEBREACH_SERVER__EVENT_LOOP=event_loop,
    )  # fmt: skip
    process = subprocess.Popen([sys.executable, "-c", SERVER_ENTRY], stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        match = re.search(r"serving (http://\S+)", line)
        if match is None:
            raise RuntimeError(f"the server did not start: {line}{process.stderr.read()}")
        yield match.group(1), process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


# --- endpoints -----------------------------------------------------------------------------------------------


def rpc(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


async def endpoints(http: httpx.AsyncClient, clients: int) -> list[Endpoint]:
    """The four endpoints for `clients` clients; MCP sessions are opened here, outside every measurement."""
    host = {"Host": http.base_url.netloc.decode()}  # spelt as wrk.format expects, or it adds its own
    rest = [{**host, "content-type": "application/json", "x-webreach-session": f"bench-{i}"} for i in range(clients)]
    sessions = [{**host, **headers} for headers in await asyncio.gather(*(mcp_session(http) for _ in range(clients)))]
    call = rpc("tools/call", {"name": "web_search", "arguments": ARGUMENTS})
    envelope = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
    modern = rpc("tools/call", {**call["params"], "_meta": envelope})
    stateless = {**host, **MCP_HEADERS, "mcp-protocol-version": MODERN, "mcp-method": "tools/call"}
    stateless["mcp-name"] = "web_search"
    return [
        Endpoint("bare", "GET", "/bench/bare", None, [host] * clients),
        Endpoint("rest", "POST", "/v1/search", REST_BODY, rest),
        Endpoint("mcp-session", "POST", "/mcp", json.dumps(call).encode(), sessions, tool=True),
        Endpoint("mcp-2026", "POST", "/mcp", json.dumps(modern).encode(), [stateless] * clients, tool=True),
    ]


async def mcp_session(http: httpx.AsyncClient) -> dict[str, str]:
    """Initialize a 2025-11-25 session; the headers that send requests in it."""
    hello = {"protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}
    opened = check(await http.post("/mcp", json=rpc("initialize", hello), headers=MCP_HEADERS))
    headers = {**MCP_HEADERS, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": HANDSHAKE}
    await http.post("/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    return headers


def check(response: httpx.Response) -> httpx.Response:
    if response.status_code != 200:
        raise RuntimeError(f"{response.request.url}: HTTP {response.status_code}: {response.text[:300]}")
    return response


# --- the benchmark -------------------------------------------------------------------------------------------


def percentile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summarize(run: Run, plan: Plan) -> dict[str, Any]:
    """Throughput and latency over the measured window of one run.

    Closed loop: the requests answered in the window. Open loop: the requests due in the window, the ones still
    unanswered when the run ended counted as infinitely slow.
    """
    key = 0 if plan.interval else 1  # open loop: the requests due in the window; closed: answered in it
    window = [sample for sample in run.samples if plan.start <= sample[key] < plan.end]
    missing = (plan.due() if plan.interval else len(window)) - len(window)
    ordered = sorted((done - start) * 1000 for start, done in window) + [math.inf] * missing
    return {
        "requests": len(ordered),
        "rps": round(sum(1 for _, done in run.samples if plan.start <= done < plan.end) / plan.window, 1),
        "p50_ms": round(percentile(ordered, 0.50), 2),
        "p99_ms": round(percentile(ordered, 0.99), 2),
        "unanswered": missing,
        "server_cpu": round(run.server_cpu, 2),
        "other_cpu": round(run.other_cpu, 2),
    }


def combine(runs: list[tuple[Run, Plan]]) -> dict[str, Any]:
    """An endpoint's figures: the median over its rounds of each one (robust to one round that other work on
    the machine disturbed), unanswered requests summed; each round's own figures under "rounds"."""
    rounds = [summarize(run, plan) for run, plan in runs]
    row: dict[str, Any] = {key: statistics.median(each[key] for each in rounds) for key in rounds[0]}
    row["unanswered"] = sum(each["unanswered"] for each in rounds)
    return {**row, "rounds": rounds}


Runs = dict[str, list[tuple[Run, Plan]]]


def cpu_seconds(server: int) -> tuple[float, float, float]:
    """CPU seconds so far of the whole machine, of the server, and of this benchmark with its finished children
    (wrk); all zero where there is no /proc."""
    try:
        ticks = [int(field) for field in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
        stat = Path(f"/proc/{server}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0, 0.0, 0.0
    hertz = os.sysconf("SC_CLK_TCK")
    busy = sum(ticks) - ticks[3] - ticks[4]  # user nice system irq softirq steal: all but idle and iowait
    bench = sum(
        resource.getrusage(who).ru_utime + resource.getrusage(who).ru_stime
        for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return busy / hertz, (int(stat[11]) + int(stat[12])) / hertz, bench


async def measure(
    url: str, server: int, group: list[Endpoint], plans: list[Plan], pool: list[httpx.AsyncClient]
) -> Runs:
    """Run every endpoint once per plan (a plan per round), endpoints taking turns within each round (in reverse
    order every other round); with wrk unless `pool` holds the Python clients."""
    runs: Runs = {endpoint.name: [] for endpoint in group}
    for index, plan in enumerate(plans):
        # every other round in reverse, so no endpoint always runs first (neighbours stay neighbours)
        for endpoint in group if index % 2 == 0 else reversed(group):
            fresh = Plan(plan.clients, time.monotonic() + STARTUP, plan.window, plan.interval)
            before, wall = cpu_seconds(server), time.monotonic()
            # wrk blocks this loop while it runs, which is fine: nothing else runs here then
            run = await python_run(pool, endpoint, fresh) if pool else wrk_run(url, endpoint, fresh)
            seconds = time.monotonic() - wall
            machine, served, ours = (after - then for after, then in zip(cpu_seconds(server), before, strict=True))
            run.server_cpu, run.other_cpu = served / seconds, (machine - served - ours) / seconds
            if run.failures:
                raise RuntimeError(f"{endpoint.name}: {run.failures} failed requests")
            runs[endpoint.name].append((run, fresh))
    return runs


async def bench(url: str, server: int, args: argparse.Namespace, driver: str) -> dict[str, Any]:
    async with contextlib.AsyncExitStack() as stack:
        http = await stack.enter_async_context(httpx.AsyncClient(base_url=url, timeout=60, trust_env=False))
        # the one engine request, warming the cache; sent as the clients send it, so later calls find the
        # server's memos keyed by the very objects this one made (as repeated calls of one client do)
        check(await http.post("/v1/search", content=REST_BODY, headers={"content-type": "application/json"}))
        group = await endpoints(http, args.clients)
        # Python clients: one connection each (a shared pool costs O(connections) per request in httpcore and
        # would measure the pool), expiring idle ones before the server's 5 s keep-alive does
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1, keepalive_expiry=2.0)
        pool = [
            await stack.enter_async_context(httpx.AsyncClient(base_url=url, limits=limits, timeout=60, trust_env=False))
            for _ in range(args.clients if driver == "python" else 0)
        ]
        closed = await measure(url, server, group, [Plan(args.clients, 0.0, args.seconds)] * args.rounds, pool)
        closed_rows = {name: combine(runs) for name, runs in closed.items()}
        rate = args.rate or args.load * min(row["rps"] for row in closed_rows.values())
        paced = Plan(args.clients, 0.0, args.seconds, interval=args.clients / rate)
        opened = await measure(url, server, group, [paced] * args.rounds, pool)
    open_rows = {name: combine(runs) for name, runs in opened.items()}
    bare_rounds = closed_rows["bare"]["rounds"]
    for name, row in closed_rows.items():
        # each round's own ratio, its endpoints measured back to back: the machine's speed drifts between rounds
        # (by up to a third on a shared host) far more than within one, so pairs cancel what medians cannot
        ratios = [own["rps"] / bare["rps"] for own, bare in zip(row["rounds"], bare_rounds, strict=True)]
        row["vs_bare_rounds"] = [round(ratio, 3) for ratio in ratios]
        row["vs_bare"] = round(statistics.median(ratios), 2)
        # server CPU per request, which a busy machine disturbs far less than throughput (the server may get a
        # fraction of a core while other work runs); its ratio to the bare endpoint's, round by round
        cpu = [cpu_per_request(own) for own in row["rounds"]]
        row["cpu_us"] = round(statistics.median(cpu), 1)
        row["cpu_vs_bare_rounds"] = [
            round(own / bare, 3) for own, bare in zip(cpu, map(cpu_per_request, bare_rounds), strict=True)
        ]
        row["cpu_vs_bare"] = round(statistics.median(row["cpu_vs_bare_rounds"]), 2)
        open_rows[name]["load"] = round(rate / row["rps"], 2)  # the offered rate as a share of its capacity
    rest, paced_rest = closed_rows["rest"], open_rows["rest"]
    targets = [
        {"loop": "closed", "target": ">= 0.6x bare", "measured": rest["vs_bare"], "met": rest["vs_bare"] >= 0.6},
        {"loop": "closed", "target": "p99 <= 50 ms", "measured": rest["p99_ms"], "met": rest["p99_ms"] <= 50},
        {"loop": "open", "target": "p99 <= 50 ms", "measured": paced_rest["p99_ms"], "met": paced_rest["p99_ms"] <= 50},
    ]
    return {
        "driver": driver,
        "clients": args.clients,
        "state": args.state,
        "seconds_per_run": args.seconds,
        "rounds": args.rounds,
        "python": platform.python_version(),
        "server": server_stack(args),
        "cpus": os.cpu_count(),
        "closed_loop": closed_rows,
        "open_loop": {"offered_rps": round(rate, 1), "endpoints": open_rows},
        "rest_targets": targets,
    }


def cpu_per_request(figures: dict[str, Any]) -> float:
    """Microseconds of server CPU per answered request in one run (cores busy x seconds / requests)."""
    return 1e6 * figures["server_cpu"] / figures["rps"] if figures["rps"] else math.inf


def server_stack(args: argparse.Namespace) -> str:
    """The server configuration measured, e.g. "uvicorn (httptools parser, asyncio loop)"."""
    parser = args.http
    if parser == "auto":  # what uvicorn picks: httptools when it is installed
        parser = "httptools" if importlib.util.find_spec("httptools") is not None else "h11"
    return f"uvicorn ({parser} parser, {args.loop} loop)"


def report(result: dict[str, Any]) -> None:
    print(
        f"\nserve: {result['clients']} concurrent clients, cached web_search, state={result['state']}, load from "
        f"{result['driver']}, median of {result['rounds']} rounds of {result['seconds_per_run']} s per endpoint and "
        f"loop, {result['cpus']} CPUs, Python {result['python']}, {result['server']}\n"
    )
    print("| endpoint | loop | req/s | vs bare / load | p50 ms | p99 ms | server CPU | other CPU | REST target | met |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|---|")
    opened = result["open_loop"]
    loops = {
        "closed": ("closed loop, saturated", result["closed_loop"]),
        "open": (f"open loop, {opened['offered_rps']:.0f} req/s offered", opened["endpoints"]),
    }
    for loop, (label, rows) in loops.items():
        for name, row in rows.items():
            targets = [target for target in result["rest_targets"] if target["loop"] == loop and name == "rest"]
            share = f"{row['vs_bare']}x" if "vs_bare" in row else f"load {row['load']:.0%}"
            cells = [name, label, row["rps"], share, row["p50_ms"], row["p99_ms"], row["server_cpu"], row["other_cpu"]]
            cells.append("; ".join(target["target"] for target in targets))
            cells.append("; ".join("yes" if target["met"] else "NO" for target in targets))
            print("| " + " | ".join(map(str, cells)) + " |")
    rounds = ", ".join(f"{ratio:.2f}x" for ratio in result["closed_loop"]["rest"]["vs_bare_rounds"])
    print(f"\nREST vs bare, round by round (closed loop): {rounds}")
    print("\nserver CPU per request, closed loop (median; x bare: the median of each round's own ratio):")
    for name, row in result["closed_loop"].items():
        ratios = ", ".join(f"{ratio:.2f}" for ratio in row["cpu_vs_bare_rounds"])
        print(f"  {name:12s} {row['cpu_us']:7.1f} us   {row['cpu_vs_bare']:.2f}x bare   (rounds: {ratios})")
    unanswered = {name: row["unanswered"] for name, row in opened["endpoints"].items() if row["unanswered"]}
    if unanswered:
        print(f"\nopen loop: requests unanswered when a run ended (counted as infinitely slow): {unanswered}")
    print(
        f"\nclosed loop: latency = {result['clients']} clients / throughput (Little's law): p99 <= 50 ms there needs "
        f">= {result['clients'] / 0.05:.0f} req/s.\nopen loop: latency from each request's scheduled send time, the "
        "same offered rate for every endpoint; load: the offered rate as a share of the endpoint's closed-loop req/s."
        "\nCPU: cores busy on average during the runs, in the server, and in anything but the server and this "
        "benchmark with wrk (other work on the machine, hypervisor steal: a high figure means a disturbed run)."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=4.0, help="measured seconds per endpoint, loop and round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--load", type=float, default=0.5, help="open-loop rate: share of the slowest capacity")
    parser.add_argument("--rate", type=float, default=None, help="open-loop rate in req/s (overrides --load)")
    parser.add_argument("--driver", choices=("auto", "wrk", "python"), default="auto", help="load generator")
    parser.add_argument("--state", choices=("sqlite", "memory"), default="sqlite", help="session store backend")
    parser.add_argument("--http", choices=("auto", "httptools", "h11"), default="auto", help="server HTTP parser")
    parser.add_argument("--loop", choices=("asyncio", "uvloop"), default="asyncio", help="server event loop")
    parser.add_argument("--out", type=Path, default=None, help="results file (default: in bench/results)")
    args = parser.parse_args()
    driver = args.driver if args.driver != "auto" else ("wrk" if shutil.which("wrk") else "python")
    if driver == "python":
        print("wrk not found (apt-get install wrk): the Python load generator shares the server's CPU", file=sys.stderr)
    with (
        tempfile.TemporaryDirectory() as home,
        FakeWeb.in_thread() as web,
        server_process(web.url, args.state, Path(home), http_parser=args.http, event_loop=args.loop) as (url, server),
    ):
        result = asyncio.run(bench(url, server, args, driver))
    report(result)
    default = args.http == "auto" and args.loop == "asyncio"
    out = args.out or RESULTS / ("serve.json" if default else f"serve-{args.http}-{args.loop}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
