"""Helpers for engine tests: run an engine on a real capture or a recording without any network."""

from __future__ import annotations

from pathlib import Path

import httpx

from secret_keys import TEST_KEY
from webreach import engines
from webreach.clock import Clock
from webreach.config import EngineSettings
from webreach.models import Hit, SearchRequest


def make_engine(name: str, options: dict[str, str] | None = None, *, clock: Clock | None = None) -> engines.Engine:
    """An engine with a test API key, its default origin, and `options` (google_cse's cx, serpapi's engine)."""
    settings = EngineSettings(api_key=TEST_KEY, options=options or {})
    return engines.create(name, settings, clock=clock)


def parse_capture(
    name: str, path: Path, status: int = 200, headers: dict[str, str] | None = None, *, clock: Clock | None = None
) -> list[Hit]:
    """Run engine `name` over a captured body as if it had just answered its own request (at `clock`'s time)."""
    engine = make_engine(name, clock=clock)
    request = engine.build_request(SearchRequest(query="test"))
    content_type = "application/json" if path.suffix == ".json" else "text/html; charset=utf-8"
    response = httpx.Response(
        status,
        headers={"content-type": content_type, **(headers or {})},
        content=path.read_bytes(),
        request=request,
    )
    return engine.handle(response)


def assert_good_hits(hits: list[Hit]) -> None:
    """Every hit has a title and an absolute, decoded http(s) URL; ranks run 1..n."""
    assert hits, "expected hits"
    for position, hit in enumerate(hits, 1):
        assert hit.title.strip(), hit
        assert hit.url.startswith(("http://", "https://")), hit.url
        assert hit.rank == position
