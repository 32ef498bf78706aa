"""Benchmark: CPU per MCP tools/call, webreach's cached web_search beside the SDK's own floor (the anchor).

Run: python -m bench.mcp_anchor [--calls 300] [--rounds 5]

In process, no sockets: the mcp SDK's own Client talks to each server over its in-memory transport, in the 2025
session style ("legacy") and the 2026-07-28 per-request style ("auto"). The anchor is a low-level Server on the
same SDK with one tool returning a fixed 2 KB string; webreach's server is frontends/mcp.py over a gateway on the
fake web (memory state), warmed so every measured web_search is a cache hit. Servers take turns within each round;
each figure is the median over rounds of CPU seconds (process_time) per call, and "vs anchor" the median of each
round's own ratio. Target (issue 38): webreach <= 1.3x the anchor. Sockets, uvicorn and REST: bench/serve.py.

Both servers share this process, and its collector is set as a `webreach serve` process sets its own once ready
(frontends/_heap.py: start-up's objects frozen, young collections every 10,000 allocations); --default-gc keeps
CPython's defaults.

"pipeline" is the CPU spent inside `Toolbox.call` (the tool pipeline every door shares) during those same MCP
calls, and "door + SDK" webreach's figure less it: what MCP adds around the pipeline, to set beside the anchor,
which is almost nothing but the SDK. Both figures here include the client's CPU (in process, one process).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import time
from collections.abc import AsyncIterator
from typing import Any

from mcp import Client, types
from mcp.server import Server, ServerRequestContext

from webreach.config import Settings
from webreach.frontends._heap import settle
from webreach.frontends.mcp import build_server
from webreach.gateway import Gateway
from webreach.testing import FakeWeb
from webreach.tools import Toolbox, ToolResult, account_policies

PAYLOAD = "x" * 2048
ARGUMENTS = {"query": "python asyncio", "limit": 10}


def anchor() -> Server[Any]:
    """The floor: one tool, a fixed 2 KB text result."""

    async def list_tools(_: ServerRequestContext[Any], __: Any) -> types.ListToolsResult:
        schema = {"type": "object", "properties": {"query": {"type": "string"}}}
        return types.ListToolsResult(tools=[types.Tool(name="web_search", input_schema=schema)])

    async def call_tool(_: ServerRequestContext[Any], __: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text=PAYLOAD)])

    return Server("anchor", on_list_tools=list_tools, on_call_tool=call_tool)


async def cpu_per_call(server: Server[Any], mode: str, calls: int) -> float:
    async with Client(server, mode=mode, raise_exceptions=True) as client:
        first = await client.call_tool("web_search", ARGUMENTS)  # warms the cache (webreach) and the path
        assert not first.is_error, first
        start = time.process_time()
        for _ in range(calls):
            await client.call_tool("web_search", ARGUMENTS)
        return (time.process_time() - start) / calls


class TimedToolbox(Toolbox):
    """The tools, adding up the CPU their calls take (an await may run other tasks, but the client waits then)."""

    spent = 0.0

    async def call(self, *args: Any, **kwargs: Any) -> ToolResult:
        start = time.process_time()
        try:
            return await super().call(*args, **kwargs)
        finally:
            TimedToolbox.spent += time.process_time() - start


@contextlib.asynccontextmanager
async def timed_tools(settings: Settings) -> AsyncIterator[Toolbox]:
    """The tools over a gateway, as `tools_over_gateway` opens them, timed."""
    async with Gateway.from_settings(settings) as gateway, gateway.follow_shared_state("mcp"):
        yield TimedToolbox.over(gateway, policies=account_policies(gateway.accounts))


async def main(calls: int, rounds: int, default_gc: bool) -> None:
    async with FakeWeb() as web:
        settings = Settings(fake_web=web.url, state={"backend": "memory"})
        servers = {"anchor": anchor(), "webreach": build_server(lambda: timed_tools(settings))}
        if not default_gc:
            settle()
        samples: dict[tuple[str, str], list[float]] = {}
        for _ in range(rounds):
            for mode in ("legacy", "auto"):
                for name, server in servers.items():
                    TimedToolbox.spent = 0.0
                    samples.setdefault((name, mode), []).append(await cpu_per_call(server, mode, calls))
                # the warm-up call is timed too: calls + 1 calls of the pipeline
                samples.setdefault(("pipeline", mode), []).append(TimedToolbox.spent / (calls + 1))
    print("| style | anchor us/call | webreach us/call | vs anchor (median, min-max) | pipeline us | door + SDK us |")
    print("|---|---|---|---|---|---|")
    for mode, style in (("legacy", "2025 session"), ("auto", "2026 request")):
        ours, base, alone = samples[("webreach", mode)], samples[("anchor", mode)], samples[("pipeline", mode)]
        ratios = [a / b for a, b in zip(ours, base, strict=True)]
        door = [a - b for a, b in zip(ours, alone, strict=True)]
        print(
            f"| {style} | {statistics.median(base) * 1e6:.0f} | {statistics.median(ours) * 1e6:.0f} | "
            f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) | "
            f"{statistics.median(alone) * 1e6:.0f} | {statistics.median(door) * 1e6:.0f} |"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--default-gc", action="store_true", help="CPython's collector settings, not the server's")
    options = parser.parse_args()
    asyncio.run(main(options.calls, options.rounds, options.default_gc))
