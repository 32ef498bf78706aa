"""OpenTelemetry traces, when the operator asks for them with the standard OTEL_* variables.

    OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 webreach serve      # pip install 'webreach[otel]'

Tracing is on when OTEL_TRACES_EXPORTER is "otlp", or an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or
OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), and OTEL_SDK_DISABLED is not "true". The SDK then reads the rest of the
OTEL_* variables itself (headers, protocol, OTEL_SERVICE_NAME, batch delays). Off, nothing here imports
OpenTelemetry and no span is made: importing the API costs 110-170 ms and a no-op span about 18 us on this
machine, against a cached MCP call's 600 us of CPU, so the seam is an object (`Tracing`) or None, never the
global no-op tracer.

Spans: `execute_tool {tool}` per tool call (the GenAI semantic conventions' attributes), `search` per search,
`engine_attempt` per engine attempt (made when the attempt ends, back-dated to its start), `read` per read and
`extract` per extraction. Attributes hold public, bounded names and numbers only: never a query, a URL's path or
query string (a presigned URL carries its signature there), a key, a token or an agent's name.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from webreach.engine_attempt import EngineAttempt

Attributes = Mapping[str, str | int | float | bool | tuple[str, ...]]


def wanted(environ: Mapping[str, str]) -> bool:
    """Whether the OTEL_* variables ask for traces."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporters = {name.strip() for name in environ.get("OTEL_TRACES_EXPORTER", "").split(",")}
    if "none" in exporters:
        return False
    endpoint = environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
    return "otlp" in exporters or bool(endpoint)


class Tracing:
    """Spans through one OpenTelemetry tracer; `close` flushes and stops the provider this object owns."""

    def __init__(self, tracer: Any, provider: Any = None) -> None:
        self._tracer = tracer
        self._provider = provider

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Tracing | None:
        """Tracing over an OTLP exporter when the OTEL_* variables ask for it, else None (ImportError: the
        `otel` extra is not installed)."""
        if not wanted(os.environ if environ is None else environ):
            return None
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        provider = TracerProvider(resource=Resource.create({"service.name": "webreach"}))
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        return cls(provider.get_tracer("webreach"), provider)

    @contextlib.contextmanager
    def span(self, name: str, attributes: Attributes) -> Iterator[Any]:
        """A span around the block, current inside it (children nest); an exception sets error.type to its
        typed code (or class name) and the span's status to error."""
        with self._tracer.start_as_current_span(name, attributes=dict(attributes), record_exception=False) as span:
            try:
                yield span
            except BaseException as failed:
                span.set_attribute("error.type", str(getattr(failed, "code", None) or type(failed).__name__))
                span.set_status(self.error_status())
                raise

    def past(self, name: str, seconds: float, attributes: Attributes, *, error: str | None = None) -> None:
        """A span that ended now and began `seconds` ago, a child of the current span (an engine attempt)."""
        end = time.time_ns()
        span = self._tracer.start_span(name, attributes=dict(attributes), start_time=end - int(seconds * 1e9))
        if error is not None:
            span.set_attribute("error.type", error)
            span.set_status(self.error_status())
        span.end(end_time=end)

    def attempt(self, attempt: EngineAttempt) -> None:
        """An engine attempt's span, as the search service reports it when it ends."""
        attributes: Attributes = {
            "webreach.engine": attempt.engine, "webreach.attempt.status": attempt.status,
            "webreach.attempt.cached": attempt.cached, "webreach.attempt.results": attempt.count,
            "webreach.attempt.hedged": attempt.hedged,
        }  # fmt: skip
        self.past("engine_attempt", attempt.latency_ms / 1000, attributes, error=attempt.code)

    @staticmethod
    def error_status() -> Any:
        """The error status for a span (imported here: only with tracing on)."""
        from opentelemetry.trace import Status, StatusCode

        return Status(StatusCode.ERROR)

    def close(self) -> None:
        """Export what is buffered and stop (the provider's shutdown flushes its batch processor)."""
        if self._provider is not None:
            self._provider.shutdown()
