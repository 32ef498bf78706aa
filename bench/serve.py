"""Benchmark: serving cached searches over REST and MCP (streamable HTTP) beside a bare JSON endpoint.

Run: python -m bench.serve [--clients 100] [--seconds 4] [--rounds 5] [--load 0.5 | --rate R]
                           [--driver auto|wrk|python] [--state sqlite|memory] [--http auto|httptools|h11]
                           [--loop asyncio|uvloop]

The server is `run_http` in its own process (uvicorn, one worker) with the bench-only GET /bench/bare route, a
Starlette endpoint answering {"status": "ok"} behind the same middleware: what framework and server cost alone.
Engines point at the fake web; one search warms the cache, so every measured search is a cache hit.
Endpoints: bare (GET /bench/bare); rest (POST /v1/search, JSON output); mcp-session (tools/call web_search in a
2025-11-25 session, initialized beforehand); mcp-2026 (tools/call as a self-contained 2026-07-28 request).
anchor-session and anchor-2026 are the same two calls to the anchor, the MCP SDK's minimal server (one tool, a
fixed 2 KB string: bench/_mcp_anchor_http.py) in a process of its own on the same uvicorn settings. Each run
also gives the server's CPU per answered request; the MCP rows' ratio to the anchor in their style is the median
of each round's own ratio. Target (issue 38): webreach's MCP <= 1.3x the anchor's CPU per tools/call.

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
import resource
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench._serve_processes import anchor_process, server_process
from bench.load import STARTUP, Endpoint, Plan, Run, python_run, wrk_run
from webreach.testing import FakeWeb

RESULTS = Path(__file__).parent / "results"
ARGUMENTS = {"query": "python asyncio", "engine": "mojeek"}
REST_BODY = json.dumps(ARGUMENTS).encode()
HANDSHAKE = "2025-11-25"
MODERN = "2026-07-28"
ANCHOR_TOOL = "fixed"  # the anchor's one tool (bench/_mcp_anchor_stdio.py)
ANCHOR_OF = {"mcp-session": "anchor-session", "mcp-2026": "anchor-2026"}  # webreach's MCP row -> its anchor row
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


# --- endpoints -----------------------------------------------------------------------------------------------


def rpc(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


async def endpoints(http: httpx.AsyncClient, clients: int) -> list[Endpoint]:
    """webreach's four endpoints for `clients` clients; MCP sessions are opened here, outside every measurement."""
    host = {"Host": http.base_url.netloc.decode()}  # spelt as wrk.format expects, or it adds its own
    rest = [{**host, "content-type": "application/json", "x-webreach-session": f"bench-{i}"} for i in range(clients)]
    return [
        Endpoint("bare", "GET", "/bench/bare", None, [host] * clients),
        Endpoint("rest", "POST", "/v1/search", REST_BODY, rest),
        *await mcp_endpoints(http, clients, "mcp", "web_search"),
    ]


async def mcp_endpoints(http: httpx.AsyncClient, clients: int, prefix: str, tool: str) -> list[Endpoint]:
    """tools/call of `tool` in a 2025-11-25 session (`prefix`-session) and as a self-contained 2026-07-28 request
    (`prefix`-2026); one session per client."""
    host = {"Host": http.base_url.netloc.decode()}
    sessions = [{**host, **headers} for headers in await asyncio.gather(*(mcp_session(http) for _ in range(clients)))]
    call = rpc("tools/call", {"name": tool, "arguments": ARGUMENTS})
    envelope = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
    modern = rpc("tools/call", {**call["params"], "_meta": envelope})
    stateless = {**host, **MCP_HEADERS, "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": tool}
    return [
        Endpoint(f"{prefix}-session", "POST", "/mcp", json.dumps(call).encode(), sessions, tool=True),
        Endpoint(f"{prefix}-2026", "POST", "/mcp", json.dumps(modern).encode(), [stateless] * clients, tool=True),
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
        "cpu_us_per_call": round(run.cpu_per_call * 1e6, 1),
    }


def combine(runs: list[tuple[Run, Plan]]) -> dict[str, Any]:
    """An endpoint's figures: the median over its rounds of each one (robust to one round that other work on
    the machine disturbed), unanswered requests summed; each round's own figures under "rounds"."""
    rounds = [summarize(run, plan) for run, plan in runs]
    row: dict[str, Any] = {key: statistics.median(each[key] for each in rounds) for key in rounds[0]}
    row["unanswered"] = sum(each["unanswered"] for each in rounds)
    return {**row, "rounds": rounds}


