"""GET /metrics: the server's counters in the Prometheus text format (prometheus-client), fed from one place each.

Engines: the search service's attempt listener (every EngineAttempt as it ends: the same numbers the CLI's -v and
the console's recent calls see). Tools: the pipeline's result hook (Toolbox on_result: every call's rendered
result, errors and charged credits included). Reads: web_fetch's results (the reader that produced the page, or
the error's code). Breaker states are read from the engines' statuses when scraped, not counted.

    webreach_engine_attempts_total{engine,status,code}   ok | empty | error | skipped | cancelled; code "" if none
    webreach_engine_attempt_seconds{engine}              latency of attempts that asked the engine (not cached)
    webreach_engine_captchas_total{engine}               attempts answered with a CAPTCHA
    webreach_engine_rate_limited_total{engine,source}    source "engine" (it said 429) or "local" (our pacing)
    webreach_engine_cache_total{engine,result}           hit | miss (asked the engine, the cache had nothing fresh)
    webreach_engine_parsed_total{engine,parser}          engine (its own selectors) | generic (the fallback)
    webreach_engine_breaker_state{engine,state}          1 for the breaker's state (closed, open, half_open)
    webreach_tool_calls_total{tool,outcome}              ok | error
    webreach_tool_errors_total{tool,code}
    webreach_tool_credits_charged_total{tool}
    webreach_reads_total{reader,outcome}                 outcome ok | cached | an error code (reader "none")

Labels hold only bounded, public names (engines, tools, readers, error codes): never a key, token, URL, query or
agent name; a tool name an agent made up counts as "unknown". With PROMETHEUS_MULTIPROC_DIR set (several worker
processes), values go to that directory's files and a scrape sums every process's (prometheus-client's
multiprocess mode); the directory must be emptied before the server starts.

A scrape renders on a worker thread (about 20 ms for 30 engines' series, measured 2026-11-29: the event loop's
calls would wait that long); only the breaker states are read on the loop, which owns the engines' state.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Collection, Iterable, Iterator
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from starlette.requests import Request
from starlette.responses import Response

from webreach.gateway import EngineStatus
from webreach.models import EngineAttempt, Page
from webreach.tools.backend import ToolResult

BREAKER_STATES = ("closed", "open", "half_open")
READ_TOOLS = frozenset({"web_fetch"})
LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0)
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


class Metrics:
    """The server's metrics: `attempt` is the engines' listener, `tool_result` the pipeline's hook."""

    def __init__(self, tools: Callable[[], Collection[str]], statuses: Callable[[], Iterable[EngineStatus]]) -> None:
        """`tools`: the served tools' names (the only tool labels); `statuses`: the engines' breaker states."""
        self.tools = tools
        self.registry = CollectorRegistry()  # the counters; breaker states are added at scrape time
        self._breakers = BreakerCollector(statuses)
        self.attempts = self._counter("engine_attempts", "Engine attempts.", ["engine", "status", "code"])
        self.latency = Histogram(
            "engine_attempt_seconds", "Engine attempt latency.", ["engine"], buckets=LATENCY_BUCKETS,
            namespace="webreach", registry=self.registry,
        )  # fmt: skip
        self.captchas = self._counter("engine_captchas", "Attempts answered with a CAPTCHA.", ["engine"])
        self.limited = self._counter("engine_rate_limited", "Rate-limited attempts.", ["engine", "source"])
        self.cache = self._counter("engine_cache", "Search cache hits and misses.", ["engine", "result"])
        self.parsed = self._counter("engine_parsed", "Answers by the parser that read them.", ["engine", "parser"])
        self.calls = self._counter("tool_calls", "Tool calls.", ["tool", "outcome"])
        self.errors = self._counter("tool_errors", "Tool call errors by code.", ["tool", "code"])
        self.credits = self._counter("tool_credits_charged", "Credits charged.", ["tool"])
        self.reads = self._counter("reads", "Page reads by reader and outcome.", ["reader", "outcome"])
        # each (metric, labels)'s child, found once: prometheus-client's labels() checks and locks on every call
        # (about 10 us each, three or four per cached search: a tenth of a cached REST call's CPU in process)
        self._children: dict[tuple[object, tuple[str, ...]], Any] = {}
        # an attempt's shape (engine, status, code, cached, parser) -> the counters it adds one to, found once: a
        # cached search's attempt is counted with one lookup instead of a labels tuple and lookup per counter
        self._attempt_counters: dict[tuple[str, str, str | None, bool, str | None], tuple[Any, ...]] = {}
        self._served: set[str] = set()  # tool names found among `tools()` (the set is rebuilt per call)
        # a served tool's tool_calls{outcome="ok"} child: an answer without error, charge or page read is counted
        # with one lookup (the whole hook was 4% of a cached REST call in process, py-spy)
        self._ok: dict[str, Any] = {}

    def _counter(self, name: str, documentation: str, labels: list[str]) -> Counter:
        return Counter(name, documentation, labels, namespace="webreach", registry=self.registry)

    def _child(self, metric: Counter | Histogram, *labels: str) -> Any:
        """`metric.labels(*labels)`, remembered (labels are bounded names, so this holds a few hundred at most)."""
        key = (metric, labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*labels)
        return child

    def attempt(self, attempt: EngineAttempt) -> None:
        """Count one engine attempt (the search service's attempt listener: it must not raise or block)."""
        shape = (attempt.engine, attempt.status, attempt.code, attempt.cached, attempt.parsed_by)
        counters = self._attempt_counters.get(shape)
        if counters is None:
            counters = self._attempt_counters[shape] = self._counters_of(attempt)
        for counter in counters:
            counter.inc()
        if not attempt.cached and attempt.status in ("ok", "empty", "error"):
            self._child(self.latency, attempt.engine).observe(attempt.latency_ms / 1000)

    def _counters_of(self, attempt: EngineAttempt) -> tuple[Any, ...]:
        """The counters an attempt of this shape adds one to (bounded: engines, statuses, codes, parsers)."""
        engine, code = attempt.engine, attempt.code or ""
        counters = [self._child(self.attempts, engine, attempt.status, code)]
        if attempt.cached:
            counters.append(self._child(self.cache, engine, "hit"))
        elif attempt.status in ("ok", "empty", "error"):
            counters.append(self._child(self.cache, engine, "miss"))
        if code == "captcha":
            counters.append(self._child(self.captchas, engine))
        elif code in ("rate_limited", "throttled"):
            counters.append(self._child(self.limited, engine, "engine" if code == "rate_limited" else "local"))
        if attempt.parsed_by is not None:
            counters.append(self._child(self.parsed, engine, attempt.parsed_by))
        return tuple(counters)

    def tool_result(self, result: ToolResult) -> None:
        """Count one tool call's result (the pipeline's on_result hook)."""
        error = result.error
        ok = self._ok.get(result.tool) if error is None else None
        if ok is not None and not result.cost and not isinstance(result.value, Page):  # a served tool's answer
            ok.inc()
            return
        tool = result.tool if result.tool in self._served or self._serves(result.tool) else "unknown"
        self._child(self.calls, tool, "error" if error is not None else "ok").inc()
        if error is not None:
            self._child(self.errors, tool, error.code).inc()
        charged = (result.cost or {}).get("charged")
        if isinstance(charged, int) and charged > 0:
            self._child(self.credits, tool).inc(charged)
        if isinstance(result.value, Page):
            self._child(self.reads, result.value.reader, "cached" if result.value.cached else "ok").inc()
        elif error is not None and tool in READ_TOOLS:
            self._child(self.reads, "none", error.code).inc()

    def _serves(self, tool: str) -> bool:
        """Whether `tool` is served here, remembered when it is (a made-up name is looked up every time, and never
        kept: agents choose those)."""
        if tool not in self.tools():
            return False
        self._served.add(tool)
        self._ok[tool] = self._child(self.calls, tool, "ok")
        return True

    def scrape(self) -> bytes:
        """The text exposition: this process's registry, or with PROMETHEUS_MULTIPROC_DIR every process's."""
        return self._render(list(self._breakers.collect()))

    async def answer(self, request: Request) -> Response:
        """GET /metrics: the breaker states read here, on the loop; the rest rendered on a worker thread."""
        breakers = list(self._breakers.collect())
        return Response(await asyncio.to_thread(self._render, breakers), media_type=CONTENT_TYPE_LATEST)

    def _render(self, breakers: list[Metric]) -> bytes:
        if os.environ.get(MULTIPROC_ENV):
            counted = CollectorRegistry()
            MultiProcessCollector(counted)  # type: ignore[no-untyped-call]
        else:
            counted = self.registry
        return generate_latest(_Families(counted, breakers))


class BreakerCollector(Collector):
    """webreach_engine_breaker_state, read from the engines' statuses at scrape time."""

    def __init__(self, statuses: Callable[[], Iterable[EngineStatus]]) -> None:
        self._statuses = statuses

    def collect(self) -> Iterator[Metric]:
        family = GaugeMetricFamily(
            "webreach_engine_breaker_state", "1 for the engine's breaker state.", labels=["engine", "state"]
        )
        for status in self._statuses():
            for state in BREAKER_STATES:
                family.add_metric([status.name, state], 1.0 if status.breaker == state else 0.0)
        yield family


class _Families(Collector):
    """What a scrape renders: the counters' registry (this process's, or every process's files), then the breaker
    states read on the event loop (from the shared state: one process's view is the fleet's)."""

    def __init__(self, counted: CollectorRegistry, breakers: list[Metric]) -> None:
        self._counted, self._breakers = counted, breakers

    def collect(self) -> Iterator[Metric]:
        yield from self._counted.collect()
        yield from self._breakers
