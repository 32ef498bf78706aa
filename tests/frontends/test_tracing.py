"""OpenTelemetry traces (issue 37): a span per tool call, search, engine attempt, read and extraction, nested as the
call ran; a real `webreach serve` exports them over OTLP/HTTP to a collector on loopback when the standard OTEL_*
variables ask; no key, token or query in any attribute; off (no OTEL_* variables), nothing is traced."""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from webreach.config import EngineSettings, Settings
from webreach.gateway import Gateway
from webreach.telemetry import Tracing, wanted
from webreach.testing import FakeWeb
from webreach.tools import Toolbox

from .serving import http_server

SECRET = "sk-tracing-secret-0123456789abcdef"


@pytest.fixture
def spans() -> Iterator[tuple[Tracing, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield Tracing(provider.get_tracer("webreach"), provider), exporter
    provider.shutdown()


def _by_name(finished: tuple[ReadableSpan, ...]) -> dict[str, ReadableSpan]:
    return {span.name: span for span in finished}


def _parent(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent is not None else None


async def test_a_call_is_a_tree_of_spans(web: FakeWeb, spans: tuple[Tracing, InMemorySpanExporter]) -> None:
    tracing, exporter = spans
    settings = Settings(
        fake_web=web.url, state={"backend": "memory"}, read={"allow_cidrs": ["127.0.0.1/32"]},
        engines={"brave_api": EngineSettings(api_key=SECRET)},
    )  # fmt: skip
    async with Gateway.from_settings(settings, tracing=tracing) as gateway:
        tools = Toolbox.over(gateway)
        searched = await tools.call("web_search", {"query": "python asyncio", "engine": "mojeek"}, output="json")
        read = await tools.call("web_fetch", {"url": f"{web.url}/_pages/article"}, output="json")
        refused = await tools.call("made_up_tool", {}, output="json")
    assert not searched.is_error and not read.is_error and refused.is_error
    named = _by_name(exporter.get_finished_spans())
    assert {"execute_tool web_search", "search", "engine_attempt", "execute_tool web_fetch", "read", "extract"} <= set(
        named
    ), sorted(named)
    tool, search, attempt = named["execute_tool web_search"], named["search"], named["engine_attempt"]
    assert _parent(search) == tool.context.span_id and _parent(attempt) == search.context.span_id
    assert tool.attributes is not None and tool.attributes["gen_ai.tool.name"] == "web_search"
    assert attempt.attributes is not None and attempt.attributes["webreach.engine"] == "mojeek"
    assert attempt.start_time is not None and attempt.end_time is not None and attempt.end_time > attempt.start_time
    fetch, reading, extract = named["execute_tool web_fetch"], named["read"], named["extract"]
    assert _parent(reading) == fetch.context.span_id and _parent(extract) == reading.context.span_id
    assert reading.attributes is not None and reading.attributes["server.address"] == "127.0.0.1"
    unknown = named["execute_tool unknown"]
    assert unknown.attributes is not None and unknown.attributes["error.type"] == "invalid_input"
    everything = repr([(span.name, dict(span.attributes or {})) for span in exporter.get_finished_spans()])
    assert SECRET not in everything and "python asyncio" not in everything and "_pages/article" not in everything


def test_traces_are_off_unless_the_otel_variables_ask() -> None:
    assert not wanted({})
    assert wanted({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"})
    assert wanted({"OTEL_TRACES_EXPORTER": "otlp"})
    assert not wanted({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"})
    assert not wanted({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"})
    assert Tracing.from_environment({}) is None


class Collector(http.server.ThreadingHTTPServer):
    """An OTLP/HTTP trace receiver on loopback: keeps each POST /v1/traces body."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Receive)
        self.bodies: list[bytes] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def span_names(self) -> list[str]:
        names = []
        for body in list(self.bodies):
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            names += [span.name for rs in request.resource_spans for ss in rs.scope_spans for span in ss.spans]
        return names


class _Receive(http.server.BaseHTTPRequestHandler):
    server: Collector

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        if self.path == "/v1/traces":
            self.server.bodies.append(body)
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[Collector]:
    server = Collector()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


@pytest.mark.slow
def test_the_server_exports_spans_over_otlp(web: FakeWeb, tmp_path: Path, collector: Collector) -> None:
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url, "OTEL_BSP_SCHEDULE_DELAY": "100",
        "WEBREACH_ENGINES__BRAVE_API__API_KEY": SECRET, "WEBREACH_SERVER__ADMIN_TOKEN": SECRET + "-admin",
    }  # fmt: skip
    with http_server(web, tmp_path, **env) as server:
        answer = httpx.post(
            server.url + "/v1/search", json={"query": "otlp query words", "engine": "mojeek"}, trust_env=False
        )
        assert answer.status_code == 200, answer.text
        deadline = time.monotonic() + 30
        while not {"execute_tool web_search", "search", "engine_attempt"} <= set(collector.span_names()):
            assert time.monotonic() < deadline, collector.span_names()
            time.sleep(0.1)
    raw = b"".join(collector.bodies)
    assert SECRET.encode() not in raw and b"otlp query words" not in raw
    assert b"webreach" in raw  # the service name
