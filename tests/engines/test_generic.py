"""The generic parser: alone over every real capture, on pages whose class names changed (mutation), and never on
block pages, no-results pages or navigation."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import httpx
import pytest
from selectolax.lexbor import LexborHTMLParser

from conftest import SHARED_DATA
from webreach.config import EngineSettings
from webreach.engines import create, names
from webreach.engines._generic import CHROME
from webreach.errors import BlockedError, ParseError, WebreachError
from webreach.models import SearchRequest
from webreach.testing import engine_recordings, rename_classes

from .test_layout_variants import BLOCKED_ENGINE, JS_SHELL, NO_RESULTS, captures

RESULT_PAGES = [p for p in captures("[!_]*") if p.name not in NO_RESULTS | JS_SHELL]
EMPTY_PAGES = [p for p in captures("*") if p.name in NO_RESULTS | JS_SHELL or p.parent.name == "_blocked"]


def engine_of(path: Path) -> str:
    if path.parent.name != "_blocked":
        return path.parent.name
    return next(engine for key, engine in BLOCKED_ENGINE.items() if key in path.name)


def response(engine_name: str, html: str) -> httpx.Response:
    request = httpx.Request("GET", create(engine_name).url("/search"))
    return httpx.Response(200, headers={"content-type": "text/html"}, content=html.encode(), request=request)


def engine_urls(path: Path) -> list[str]:
    name = engine_of(path)
    return [hit.url for hit in create(name).parse(response(name, path.read_text(errors="replace")))]


def nav_only_urls(path: Path, expected: set[str]) -> set[str]:
    """Decoded links that sit in the page's navigation, header, footer or side column and are not results."""
    engine = create(engine_of(path))
    tree = LexborHTMLParser(path.read_text(errors="replace"))
    page_url = engine.url("/search")
    found = set()
    for region in tree.css(CHROME):
        for link in region.css("a[href]"):
            url = engine.result_link(link.attributes.get("href") or "", page_url)
            if url is not None:
                found.add(url)
    return found - expected


@pytest.mark.slow  # a second or more (measured 2026-11-28): the full suite runs it
def test_generic_parser_alone_finds_what_the_engine_parsers_find(shared_data: Path) -> None:
    expected: dict[str, int] = defaultdict(int)
    found: dict[str, int] = defaultdict(int)
    matched: dict[str, int] = defaultdict(int)
    for path in RESULT_PAGES:
        name = engine_of(path)
        want = set(engine_urls(path))
        got = {hit.url for hit in create(name).generic_parse(response(name, path.read_text(errors="replace")))}
        expected[name] += len(want)
        found[name] += len(got)
        matched[name] += len(want & got)
        assert not got & nav_only_urls(path, want), path.name
    for name in expected:  # the table bench/generic_parser.py prints; these floors sit just under it
        assert matched[name] / expected[name] >= 0.9, (name, matched[name], expected[name])
        assert matched[name] / found[name] >= 0.8, (name, matched[name], found[name])
    assert sum(matched.values()) / sum(expected.values()) >= 0.95


@pytest.mark.parametrize("path", EMPTY_PAGES, ids=lambda p: p.name)
@pytest.mark.parametrize("renamed", [False, True], ids=["as-captured", "classes-renamed"])
def test_block_pages_and_pages_without_results_never_become_results(
    shared_data: Path, path: Path, renamed: bool
) -> None:
    name = engine_of(path)
    html = path.read_text(errors="replace")
    html = rename_classes(html) if renamed else html
    assert create(name).generic_parse(response(name, html)) == []
    try:
        page = create(name).handle_page(response(name, html))
    except WebreachError:
        return  # blocked, or a ParseError: either way no results were made up
    assert page.hits == []


@pytest.mark.parametrize("path", [p for p in RESULT_PAGES if len(p.read_bytes()) > 4000], ids=lambda p: p.name)
def test_renamed_class_names_fall_back_to_the_generic_parser_and_keep_most_results(
    shared_data: Path, path: Path
) -> None:
    name = engine_of(path)
    original = engine_urls(path)
    if len(original) < 3:  # "repeated several times": two results are not a list the structure can tell
        pytest.skip(f"{len(original)} results on the page")
    page = create(name).handle_page(response(name, rename_classes(path.read_text(errors="replace"))))
    got = [hit.url for hit in page.hits]
    if page.parsed_by == "engine":
        # Google's parser reads structure (a > h3) and survives; only the "People also ask" class is gone, so
        # those answers are no longer moved after the organic results
        assert set(got) == set(original)
        return
    assert len(set(got) & set(original)) >= 0.8 * len(original)
    assert not set(got) & nav_only_urls(path, set(original))
    assert all(hit.engine == name and hit.title for hit in page.hits)


