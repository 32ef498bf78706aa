"""Mojeek against its real capture and its request dialect."""

from __future__ import annotations

from pathlib import Path

from webreach.models import SearchRequest
from webreach.testing import FakeClock

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


def test_freshness_is_the_first_day_of_the_window_by_the_engine_clock() -> None:
    engine = make_engine("mojeek", clock=FakeClock(1_700_000_000))  # 2023-11-14 22:13 UTC
    week = engine.build_request(SearchRequest(query="q", freshness="week"))
    year = engine.build_request(SearchRequest(query="q", freshness="year"))
    assert (week.url.params["since"], year.url.params["since"]) == ("20231107", "20221114")
    assert "since" not in engine.build_request(SearchRequest(query="q")).url.params
    assert engine.unsupported(SearchRequest(query="q", freshness="day")) == ()
