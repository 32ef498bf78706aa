"""The elements trafilatura deletes unread, out of the tree while it reads precisely, and back afterwards."""

from __future__ import annotations

import pytest
import trafilatura
from lxml import etree
from trafilatura.settings import MANUALLY_CLEANED

from webreach.extract.preparation.html_tree import parse
from webreach.extract.preparation.set_aside import set_aside

STORY = "".join(
    f"<p>Paragraph {n} of the story says what happened at the harbour on the night of the storm, and who saw it "
    f"from the pier before the lights went out.</p>"
    for n in range(1, 7)
)
PAGE = (
    "<html><head><title>Harbour</title></head><body>"
    "<nav><a href='/'>Home</a> <a href='/news'>News</a></nav>lead text"
    f"<main><h1>The storm</h1>{STORY}<aside>Related: <a href='/a'>another story</a></aside> after aside"
    "<form><input name=q><label>Search</label></form>"
    "<figure><table><tr><td>Wind</td><td>90 km/h</td></tr></table></figure>"
    "<figure><img src='/pier.jpg'><figcaption>The pier at dawn</figcaption></figure></main>"
    "<footer>Contact <svg><title>icon</title></svg> us</footer>tail of the footer"
    "</body></html>"
)


def serialized(tree: etree._Element) -> bytes:
    return etree.tostring(tree, encoding="utf-8")


def precise(tree: etree._Element) -> str:
    return trafilatura.extract(tree, favor_precision=True, fast=True, with_metadata=False) or ""


def test_the_cleaned_elements_are_out_during_the_block_and_back_after_it() -> None:
    tree = parse(PAGE)
    before = serialized(tree)
    with set_aside(tree, MANUALLY_CLEANED):
        inside = serialized(tree).decode()
        assert not any(f"<{tag}" in inside for tag in ("nav", "aside", "footer", "head", "svg", "figcaption"))
        # each tail stays where trafilatura's deletion leaves it
        assert "lead text" in inside and "after aside" in inside and "tail of the footer" in inside
        # kept by trafilatura under conditions: a form that holds most of the page, a figure that holds a table
        assert "<form" in inside and "<figure><table>" in inside
    assert serialized(tree) == before


def test_trafilatura_reads_the_same_text_without_them() -> None:
    tree = parse(PAGE)
    expected = precise(tree)
    with set_aside(tree, MANUALLY_CLEANED):
        assert precise(tree) == expected
    assert "Paragraph 6" in expected


def test_a_tag_nested_in_itself_stays_as_trafilatura_leaves_part_of_it() -> None:
    # trafilatura's deletion loop stops taking <nav> once it deleted one holding another: the later one stays, and
    # trafilatura reads it
    log = "The harbour master wrote in his log that the storm broke the east wall at midnight and the boats were lost."
    page = PAGE.replace("<nav>", "<nav><nav>Skip</nav>", 1).replace(
        "after aside", f"after aside<nav><p>{log}</p></nav>"
    )
    tree = parse(page)
    expected = precise(tree)
    assert log in expected
    with set_aside(tree, MANUALLY_CLEANED):
        assert precise(tree) == expected


def test_a_block_holding_json_ld_stays() -> None:
    # trafilatura reads the page's JSON-LD (is it a forum thread?) before it cleans
    script = '<script type="application/ld+json">{"@type": "DiscussionForumPosting"}</script>'
    tree = parse(PAGE.replace("<footer>Contact", f"<footer>{script}Contact").replace("</title>", f"</title>{script}"))
    with set_aside(tree, MANUALLY_CLEANED):
        inside = serialized(tree)
        assert b"<footer" in inside and b"<head" in inside and b"<nav" not in inside


def test_everything_is_put_back_when_the_block_fails() -> None:
    tree = parse(PAGE)
    before = serialized(tree)
    with pytest.raises(RuntimeError), set_aside(tree, MANUALLY_CLEANED):
        raise RuntimeError("trafilatura failed")
    assert serialized(tree) == before


def test_siblings_taken_together_give_back_their_text_in_order() -> None:
    tree = parse("<html><body><div>a<nav>n1</nav>b<aside>s</aside>c<nav>n2</nav>d</div><p>x</p></body></html>")
    before = serialized(tree)
    with set_aside(tree, MANUALLY_CLEANED):
        assert tree.find(".//div").text == "abcd"
    assert serialized(tree) == before
