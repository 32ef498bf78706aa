"""Headings put back over the sections a reading kept: in every format, only where their section is read, never
twice, never the page's h1."""

from __future__ import annotations

from typing import Any

import pytest

from webreach.extract.cascade import extract
from webreach.extract.fixes.section_headings import restore_headings, sections_left_out
from webreach.extract.preparation import html_tree

INTRO = (
    "Tailwind works by scanning all of your templates for class names, generating the matching styles and then "
    "writing them to a static file. It is fast, flexible and reliable, with nothing to run in the browser."
)
STEPS = (
    (
        "Create your project",
        "Start by creating a new project if you do not have one set up already; the most common approach is to use "
        "the project generator, which asks a few questions and writes every file you need.",
    ),
    (
        "Add it to your build",
        "Install the package and its build plugin with your package manager, then check that both appear in the "
        "dependencies of your manifest before going on to the next step of this guide.",
    ),
    (
        "Configure the plugin",
        "Add the plugin to your build configuration so that every stylesheet goes through it, and restart the "
        "development server so that the new configuration is picked up by the watcher.",
    ),
)
URL = "https://tools.example/2025/01/getting-started-guide"


def guide() -> bytes:
    """A story whose steps sit outside trafilatura's main frame: it recovers their paragraphs, not their headings."""
    grid = "".join(
        f"<div class='step'><div class='num'>0{number}</div><div><h4>{title}</h4>"
        f"<div class='prose'><p>{text}</p></div></div></div>"
        for number, (title, text) in enumerate(STEPS)
    )
    return (
        "<html><head><title>Installation</title><meta property='og:type' content='article'></head><body>"
        "<nav><a href='/'>Docs</a> <a href='/blog'>Blog</a></nav>"
        f"<div class='page'><h1>Get started</h1><div id='content-wrapper' class='content'><p>{INTRO}</p></div>"
        f"<div class='grid'>{grid}</div></div><footer>Copyright 2025</footer></body></html>"
    ).encode()


def test_each_step_gets_its_heading_back_over_its_paragraph_in_every_format() -> None:
    text = extract(guide(), content_type="text/html", url=URL, format="text").text.split("\n")
    for title, paragraph in STEPS:
        assert text[text.index(paragraph) - 1] == title
    assert "Get started" not in text  # the h1 is the page's title, which the metadata carries
    markdown = extract(guide(), content_type="text/html", url=URL, format="markdown").text
    assert f"#### {STEPS[0][0]}\n\n{STEPS[0][1]}" in markdown
    html = extract(guide(), content_type="text/html", url=URL, format="html").text
    assert f"<h4>{STEPS[2][0]}</h4>\n    <p>{STEPS[2][1]}</p>" in html


def restored(page: str, reading: str) -> str:
    return restore_headings(html_tree.parse(f"<html><body>{page}</body></html>"), reading, "text")


SECTIONS = {
    "a heading whose section was not read stays out": (
        f"<h2>Intro</h2><p>{INTRO}</p><aside><h2>Popular posts</h2><p>Ten ways to style a button today</p></aside>",
        f"Intro\n{INTRO}",
    ),
    "a heading followed by one of its level has no section": (
        f"<h3>Share this</h3><h3>Overview</h3><p>{INTRO}</p>",
        f"Overview\n{INTRO}",
    ),
    "a deeper heading is part of the section above it": (
        f"<h2>Guide</h2><h3>Overview</h3><p>{INTRO}</p>",
        f"Guide\nOverview\n{INTRO}",
    ),
    "two sections never open the same line": (
        f"<h2>First</h2><p>{INTRO}</p><h2>Second</h2><p>{INTRO} Again.</p>",
        f"First\n{INTRO}",
    ),
    "what a heading hides is not its title": (
        f"<h2><style>.x{{color:red}}</style>Styled <svg><text>icon</text></svg>title</h2><p>{INTRO}</p>",
        f"Styled title\n{INTRO}",
    ),
}


@pytest.mark.parametrize(("page", "expected"), list(SECTIONS.values()), ids=list(SECTIONS))
def test_which_headings_open_the_reading(page: str, expected: str) -> None:
    assert restored(page, INTRO) == expected


def test_a_heading_the_reading_already_says_is_not_repeated() -> None:
    page = f"<h2>Why it's fast</h2><p>{INTRO}</p>"
    assert restored(page, f"Why it’s fast!\n{INTRO}") == f"Why it’s fast!\n{INTRO}"
    markdown = f"## [Why it's fast](https://tools.example/#fast)\n\n{INTRO}"
    assert restore_headings(html_tree.parse(f"<html><body>{page}</body></html>"), markdown, "markdown") == markdown


def test_a_section_nested_thousands_deep_is_found_without_recursion() -> None:
    depth = 5000
    page = f"<h2>Deep</h2>{'<div>' * depth}<p>{INTRO}</p>{'</div>' * depth}"
    assert restored(page, INTRO) == f"Deep\n{INTRO}"


def test_short_headings_are_whole_words() -> None:
    page = f"<h2>Art</h2><p>{INTRO}</p><h2>Team</h2><p>Our people build the plugin and answer every question.</p>"
    reading = f"Start here.\n{INTRO}\nSteam engines.\nOur people build the plugin and answer every question."
    assert restored(page, reading) == (
        f"Start here.\nArt\n{INTRO}\nSteam engines.\nTeam\nOur people build the plugin and answer every question."
    )


