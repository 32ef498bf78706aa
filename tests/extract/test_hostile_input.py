"""Inputs that used to crash the extractor (an HTTP 500, a CLI traceback) end in a document or a typed error."""

from __future__ import annotations

import logging

import pytest

from webreach import bounded_json, nesting
from webreach.errors import ExtractionError, WebreachError
from webreach.extract import charset
from webreach.extract.cascade import extract
from webreach.extract.last_resort import typed_errors
from webreach.extract.passthrough import read_json, read_xml
from webreach.extract.preparation import html_tree
from webreach.extract.preparation.xml_chars import xml_safe, xml_safe_utf8

URL = "https://hostile.example/page"
PARAGRAPH = "<p>" + "The tide tables list high and low water for every harbour on the coast. " * 12 + "</p>"


def test_control_characters_are_dropped_before_lxml_sees_them() -> None:
    for body in (b"<p>a \x01\n  b</p>", b"<p>a \x0b b\x0c c\x1f\n d</p>"):
        assert extract(body, content_type="text/html", url=URL, format="text").text in ("a b", "a b c d")
    assert xml_safe("a\x00b\x0cc\ud800d\uffff") == "ab cd"


def test_a_reference_to_a_control_character_in_running_text_is_dropped() -> None:
    # libxml2 stores &#1; as the character, which lxml then refuses to write back once the spaces beside it collapse
    page = f"<html><body>{PARAGRAPH}<p>tide&#1;\n   table&#x0B;  and&#65534;  chart</p></body></html>"
    assert "tide table and chart" in extract(page.encode(), content_type="text/html", url=URL, format="text").text
    assert html_tree.parse("<pre>tide&#1;\n  table</pre>").findtext(".//pre") == "tide\x01\n  table"  # kept as is


@pytest.mark.parametrize(
    "declaration",
    ['<meta charset="iso-8859-1">', '<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">',
     '<?xml version="1.0" encoding="iso-8859-1"?>', '<meta charset="utf-16">'],
)  # fmt: skip
def test_the_parser_reads_the_decoded_text_whatever_the_page_declares(declaration: str) -> None:
    page = f"<html><head>{declaration}</head><body><p>caf\u00e9 \u2014 \u0436 \U0001f600</p></body></html>"
    assert html_tree.parse(page).findtext(".//p") == "caf\u00e9 \u2014 \u0436 \U0001f600"


def test_xml_safe_utf8_is_xml_safe_encoded() -> None:
    for text in ("plain caf\u00e9", "a\x00b\x0cc\ud800d\uffff", "x\ufffe", "\x1f", "tab\tline\ncarriage\r"):
        assert xml_safe_utf8(text) == xml_safe(text).encode()


def test_a_json_ld_block_of_a_hundred_thousand_brackets_is_ignored() -> None:
    script = "<script type='application/ld+json'>" + "[" * 100_000 + "</script>"
    page = f"<html><head><title>Tides</title>{script}</head><body>{PARAGRAPH}</body></html>"
    result = extract(page.encode(), content_type="text/html", url=URL, format="json")
    assert "high and low water" in result.text


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_links_no_url_parser_takes_cost_the_link_not_the_read(fmt: str) -> None:
    head = "<title>Tides</title><link rel='canonical' href='http://[::1'>"
    body = f"{PARAGRAPH}<p>See <a href='http://[::1]x:80/'>the harbour office</a> for the tables.</p>"
    page = f"<html><head>{head}</head><body>{body}</body></html>".encode()
    result = extract(page, content_type="text/html", url=URL, format=fmt)
    assert "high and low water" in result.text and "the harbour office" in result.text
    assert result.canonical_url is None


def test_a_feed_naming_forbidden_characters_by_reference_is_still_read() -> None:
    feed = "<rss><channel><title>a &#xD800; b &#x41;</title><item><title>x &#55296; &#x1; &#9999999999; &#233;</title>"
    result = read_xml(feed + "</item></channel></rss>", "application/rss+xml", "markdown")
    assert result.extractor == "feed" and result.text.split() == ["#", "a", "b", "A", "##", "x", "é"]


def test_deep_json_is_passed_through_as_text() -> None:
    assert read_json("[" * 100_000, "application/json", "markdown").extractor == "text"
    assert read_json('{"a": [1, {"b": "[[[["}]}', "application/json", "markdown").data == {"a": [1, {"b": "[[[["}]}