# a results list, plus everything around it that must not become a result
SYNTHETIC = """<html><body>
<header><a href="https://partner.example/">Partner portal for search customers</a></header>
<nav><ul>{nav}</ul></nav>
<div class="cols"><div class="main"><div class="list">{results}</div>
<div class="related"><a href="/search?q=more">related searches about the topic</a></div>
<div class="partners">{partners}</div></div>
<aside>{aside}</aside></div>
<footer><a href="https://legal.example/privacy">Privacy statement and terms of use</a></footer>
</body></html>"""
RESULT = (
    '<div class="r"><h3><a href="https://site{n}.example/page">Result number {n} about the topic</a></h3>'
    '<div class="s">A snippet long enough to be a text block for result {n}.</div></div>'
)
NAV = '<li><a href="https://tool{n}.example/">External tool number {n} in navigation</a></li>'
ASIDE = (
    '<div><h4><a href="https://ad{n}.example/">Sponsored side box {n}</a></h4><p>Advertising copy text {n}.</p></div>'
)
# a link list in plain divs (no nav element): links with titles but no text block beside them
PARTNER = '<div><a href="https://friend{n}.example/">Friendly site number {n} of the network</a></div>'


def synthetic(results: int, extras: int = 6) -> str:
    return SYNTHETIC.format(
        results="".join(RESULT.format(n=n) for n in range(results)),
        nav="".join(NAV.format(n=n) for n in range(extras)),
        aside="".join(ASIDE.format(n=n) for n in range(extras)),
        partners="".join(PARTNER.format(n=n) for n in range(extras)),
    )


def test_the_results_list_is_found_and_navigation_link_lists_side_column_and_footer_are_not() -> None:
    hits = create("mojeek").generic_parse(response("mojeek", synthetic(5)))
    assert [hit.url for hit in hits] == [f"https://site{n}.example/page" for n in range(5)]
    assert hits[0].title == "Result number 0 about the topic"
    assert hits[0].snippet == "A snippet long enough to be a text block for result 0."


def test_fewer_than_three_repeated_blocks_are_not_a_results_list() -> None:
    # nor is the link list beside them, though it repeats six times
    assert create("mojeek").generic_parse(response("mojeek", synthetic(2))) == []


def test_the_fallback_marks_its_hits_and_can_be_switched_off() -> None:
    page = create("mojeek").handle_page(response("mojeek", synthetic(4)))
    assert page.parsed_by == "generic"
    assert len(page.hits) == 4
    off = create("mojeek", EngineSettings(options={"generic_fallback": "off"}))
    with pytest.raises(ParseError):
        off.handle_page(response("mojeek", synthetic(4)))


def test_the_fallback_decodes_the_engines_redirects() -> None:
    html = synthetic(3).replace(
        'href="https://site1.example/page"', 'href="/ck/a?!&amp;u=a1aHR0cHM6Ly9kZWNvZGVkLmV4YW1wbGUvcGFnZQ&amp;ntb=1"'
    )
    hits = create("bing").handle_page(response("bing", html)).hits
    assert [hit.url for hit in hits] == [
        "https://site0.example/page",
        "https://decoded.example/page",
        "https://site2.example/page",
    ]


def test_a_challenge_page_holding_a_result_like_list_stays_a_block() -> None:
    html = synthetic(5).replace("<body>", '<body><form id="challenge-form" action="/anomaly.js"></form>')
    assert create("mojeek").generic_parse(response("mojeek", html)) == []
    with pytest.raises(BlockedError):
        create("duckduckgo").handle_page(response("duckduckgo", html))


def test_api_engines_never_fall_back() -> None:
    engine = create("tavily", EngineSettings(api_key="tvly-test"))
    assert not engine.generic_fallback


def test_captures_exist_for_the_measurement() -> None:
    if not SHARED_DATA.is_dir():
        pytest.skip("real captures absent")
    assert len(RESULT_PAGES) >= 30 and len(EMPTY_PAGES) >= 9


SCRAPED_RESULTS = [
    (name, case)
    for name in names()
    if create(name).kind == "scraped"
    for case in engine_recordings(name)
    if case.startswith("results") and case != "results-relayout"
]


@pytest.mark.parametrize(("name", "case"), SCRAPED_RESULTS, ids=[f"{n}/{c}" for n, c in SCRAPED_RESULTS])
def test_renamed_class_names_in_every_engines_recording_keep_its_results(name: str, case: str) -> None:
    # the recordings cover the engines without a real results capture (sogou's web page, so360) too; the real
    # URLs they carry beside their redirects (data-url, data-mdurl) are read by the same engine hooks
    engine = create(name)
    recording = engine_recordings(name)[case]
    request = engine.build_request(SearchRequest(query="test"))
    original = [hit.url for hit in engine.handle(recording.to_response(request))]
    renamed = rename_classes(recording.body.decode("utf-8"))
    answer = httpx.Response(200, headers=recording.headers, content=renamed.encode(), request=request)
    elsewhere = [url for url in original if engine.result_link(url, str(request.url)) is not None]
    if len(elsewhere) < 3:  # mojeek's lists its own about page: two results on other sites are not a list
        with pytest.raises(ParseError):
            engine.handle_page(answer)
        return
    page = engine.handle_page(answer)
    got = [hit.url for hit in page.hits]
    assert set(original) <= set(got)
    assert len(got) <= len(original) + 1  # at most one of the engine's own cards (Baidu's baike) comes along