def test_a_heading_spelt_otherwise_in_markdown_or_html_is_not_repeated() -> None:
    page = f"<h2>Terms &amp; Conditions</h2><p>{INTRO}</p>"
    tree = html_tree.parse(f"<html><body>{page}</body></html>")
    html = f"<h2>Terms &amp; Conditions</h2>\n<p>{INTRO}</p>"
    assert restore_headings(tree, html, "html") == html
    markdown = f"## Terms \\& Conditions\n\n{INTRO}"
    assert restore_headings(tree, markdown, "markdown") == markdown


def test_a_markdown_heading_is_escaped() -> None:
    page = f"<h2>*Note* &lt;img src=x&gt;</h2><p>{INTRO}</p>"
    tree = html_tree.parse(f"<html><body>{page}</body></html>")
    assert restore_headings(tree, INTRO, "markdown") == f"## \\*Note\\* \\<img src=x\\>\n\n{INTRO}"


def test_no_heading_goes_inside_code_or_between_rows() -> None:
    code = "print the report for every customer in the list"
    page = f"<p>Example:</p><pre>first line\n{code}</pre><h2>Reports</h2><p>{code.capitalize()}, then mail it.</p>"
    tree = html_tree.parse(f"<html><body>{page}</body></html>")
    markdown = f"Example:\n\n```\nfirst line\n{code}\n```\n\n{code.capitalize()}, then mail it."
    assert "```\n\n## Reports\n\nPrint" in restore_headings(tree, markdown, "markdown")
    html = f"<body>\n  <pre>first line\n{code}</pre>\n  <p>{code.capitalize()}, then mail it.</p>\n</body>"
    assert "</pre>\n  <h2>Reports</h2>\n  <p>Print" in restore_headings(tree, html, "html")
    listed = html_tree.parse(f"<html><body><h2>Features</h2><ul><li>{INTRO}</li><li>Two</li></ul></body></html>")
    items = f"<body>\n  <ul>\n    <li>{INTRO}</li>\n    <li>Two</li>\n  </ul>\n</body>"
    assert restore_headings(listed, items, "html").startswith("<body>\n  <h2>Features</h2>\n  <ul>\n    <li>")


def test_a_fenced_block_that_opens_a_section_gets_its_heading_over_the_fence() -> None:
    tree = html_tree.parse("<html><body><h2>Usage</h2><pre>webreach read https://example.com</pre></body></html>")
    markdown = "Intro.\n\n```\nwebreach read https://example.com\n```"
    assert restore_headings(tree, markdown, "markdown") == (
        "Intro.\n\n## Usage\n\n```\nwebreach read https://example.com\n```"
    )


def test_sections_that_open_alike_take_their_own_lines_in_page_order() -> None:
    offer = "Includes everything you need to get started with the platform today, with support from our team, and"
    plans = (("Basic", "5 seats"), ("Pro", "50 seats"), ("Enterprise", "unlimited seats"))
    page = "".join(f"<div class='plan'><h3>{name}</h3><p>{offer} {seats}</p></div>" for name, seats in plans)
    reading = "\n".join(f"{offer} {seats}" for _, seats in plans)
    assert restored(page, reading) == "\n".join(f"{name}\n{offer} {seats}" for name, seats in plans)


def test_the_banner_of_the_page_has_no_section_in_the_story() -> None:
    page = (
        "<header><h2>Share this story</h2><div class='share'><a href='/x'><svg><path d='M0'/></svg></a></div>"
        f"</header><article><p>{INTRO}</p></article>"
    )
    assert restored(page, INTRO) == INTRO


def test_a_long_reading_takes_only_the_headings_its_search_budget_allows() -> None:
    page = f"<h2>First</h2><p>{INTRO}</p><h2>Second</h2><p>{INTRO} Again.</p>"
    reading = f"{INTRO}\n{INTRO} Again."
    tree = html_tree.parse(f"<html><body>{page}</body></html>")
    assert restore_headings(tree, reading, "text") == f"First\n{INTRO}\nSecond\n{INTRO} Again."
    assert restore_headings(tree, reading, "text", search_budget=len(reading)) == f"First\n{reading}"


def listicle(entries: int, *, in_nav: bool = False) -> Any:
    sections = "".join(f"<h2>Entry number {i}</h2><p>{INTRO} Entry {i} says more.</p>" for i in range(entries))
    body = f"<nav>{sections}</nav>" if in_nav else sections
    return html_tree.parse(f"<html><body><h1>Best tools</h1><p>Our picks.</p>{body}</body></html>")


def test_a_reading_of_the_introduction_alone_left_the_sections_out() -> None:
    assert sections_left_out(listicle(8), "Our picks.", "text")
    assert not sections_left_out(listicle(5), "Our picks.", "text")  # too few sections to tell
    assert not sections_left_out(listicle(8, in_nav=True), "Our picks.", "text")  # a menu's titles are not sections


def test_a_reading_that_holds_the_sections_did_not_leave_them_out() -> None:
    said = "\n".join(f"Entry number {i}\n{INTRO} Entry {i} says more." for i in range(8))
    assert not sections_left_out(listicle(8), said, "text")
    untitled = "\n".join(f"{INTRO} Entry {i} says more." for i in range(8))  # headings dropped, sections kept
    assert not sections_left_out(listicle(8), untitled, "text")
    one_said = "Our picks.\nEntry number 3"
    assert not sections_left_out(listicle(8), one_said, "text")  # one in eight said: more than a tenth