def test_json_depth_counts_brackets_outside_strings_only() -> None:
    assert bounded_json.nesting_depth(r'["[[[\"[[", {"a": [1]}]', stop_after=10) == 3
    assert bounded_json.nesting_depth(r'["\\", [[1]]]', stop_after=10) == 3
    with pytest.raises(ValueError):
        bounded_json.loads("[" * 65 + "]" * 65)
    with pytest.raises(ValueError):
        bounded_json.loads('"' + "x" * 100 + '"', max_chars=50)


def test_a_feed_with_a_tag_name_lxml_refuses_is_still_read() -> None:
    feed = "<rss><channel><titlsts:>x</titlsts:><title>Tides</title><item><title>Spring</title></item></channel></rss>"
    result = read_xml(feed, "application/rss+xml", "markdown")
    assert (result.title, result.extractor) == ("Tides", "feed")


def test_a_utf16_label_on_a_utf8_body_is_ignored() -> None:
    body = "<html><body><p>héllo wörld</p></body></html>".encode()
    assert charset.decode(body, "utf-16").text == body.decode()
    assert extract(body, content_type="text/plain; charset=utf-16", url=URL, format="text").text == body.decode()
    real = "héllo".encode("utf-16-le")
    assert charset.decode(real, "utf-16").text == "héllo"


def test_nesting_past_the_parser_limit_keeps_the_rest_of_the_page() -> None:
    page = "<div>" * 300 + "<p>deep</p>" + "</div>" * 300 + "<p>after</p>"
    tree = html_tree.parse(page)
    assert html_tree.visible_text(tree) == "deep\n\nafter"
    assert max(len(list(element.iterancestors())) for element in tree.iter()) <= nesting.MAX_DEPTH + 2


def test_a_hundred_thousand_open_divs_end_in_a_typed_outcome() -> None:
    with pytest.raises(ExtractionError):
        extract(b"<div>" * 100_000, content_type="text/html", url=URL)
    result = extract(b"<div>" * 100_000 + PARAGRAPH.encode(), content_type="text/html", url=URL, format="text")
    assert "high and low water" in result.text


def test_flatten_leaves_scripts_void_and_shallow_markup_alone() -> None:
    shallow = "<div><script>if (a<b) x('<div>');</script><br><img src=x/><p>t</p></div>"
    assert nesting.flatten(shallow, max_depth=2) == shallow
    assert nesting.flatten("<b><i><u>x</u></i></b>", max_depth=2) == "<b><i> x </i></b>"


def test_any_other_exception_becomes_a_logged_extraction_error(caplog: pytest.LogCaptureFixture) -> None:
    def broken(body: bytes, *, url: str) -> str:
        raise KeyError(body)

    with caplog.at_level(logging.ERROR), pytest.raises(WebreachError) as caught:
        typed_errors(broken)(b"x", url=URL)
    assert isinstance(caught.value, ExtractionError) and caught.value.url == URL
    assert "KeyError" in caplog.text


def test_an_unterminated_string_of_escaped_quotes_is_one_linear_scan() -> None:
    text = "[" * 70 + '"' + '\\"' * 40_000  # every quote opened a scan to the end before: 17 s
    assert bounded_json.nesting_depth(text, stop_after=64) == 65  # the brackets never close: deeper than the cap
    with pytest.raises(ValueError):
        bounded_json.loads(text)


def test_a_page_of_thousands_of_scripts_is_sized_without_them() -> None:
    scripts = "<script>var x = 1;</script>" * 20_000  # libxml2's XPath took 4.6 s on such a page
    tree = html_tree.parse(f"<html><body><p>{'tide ' * 50}</p>{scripts}<svg><script>y</script></svg></body></html>")
    assert html_tree.text_size(tree) == len(" ".join(["tide"] * 50))


@pytest.mark.slow
def test_a_page_of_more_elements_than_any_real_one_is_read_lightened() -> None:
    links = "<a href='/x'><h3>harbour</h3></a>" * (html_tree.MAX_ELEMENTS // 2 + 10)
    result = extract(f"<html><body>{PARAGRAPH}{links}</body></html>".encode(), content_type="text/html", url=URL,
                     format="markdown")  # fmt: skip
    assert "high and low water" in result.text and "](" not in result.text  # the text kept, the links unwrapped
    page = f"<html><body>{PARAGRAPH}<a href='/x'>one link</a></body></html>"
    tree = html_tree.parse(page)
    assert not html_tree.lighten(tree, page) and tree.find(".//a") is not None  # an ordinary page keeps its links
    # many "<" in script text make the page counted, but its few elements still keep their links
    scripted = f"<html><body>{PARAGRAPH}<a href='/x'>one link</a><script>{'a<b;' * 60_000}</script></body></html>"
    tree = html_tree.parse(scripted)
    assert not html_tree.lighten(tree, scripted) and tree.find(".//a") is not None
