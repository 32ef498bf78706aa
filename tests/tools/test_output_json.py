"""A search answer's JSON joined from each hit's kept JSON is byte for byte what pydantic writes for the model."""

from __future__ import annotations

import json

import pytest

from webreach.models import EngineAttempt, Hit, ImageFields, SearchMeta, SearchResponse
from webreach.routing.kept import copied
from webreach.tools import SearchOutcome, search_json, search_text
from webreach.tools.kept_json import REFS_KEPT, refs_of, result_urls
from webreach.tools.output import json_text, query_results_text, search_json_text, search_output

META = SearchMeta(
    mode="engine",
    engines_used=("mojeek",),
    attempts=(EngineAttempt(engine="mojeek", status="ok", count=3, cached=True, latency_ms=0.25),),
    elapsed_ms=1.5,
)
HITS = (
    Hit(rank=1, title='Quotes " and \\ back\tslash', url="https://a.example/x?q=1&b=2", snippet="línea\nnueva",
        date="2024-07-30T00:00:00", source="Ä site", engine="mojeek", score=0.5),
    Hit(rank=2, title="研究 😀", url="https://b.example/", display_url="b.example", engine="mojeek"),
    Hit(rank=3, title="image", url="https://c.example/page", engine="images_bing", engines=("images_bing", "x"),
        image=ImageFields(image_url="https://c.example/i.png", width=3)),
)  # fmt: skip


def outcomes(hits: tuple[Hit, ...] = HITS, query: str = 'q "ü" 研究') -> list[SearchOutcome]:
    return [SearchOutcome(query=query, response=SearchResponse(query=query, results=hits, meta=META))]


def model_text(found: list[SearchOutcome], refs: dict[str, int] | None, notes: tuple[str, ...] = ()) -> str:
    return json_text(search_output(found, refs, notes=notes))


def test_joined_json_equals_pydantic_output_with_and_without_refs_and_notes() -> None:
    refs = {HITS[0].url: 7, HITS[2].url: 9}  # the second hit has no ref: null
    for shown, notes in ((None, ()), (refs, ()), (refs, ("a note", 'second "note"')), ({}, ("n",))):
        expected = model_text(outcomes(), shown, notes)
        assert query_results_text(outcomes()[0], shown, notes=notes) == expected
        assert search_json_text(outcomes(), shown, notes=notes) == expected
    body = json.loads(search_json_text(outcomes(), refs))
    assert [result["ref"] for result in body["results"]] == [7, None, 9]
    assert "image" not in body["results"][0] and body["results"][2]["image"]["width"] == 3


def test_a_hits_json_is_written_once_and_a_copy_gets_its_own() -> None:
    hit = Hit(rank=1, title="T", url="https://a.example/", engine="mojeek")
    first = search_json_text(outcomes((hit,)), {hit.url: 1})
    assert "json" in hit.derived  # kept with the hit for the next (cached) answer
    assert search_json_text(outcomes((hit,)), {hit.url: 2}) == first.replace('"ref":1', '"ref":2')
    copy = hit.model_copy(update={"rank": 4, "title": "Other"})  # shares the memo dict of the hit it copied
    assert copy.derived is hit.derived
    text = search_json_text(outcomes((copy,)), {hit.url: 1})
    assert text == model_text(outcomes((copy,)), {hit.url: 1})
    assert '"rank":4' in text and '"title":"Other"' in text


def test_text_that_cannot_be_utf8_falls_back_to_escapes() -> None:
    broken = Hit(rank=1, title="bad \ud800 title", url="https://a.example/", engine="mojeek")
    text = search_json_text(outcomes((broken,)), {broken.url: 1})
    assert text == model_text(outcomes((broken,)), {broken.url: 1})
    assert json.loads(text)["results"][0]["title"] == "bad \ud800 title"


def test_compact_lines_kept_on_a_hit_never_reach_its_json() -> None:
    """Hit.derived lives in the model's __dict__: the JSON once copied it into every result as "derived" when the
    same (cached) hit had been shown compact before."""
    hit = Hit(rank=1, title="T", url="https://a.example/", engine="mojeek")
    search_text(outcomes((hit,)), {hit.url: 1})  # compact first, as an MCP call would
    assert "compact" in hit.derived
    assert "derived" not in search_json(outcomes((hit,)), {hit.url: 1})["results"][0]
    assert "derived" not in search_json_text(outcomes((hit,)), {hit.url: 1})
    assert "derived" not in search_json_text(outcomes((hit, hit)) * 2, {hit.url: 1})  # several queries: the model


