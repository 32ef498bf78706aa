"""search_json_text writes exactly to_text(search_json(...)), on every shape an answer can have and real pages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webreach.errors import AllEnginesFailedError, BlockedError, RateLimitedError
from webreach.models import EngineAttempt, Hit, SearchMeta, SearchResponse
from webreach.state.memo import IdentityMemo
from webreach.tools import SearchOutcome, search_json
from webreach.tools.json_text import hit_json, search_json_text
from webreach.tools.render import to_text

from .fakes import response
from .test_token_target import parse

URLS = ("https://www.example.org/a", "https://docs.example.com/b?x=1", "https://例え.jp/ページ")


def reference(outcomes: list[SearchOutcome], refs: dict[str, int] | None, notes: tuple[str, ...] = ()) -> str:
    return to_text(search_json(outcomes, refs, notes=notes))


def full_response() -> SearchResponse:
    """Every field set, floats of every magnitude, non-ASCII text, quotes and escapes."""
    hits = (
        Hit(
            rank=1,
            title='Quote " and \\ backslash \u2028 and 中文',
            url=URLS[0],
            display_url="example.org › a",
            snippet="Tab\tnew\nline </script>",
            date="2024-05-01T10:00:00Z",
            source="Example",
            engine="bing",
            engines=("bing", "mojeek"),
            score=0.000012345,
        ),
        Hit(rank=2, title="Two", url=URLS[1], engine="mojeek", score=1e20),
        Hit(rank=3, title="Three", url=URLS[2], engine="mojeek", score=-0.0),
    )
    attempts = (
        EngineAttempt(engine="bing", status="error", code="captcha", message="solve it", latency_ms=0.00005),
        EngineAttempt(engine="mojeek", status="ok", count=3, latency_ms=412.5, cached=True, unsupported=("site",)),
    )
    meta = SearchMeta(mode="multi", engines_used=("bing", "mojeek"), attempts=attempts, elapsed_ms=1e-7, stale=True)
    return SearchResponse(query='q "quoted" 中文', results=hits, meta=meta)


def test_the_response_shape_is_what_the_writer_assumes() -> None:
    # the writer spells SearchResponse's fields out in this order: a new field must be added there too
    assert tuple(SearchResponse.model_fields) == ("query", "results", "meta")


@pytest.mark.parametrize("with_refs", [True, False])
@pytest.mark.parametrize("notes", [(), ("numbered refs are unavailable", 'a "second" note')])
def test_one_query_every_field(with_refs: bool, notes: tuple[str, ...]) -> None:
    outcomes = [SearchOutcome(query="q", response=full_response())]
    refs = {URLS[0]: 7, URLS[1]: 8, URLS[2]: 9} if with_refs else None
    text = search_json_text(outcomes, refs, notes=notes)
    assert text == reference(outcomes, refs, notes)
    assert json.loads(text) == search_json(outcomes, refs, notes=notes)


def test_a_url_without_a_ref_gets_null_as_search_json_gives_it() -> None:
    outcomes = [SearchOutcome(query="q", response=response("q", *URLS[:2]))]
    refs = {URLS[0]: 1}
    assert search_json_text(outcomes, refs) == reference(outcomes, refs)


def test_no_results() -> None:
    outcomes = [SearchOutcome(query="q", response=response("q"))]
    assert search_json_text(outcomes, {}) == reference(outcomes, {})


def test_several_queries_with_failures() -> None:
    failure = AllEnginesFailedError(
        "every engine failed",
        errors=[BlockedError("captcha page", engine="bing", kind="captcha")],
        attempts=(EngineAttempt(engine="bing", status="error", code="captcha"),),
    )
    outcomes = [
        SearchOutcome(query="alpha", response=response("alpha", URLS[0])),
        SearchOutcome(query="beta", error=RateLimitedError("slow down", engine="bing", retry_after=30)),
        SearchOutcome(query="gamma", error=failure),
        SearchOutcome(query="delta", response=response("delta", URLS[1], URLS[0])),
    ]
    refs = {URLS[0]: 1, URLS[1]: 2}
    for notes in ((), ("a note",)):
        assert search_json_text(outcomes, refs, notes=notes) == reference(outcomes, refs, notes)
        assert search_json_text(outcomes, None, notes=notes) == reference(outcomes, None, notes)


def test_text_that_cannot_be_utf8_falls_back_to_the_same_escaped_text() -> None:
    broken = Hit(rank=1, title="lone \ud800 surrogate", url=URLS[0], engine="bing")
    meta = SearchMeta(mode="engine", engines_used=("bing",))
    outcomes = [SearchOutcome(query="q", response=SearchResponse(query="q", results=(broken,), meta=meta))]
    text = search_json_text(outcomes, {URLS[0]: 1})
    assert text == reference(outcomes, {URLS[0]: 1})
    assert "\\ud800" in text


def test_every_real_results_page(shared_data: Path) -> None:
    kept = IdentityMemo(hit_json, entries=10_000)
    pages = 0
    for folder in sorted(path for path in (shared_data / "serp").iterdir() if path.is_dir() and path.name[0] != "_"):
        for page in sorted(folder.glob("*.html")):
            hits = tuple(parse(folder.name, page))
            attempt = EngineAttempt(engine=folder.name, status="ok", count=len(hits), latency_ms=12.345)
            meta = SearchMeta(mode="engine", engines_used=(folder.name,), attempts=(attempt,), elapsed_ms=13.0)
            answer = SearchResponse(query=page.stem, results=hits, meta=meta)
            outcomes = [SearchOutcome(query=page.stem, response=answer)]
            refs = {hit.url: ref for ref, hit in enumerate(hits, 1)}
            assert search_json_text(outcomes, refs) == reference(outcomes, refs), page.name
            for _ in range(2):  # kept texts, written the first time and reused the second
                assert search_json_text(outcomes, refs, write_hit=kept) == reference(outcomes, refs), page.name
                assert search_json_text(outcomes, None, write_hit=kept) == reference(outcomes, None), page.name
            pages += 1
    assert pages > 30