Runs = dict[str, list[tuple[Run, Plan]]]
Servers = tuple[tuple[str, int], tuple[str, int]]  # webreach's and the anchor's (URL, process id)


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


@dataclass(frozen=True)
class Target:
    """An endpoint and the server answering it: its URL, its process id, and the Python clients (none: wrk)."""

    endpoint: Endpoint
    url: str
    server: int
    pool: list[httpx.AsyncClient]


async def measure(group: list[Target], plans: list[Plan]) -> Runs:
    """Run every endpoint once per plan (a plan per round), endpoints taking turns within each round (in reverse
    order every other round); with wrk unless the target holds Python clients."""
    runs: Runs = {target.endpoint.name: [] for target in group}
    for index, plan in enumerate(plans):
        # every other round in reverse, so no endpoint always runs first (neighbours stay neighbours)
        for target in group if index % 2 == 0 else reversed(group):
            endpoint, server = target.endpoint, target.server
            fresh = Plan(plan.clients, time.monotonic() + STARTUP, plan.window, plan.interval)
            before, wall = cpu_seconds(server), time.monotonic()
            # wrk blocks this loop while it runs, which is fine: nothing else runs here then
            run = (
                await python_run(target.pool, endpoint, fresh) if target.pool else wrk_run(target.url, endpoint, fresh)
            )
            seconds = time.monotonic() - wall
            machine, served, ours = (after - then for after, then in zip(cpu_seconds(server), before, strict=True))
            run.server_cpu, run.other_cpu = served / seconds, (machine - served - ours) / seconds
            run.cpu_per_call = served / max(1, len(run.samples))
            if run.failures:
                raise RuntimeError(f"{endpoint.name}: {run.failures} failed requests")
            runs[endpoint.name].append((run, fresh))
    return runs


async def served_targets(stack: contextlib.AsyncExitStack, servers: Servers, clients: int, driver: str) -> list[Target]:
    """webreach's endpoints and the anchor's, each MCP style beside its anchor; the cache warmed first."""
    (url, server), (anchor_url, anchor) = servers
    http, anchor_http = [
        await stack.enter_async_context(httpx.AsyncClient(base_url=base, timeout=60, trust_env=False))
        for base in (url, anchor_url)
    ]
    # the one engine request, warming the cache; sent as the clients send it, so later calls find the
    # server's memos keyed by the very objects this one made (as repeated calls of one client do)
    check(await http.post("/v1/search", content=REST_BODY, headers={"content-type": "application/json"}))
    bare, rest, session, modern = await endpoints(http, clients)
    anchor_session, anchor_modern = await mcp_endpoints(anchor_http, clients, "anchor", ANCHOR_TOOL)
    # Python clients: one connection each (a shared pool costs O(connections) per request in httpcore and
    # would measure the pool), expiring idle ones before the server's 5 s keep-alive does
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1, keepalive_expiry=2.0)
    pools = {
        base: [
            await stack.enter_async_context(
                httpx.AsyncClient(base_url=base, limits=limits, timeout=60, trust_env=False)
            )
            for _ in range(clients if driver == "python" else 0)
        ]
        for base in (url, anchor_url)
    }
    ours = [Target(endpoint, url, server, pools[url]) for endpoint in (bare, rest, session)]
    return [
        *ours,
        Target(anchor_session, anchor_url, anchor, pools[anchor_url]),
        Target(modern, url, server, pools[url]),
        Target(anchor_modern, anchor_url, anchor, pools[anchor_url]),
    ]


async def bench(servers: Servers, args: argparse.Namespace, driver: str) -> dict[str, Any]:
    async with contextlib.AsyncExitStack() as stack:
        group = await served_targets(stack, servers, args.clients, driver)
        closed = await measure(group, [Plan(args.clients, 0.0, args.seconds)] * args.rounds)
        closed_rows = {name: combine(runs) for name, runs in closed.items()}
        rate = args.rate or args.load * min(row["rps"] for row in closed_rows.values())
        paced = Plan(args.clients, 0.0, args.seconds, interval=args.clients / rate)
        opened = {} if args.closed_only else await measure(group, [paced] * args.rounds)
    open_rows = {name: combine(runs) for name, runs in opened.items()}
    bare_rounds = closed_rows["bare"]["rounds"]
    for name, row in closed_rows.items():
        # each round's own ratio, its endpoints measured back to back: the machine's speed drifts between rounds
        # (by up to a third on a shared host) far more than within one, so pairs cancel what medians cannot
        ratios = [own["rps"] / bare["rps"] for own, bare in zip(row["rounds"], bare_rounds, strict=True)]
        row["vs_bare_rounds"] = [round(ratio, 3) for ratio in ratios]
        row["vs_bare"] = round(statistics.median(ratios), 2)
        if name in open_rows:
            open_rows[name]["load"] = round(rate / row["rps"], 2)  # the offered rate as a share of its capacity
    rest = closed_rows["rest"]
    targets = [
        {"loop": "closed", "target": ">= 0.6x bare", "measured": rest["vs_bare"], "met": rest["vs_bare"] >= 0.6},
        {"loop": "closed", "target": "p99 <= 50 ms", "measured": rest["p99_ms"], "met": rest["p99_ms"] <= 50},
    ]
    if open_rows:
        paced_rest = open_rows["rest"]["p99_ms"]
        targets.append({"loop": "open", "target": "p99 <= 50 ms", "measured": paced_rest, "met": paced_rest <= 50})
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
        "cpu_per_call": cpu_table(closed_rows),
    }


