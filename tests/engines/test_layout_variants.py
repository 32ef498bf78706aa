"""Layout generations each scraped engine meets: every real capture (read by the engine's own parser), and the
variants without a capture, from fixtures written after the documented markup (tests/fixtures/serp/)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from conftest import SHARED_DATA
from webreach.errors import BlockedError, ParseError
from webreach.models import SearchRequest

from .capture import assert_good_hits, make_engine

FIXTURES = Path(__file__).parents[1] / "fixtures" / "serp"
# genuine no-results pages and the JavaScript shell among the real captures (PROVENANCE.md)
NO_RESULTS = {"serpparser__bing-nojs_no-results-nojs.html", "serpparser__google-nojs_no-results-nojs.html"}
JS_SHELL = {"gscraper__no_results_literal_duckduckgo.html"}
BLOCKED_ENGINE = {"baidu": "baidu", "ddg": "duckduckgo", "google": "google", "sogou": "sogou", "bing": "bing"}


def read_page(engine_name: str, path: Path) -> httpx.Response:
    engine = make_engine(engine_name)
    request = engine.build_request(SearchRequest(query="test"))
    headers = {"content-type": "text/html; charset=utf-8"}
    return httpx.Response(200, headers=headers, content=path.read_bytes(), request=request)


def captures(folder: str) -> list[Path]:
    return sorted((SHARED_DATA / "serp").glob(f"{folder}/*.html"))


@pytest.mark.parametrize("path", captures("[!_]*"), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_real_capture_is_read_by_its_engine_parser(shared_data: Path, path: Path) -> None:
    engine = make_engine(path.parent.name)
    response = read_page(path.parent.name, path)
    if path.name in JS_SHELL:
        with pytest.raises(ParseError, match=r"d\.js"):
            engine.handle_page(response)
        return
    page = engine.handle_page(response)
    assert page.parsed_by == "engine"  # never the fallback: the engine parsers know every real capture
    if path.name in NO_RESULTS:
        assert page.hits == []
    else:
        assert_good_hits(page.hits)


@pytest.mark.parametrize("path", captures("_blocked"), ids=lambda p: p.name)
def test_every_real_block_page_is_blocked(shared_data: Path, path: Path) -> None:
    name = next(engine for key, engine in BLOCKED_ENGINE.items() if key in path.name)
    with pytest.raises(BlockedError):
        make_engine(name).handle_page(read_page(name, path))


def fixture_hits(engine_name: str, variant: str) -> list[tuple[str, str, str, str | None]]:
    page = make_engine(engine_name).handle_page(read_page(engine_name, FIXTURES / engine_name / f"{variant}.html"))
    assert page.parsed_by == "engine"
    assert_good_hits(page.hits)
    return [(hit.title, hit.url, hit.snippet, hit.display_url) for hit in page.hits]


def test_duckduckgo_rendered_dom_with_its_d_js_link_is_results_not_the_javascript_shell() -> None:
    hits = fixture_hits("duckduckgo", "rendered-dom-react")
    assert [url for _, url, _, _ in hits] == [
        "https://tokio.rs/",
        "https://docs.rs/async-std",
        "https://rust-lang.github.io/async-book/",
    ]  # the ad slot (a y.js link in li[data-layout=ad]) is not a result
    assert hits[0][0] == "Tokio - An asynchronous Rust runtime"
    assert hits[0][2].startswith("Tokio is an asynchronous runtime")
    assert hits[1][3] == "docs.rs/async-std"


def test_duckduckgo_rendered_dom_of_2016_to_2022() -> None:
    hits = fixture_hits("duckduckgo", "rendered-dom-2019")
    titles = [title for title, _, _, _ in hits]
    assert titles == ["Write-Ahead Logging - SQLite", "Pragma statements supported by SQLite"]
    assert hits[0][2].startswith("The default method by which SQLite")


def test_duckduckgo_lite_rows_decode_their_redirects_and_skip_sponsored_rows() -> None:
    hits = fixture_hits("duckduckgo", "lite")
    assert hits == [
        (
            "Retry - everything curl",
            "https://everything.curl.dev/usingcurl/downloads/retry",
            "curl can retry a transfer that failed with a transient error: --retry sets how many times.",
            "everything.curl.dev/usingcurl/downloads/retry",
        ),
        (
            "curl - How To Use",
            "https://curl.se/docs/manpage.html",
            "The manual page of curl, with every command line option explained.",
            "curl.se/docs/manpage.html",
        ),
    ]


def test_bing_mobile_page_with_nested_b_algo_items_and_links_around_the_title() -> None:
    hits = fixture_hits("bing", "mobile")
    assert hits[0][:2] == ("Zstandard - Real-time data compression algorithm", "https://facebook.github.io/zstd/")
    assert hits[1][1] == "https://github.com/facebook/zstd"  # /ck/a?u=a1 decoded
    assert hits[0][2].startswith("Zstandard is a fast compression algorithm")
    assert hits[0][3] == "facebook.github.io › zstd"
    assert len(hits) == 2  # the li.b_ad is not a result


def test_google_older_generation_with_the_link_inside_the_heading() -> None:
    engine = make_engine("google")
    page = engine.handle_page(read_page("google", FIXTURES / "google" / "older-h3-r.html"))
    assert page.parsed_by == "engine"
    assert [hit.url for hit in page.hits] == [
        "https://www.postgresql.org/docs/current/sql-vacuum.html",  # /url?q= decoded
        "https://wiki.postgresql.org/wiki/VACUUM_FULL",
        "https://dba.stackexchange.com/questions/1/vacuum-full",
    ]
    first = page.hits[0]
    assert first.title == "PostgreSQL: Documentation: VACUUM"
    assert first.date == "2017-03-03"
    assert first.snippet.startswith("VACUUM reclaims storage")


def test_google_sitelinks_inside_headings_of_a_current_page_are_not_results(shared_data: Path) -> None:
    path = shared_data / "serp/google/starify__google_react-github.html"
    hits = make_engine("google").handle(read_page("google", path))
    assert len(hits) == 8
    assert "https://github.com/facebook/react/releases" not in [hit.url for hit in hits]


def test_google_wml_page_for_old_phones_has_no_h3_but_is_read() -> None:
    hits = fixture_hits("google", "wml")
    assert [url for _, url, _, _ in hits] == [
        "https://v8.dev/blog/wasm-gc-porting",
        "https://github.com/WebAssembly/gc",
        "https://developer.chrome.com/blog/wasmgc",
    ]  # the image-search tab and the suggestion table are not results
    assert hits[0][0] == "A new way to bring garbage collected languages to WebAssembly"
    assert hits[2][2] == "Chrome 119 ships WasmGC by default."


def test_brave_2023_generation_reads_titles_snippets_and_dates() -> None:
    engine = make_engine("brave")
    hits = engine.handle(read_page("brave", FIXTURES / "brave" / "2023-fdb.html"))
    assert [hit.title for hit in hits] == [
        "htmx ~ hx-boost Attribute",
        "Is hx-boost worth it? : r/htmx",
        "htmx ~ Documentation",
    ]
    assert hits[0].display_url == "htmx.org › attributes › hx-boost"
    assert (hits[1].date, hits[1].snippet) == (
        "2023-03-02",
        "Boosting gives SPA-like navigation for free, but watch out for scripts in the head.",
    )
