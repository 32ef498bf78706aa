"""Mojeek against its real capture and its request dialect."""

from __future__ import annotations

from pathlib import Path

from webreach.models import SearchRequest

from .capture import assert_good_hits, make_engine, parse_capture


def test_real_results_page_parses_to_its_organic_results(shared_data: Path) -> None:
    hits = parse_capture("mojeek", shared_data / "serp/mojeek/wsmcp__mojeek.html")
    assert_good_hits(hits)
    assert len(hits) == 10
    assert hits[0].url == "https://javascript.info/"
    assert hits[0].title == "The Modern JavaScript Tutorial"
    assert "Main course contains 2 parts" in hits[0].snippet


def test_first_page_never_sends_an_offset() -> None:
    engine = make_engine("mojeek")
    first = engine.build_request(SearchRequest(query="rust async"))
    second = engine.build_request(SearchRequest(query="rust async", page=3, site="docs.rs"))
    assert "s" not in first.url.params
    assert second.url.params["s"] == "21"
    assert second.url.params["q"] == "rust async site:docs.rs"