def cpu_table(rows: dict[str, Any]) -> dict[str, Any]:
    """The server's CPU per answered request in the closed loop (us, median and range over rounds); an MCP style's
    ratio to the anchor in the same style is the median of each round's own ratio (issue 38: <= 1.3x)."""
    table: dict[str, Any] = {}
    for name, row in rows.items():
        per_call = [each["cpu_us_per_call"] for each in row["rounds"]]
        entry = {"median_us": statistics.median(per_call), "min_us": min(per_call), "max_us": max(per_call)}
        bare = [each["cpu_us_per_call"] for each in rows["bare"]["rounds"]]
        entry["vs_bare"] = round(statistics.median(own / floor for own, floor in zip(per_call, bare, strict=True)), 2)
        anchor = ANCHOR_OF.get(name)
        if anchor is not None:
            base = [each["cpu_us_per_call"] for each in rows[anchor]["rounds"]]
            ratios = [own / floor for own, floor in zip(per_call, base, strict=True)]
            entry |= {
                "vs_anchor": round(statistics.median(ratios), 2),
                "vs_anchor_rounds": [round(r, 2) for r in ratios],
            }
        table[name] = entry
    return table


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
            figures = [f"{row[key]:.1f}" for key in ("rps", "p50_ms", "p99_ms")] + [
                f"{row[key]:.2f}" for key in ("server_cpu", "other_cpu")
            ]
            cells = [name, label, figures[0], share, *figures[1:]]
            cells.append("; ".join(target["target"] for target in targets))
            cells.append("; ".join("yes" if target["met"] else "NO" for target in targets))
            print("| " + " | ".join(map(str, cells)) + " |")
    rounds = ", ".join(f"{ratio:.2f}x" for ratio in result["closed_loop"]["rest"]["vs_bare_rounds"])
    print(f"\nREST vs bare, round by round (closed loop): {rounds}")
    head = "| endpoint (closed loop) | server CPU us/call, median (range) | x bare | vs anchor (rounds) | target |"
    print("\n" + head)
    print("|---|---:|---:|---:|---|")
    for name, entry in result["cpu_per_call"].items():
        cpu = f"{entry['median_us']:.0f} ({entry['min_us']:.0f}-{entry['max_us']:.0f})"
        cells = [name, cpu, f"{entry['vs_bare']:.2f}x", "", ""]
        if "vs_anchor" in entry:
            rounds = ", ".join(f"{ratio:.2f}" for ratio in entry["vs_anchor_rounds"])
            met = "yes" if entry["vs_anchor"] <= 1.3 else "NO"
            cells[3:] = [f"{entry['vs_anchor']:.2f}x ({rounds})", f"<= 1.3x anchor: {met}"]
        print("| " + " | ".join(cells) + " |")
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
    parser.add_argument("--closed-only", action="store_true", help="skip the open-loop runs")
    parser.add_argument("--out", type=Path, default=None, help="results file (default: in bench/results)")
    args = parser.parse_args()
    driver = args.driver if args.driver != "auto" else ("wrk" if shutil.which("wrk") else "python")
    if driver == "python":
        print("wrk not found (apt-get install wrk): the Python load generator shares the server's CPU", file=sys.stderr)
    stack = {"http_parser": args.http, "event_loop": args.loop}
    with (
        tempfile.TemporaryDirectory() as home,
        FakeWeb.in_thread() as web,
        server_process(web.url, args.state, Path(home), **stack) as ours,
        anchor_process(Path(home), **stack) as anchor,
    ):
        result = asyncio.run(bench((ours, anchor), args, driver))
    report(result)
    default = args.http == "auto" and args.loop == "asyncio"
    out = args.out or RESULTS / ("serve.json" if default else f"serve-{args.http}-{args.loop}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
