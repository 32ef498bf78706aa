"""One contract test over every engine's recordings: request shape, then hits or the promised error."""

from __future__ import annotations

import pytest

from webreach import engines
from webreach.errors import WebreachError
from webreach.models import SearchRequest
from webreach.testing.recordings import RECORDINGS_DIR, Recording, engine_recordings

from .capture import TEST_KEY, assert_good_hits, make_engine

# options an engine needs before its requests are complete (google_cse cannot search without an engine id)
OPTIONS: dict[str, dict[str, str]] = {"google_cse": {"cx": "0123456789abcdef0"}}

CASES = [
    pytest.param(name, recording, id=f"{name}/{case}")
    for name in engines.names()
    for case, recording in engine_recordings(name).items()
]


@pytest.mark.parametrize(("name", "recording"), CASES)
def test_engine_honours_its_recording(name: str, recording: Recording) -> None:
    engine = make_engine(name, OPTIONS.get(name))
    request = engine.build_request(SearchRequest(query="python asyncio", limit=5))
    assert str(request.url).startswith(engine.origin), "requests go to the configured origin"
    response = recording.to_response(request)
    if recording.expected_code is None:
        hits = engine.handle(response)
        if recording.case.startswith("results"):
            assert_good_hits(hits)
            assert all(hit.engine == name for hit in hits)
        else:
            assert hits == []
        return
    with pytest.raises(WebreachError) as caught:
        engine.handle(response)
    assert caught.value.code == recording.expected_code
    assert caught.value.engine == name
    assert TEST_KEY not in str(caught.value)


@pytest.mark.parametrize("name", engines.names())
def test_every_engine_has_results_and_no_results_recordings(name: str) -> None:
    cases = engine_recordings(name)
    assert any(c.startswith("results") for c in cases), f"add recordings/{name}/results.http"
    assert any(c.startswith("no_results") for c in cases), f"add recordings/{name}/no_results.http"
    assert any(r.expected_code for r in cases.values()), f"add an error or block case for {name}"


@pytest.mark.parametrize("name", engines.names())
def test_engine_metadata_is_complete(name: str) -> None:
    cls = engines.engine_class(name)
    assert cls.name == name
    assert cls.kind in ("scraped", "api")
    assert cls.index, "index names the underlying index so shared indexes dedupe once"
    assert cls.base_url.startswith("https://")
    assert cls.rate_per_minute > 0
    assert (RECORDINGS_DIR / name).is_dir()


@pytest.mark.parametrize("name", engines.names())
def test_parameters_an_engine_cannot_honour_are_reported(name: str) -> None:
    engine = make_engine(name, OPTIONS.get(name))
    request = SearchRequest(query="q", page=2, site="python.org", freshness="week", language="en", region="us")
    assert set(engine.unsupported(request)) == set(request.set_parameters()) - engine.supports


@pytest.mark.parametrize("name", [n for n in engines.names() if n != "searxng"])
def test_a_key_and_the_listed_options_configure_every_engine(name: str) -> None:
    # searxng is left out: it needs the operator's own instance URL, not a key
    make_engine(name, OPTIONS.get(name)).ensure_configured()
