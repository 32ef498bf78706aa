"""nesting.tame: real result pages pass untouched; markup that makes an HTML5 tree builder quadratic comes out
balanced (shallow, end tags closing the element on top, no options) with its text kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from webreach.nesting import MAX_DEPTH, MAX_REWRITTEN_TAGS, SCAN_FROM, _pathological, tame

SERP = Path(__file__).resolve().parents[2] / "shared" / "data" / "serp"
N = 20_000
FLOODS = {
    "deep": "<div>" * 100_000,
    "closed options": "<select>" + "<option>x</option>" * N,
    "adoption agency": "<b>" * 3 + "<div>x</b>" * N,
    "misnested links": "<a>x<div>y</a>" * N,
    "formatting list": "".join(f"<b class=c{i}>x" for i in range(N)),
    "foreign content": "<svg>" + "<foreignObject><div>x" * N,
    "deep with closes": "<div>" * 300 + "<p>x</p>" * N + "</div>" * 300,
    "text fostered out of a table": "<table>" + "x<tr><td>a</td></tr>" * N,
}


def test_real_result_pages_are_not_rewritten() -> None:
    pages = sorted(SERP.glob("*/*.html"))
    if not pages:
        pytest.skip(f"real captures not present at {SERP}")
    for page in pages:
        text = page.read_bytes().decode("utf-8", "replace")
        assert tame(text) is text, page.name


@pytest.mark.parametrize("name", sorted(FLOODS))
def test_floods_come_out_balanced_with_their_text(name: str) -> None:
    markup = FLOODS[name]
    tamed = tame(markup)
    assert tamed != markup
    assert not _pathological(tamed, MAX_DEPTH)
    assert "<option" not in tamed
    if "table" not in name:  # text straight inside a table is the one text the rewrite drops
        assert tamed.count("x") == markup.count("x")


def test_small_pages_are_never_scanned() -> None:
    small = "<div>" * (SCAN_FROM // 5 - 1)
    assert tame(small) is small


def test_raw_text_and_lone_brackets_are_not_tags() -> None:
    script = "<script>" + "<div>" * 100_000  # an unclosed script: the rest of the page is its text
    assert tame(script) is script
    brackets = "<a " * 50_000
    assert tame(brackets) == brackets  # no ">" anywhere: no tag, nothing to do


def test_a_rewrite_walks_a_bounded_number_of_tags_then_keeps_only_text() -> None:
    markup = "<p>first</p>" + "<b><div>x</b>" * (MAX_REWRITTEN_TAGS // 2) + "<p>last</p>"
    tamed = tame(markup)
    assert tamed.count("<") <= MAX_REWRITTEN_TAGS  # past the cap the page lost its tags ...
    assert tamed.count("x") == markup.count("x")  # ... but not its text
    assert tamed.startswith("<p>first</p>") and "last" in tamed and not _pathological(tamed, MAX_DEPTH)


def test_repeated_root_start_tags_between_text_are_dropped() -> None:
    markup = "<html><body><p>a</p>" + ("some text " + '<html lang="x"><body class="y">') * 8_000
    tamed = tame(markup)
    assert tamed.count("<html") == 1 and tamed.count("<body") == 1
    assert tamed.count("some text") == 8_000