def test_a_kept_responses_copies_are_written_from_its_pieces_byte_for_byte() -> None:
    """Routing gives each call a cached entry answers a copy of the response it kept (routing/kept.py): the copy
    shares the pieces and writes its own latency, elapsed time and refs, exactly as pydantic would."""
    (outcome,) = outcomes()
    response = outcome.response
    assert response is not None
    first = query_results_text(outcome, {HITS[0].url: 1})
    pieces = response.derived["json"]
    for latency, elapsed, refs in (
        (0.001, 0.0, {HITS[0].url: 1}),
        (12.345, 1234.5, {HITS[1].url: 3}),
        (0.0, 1e-3, None),
    ):
        attempt = copied(META.attempts[0], latency_ms=latency)
        copy = copied(response, meta=copied(META, attempts=(attempt,), elapsed_ms=elapsed))
        found = [SearchOutcome(query=copy.query, response=copy)]
        assert query_results_text(found[0], refs) == model_text(found, refs)
        assert copy.derived["json"] is pieces  # written from the kept pieces, not made again
    assert query_results_text(outcome, {HITS[0].url: 1}) == first  # the refs written before, kept


def test_a_copy_that_differs_otherwise_gets_pieces_of_its_own() -> None:
    (outcome,) = outcomes()
    response = outcome.response
    assert response is not None
    query_results_text(outcome, None)
    other_attempt = META.attempts[0].model_copy(update={"cached": False, "count": 9})
    two = (META.attempts[0], other_attempt)
    for copy in (
        response.model_copy(update={"results": HITS[:2]}),
        response.model_copy(update={"query": "another"}),
        response.model_copy(update={"answer": "an answer"}),
        response.model_copy(update={"meta": META.model_copy(update={"attempts": (other_attempt,)})}),
        response.model_copy(update={"meta": META.model_copy(update={"stale": True, "mode": "auto"})}),
        response.model_copy(update={"meta": META.model_copy(update={"attempts": two, "engines_used": ("a", "b")})}),
    ):
        assert copy.derived is response.derived  # model_copy shares the scratch
        found = [SearchOutcome(query=copy.query, response=copy)]
        for refs in (None, {HITS[2].url: 5}):
            assert query_results_text(found[0], refs) == model_text(found, refs)


def test_the_same_attempt_and_numbers_again_are_written_from_what_was_checked_and_written() -> None:
    """A cached answer's calls meet the same few attempt objects and numbers (routing/kept.py keeps its copies by
    them): the attempt's fit is remembered by identity, the meta's text by its two numbers; a zero is never kept
    (-0.0 equals 0.0 but is written otherwise), and every text is still pydantic's own."""
    (outcome,) = outcomes()
    response = outcome.response
    assert response is not None
    query_results_text(outcome, None)
    pieces = response.derived["json"].meta
    attempt = copied(META.attempts[0], latency_ms=0.004)
    for elapsed in (0.021, 0.021, -0.0, 0.0, 0.021):
        copy = copied(response, meta=copied(META, attempts=(attempt,), elapsed_ms=elapsed))
        found = [SearchOutcome(query=copy.query, response=copy)]
        assert query_results_text(found[0], None) == model_text(found, None)
    assert pieces.fitted == {id(attempt): attempt}
    assert [numbers for numbers in pieces.written if numbers != (0.25, 1.5)] == [(0.004, 0.021)]  # 1.5: META's
    other = copied(META.attempts[0], latency_ms=0.004, count=9)  # the same numbers, another attempt: no fit
    copy = copied(response, meta=copied(META, attempts=(other,), elapsed_ms=0.021))
    assert copy.derived["json"].meta is pieces and not pieces.fits(copy.meta)
    found = [SearchOutcome(query=copy.query, response=copy)]
    assert query_results_text(found[0], None) == model_text(found, None)


def test_a_cached_answers_refs_are_kept_per_numbering_read_only() -> None:
    (outcome,) = outcomes()
    response = outcome.response
    assert response is not None
    urls = result_urls(response)
    first = refs_of(response, urls, [1, 2, 3])
    assert dict(first) == {HITS[0].url: 1, HITS[1].url: 2, HITS[2].url: 3}
    assert refs_of(response, urls, [1, 2, 3]) is first  # the same numbering again: the same mapping
    other = refs_of(response, urls, [4, 5, 6])
    assert other is not first and list(other.values()) == [4, 5, 6]
    with pytest.raises(TypeError):
        first[HITS[0].url] = 9  # type: ignore[index]
    with pytest.raises(ValueError):  # a store answering with another count of refs is refused, as zip(strict)
        refs_of(response, urls, [1, 2])
    for n in range(REFS_KEPT + 2):  # a few numberings kept; past them the memo starts over, answers stay right
        assert list(refs_of(response, urls, [n, n + 1, n + 2]).values()) == [n, n + 1, n + 2]
    assert len(response.derived["refs"][1]) <= REFS_KEPT
