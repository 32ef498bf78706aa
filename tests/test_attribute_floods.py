"""attribute_floods.tame_attributes: start tags of more than MAX_TAG_ATTRIBUTES attributes keep their first ones;
everything else, and every ordinary page, passes untouched."""

from __future__ import annotations

import re
from pathlib import Path

import httpx

from webreach.attribute_floods import MAX_TAG_ATTRIBUTES, tame_attributes
from webreach.engines import create
from webreach.engines._html import parse_html
from webreach.extract.cascade import extract


def flood(count: int, unit: str = "a{i}=x", separator: str = " ", close: str = ">") -> str:
    attributes = separator.join(unit.format(i=i) for i in range(count))
    return f"<html><body><div {attributes}{close}Flooded</div><p><a href='/next'>After</a></p></body></html>"


def kept_attributes(markup: str) -> int:
    return len(re.findall(r"\ba\d+", markup))


def test_a_flooded_tag_keeps_its_first_attributes_and_its_text() -> None:
    tamed = tame_attributes(flood(200_000))
    assert kept_attributes(tamed) == MAX_TAG_ATTRIBUTES
    assert tamed.endswith(">Flooded</div><p><a href='/next'>After</a></p></body></html>")


def test_floods_without_spaces_are_cut_as_a_tokenizer_reads_them() -> None:
    for unit, separator in (('a{i}="<b"', ""), ("a{i}", "/"), ("<a{i}", " ")):
        tamed = tame_attributes(flood(20_000, unit, separator))
        assert kept_attributes(tamed) == MAX_TAG_ATTRIBUTES, unit
        assert tamed.endswith(">Flooded</div><p><a href='/next'>After</a></p></body></html>")


def test_a_self_closed_flood_stays_self_closed() -> None:
    assert tame_attributes(flood(5_000, close="/>")).count("/>") == 1


def test_ordinary_markup_is_returned_as_it_is() -> None:
    page = flood(MAX_TAG_ATTRIBUTES)  # at the cap, not over it
    assert tame_attributes(page) is page
    # a script whose code looks like a tag of many attributes is text to both parsers: left alone
    script = "<html><body><script>for(i=0;i<n; " + " ".join(f"x{i}" for i in range(5_000)) + "</script><p>Hi</p>"
    assert tame_attributes(script) == script


def test_the_extractor_and_the_engine_parser_read_past_a_flood() -> None:
    page = flood(200_000)
    assert "After" in extract(page.encode(), content_type="text/html", url="https://t.example/", format="text").text
    link = parse_html(page).css_first("a")
    assert link is not None and link.attributes["href"] == "/next"


def test_an_engine_reads_a_real_result_page_whatever_flood_it_carries(shared_data: Path) -> None:
    page = (shared_data / "serp" / "bing" / "celina__bing.html").read_text(errors="replace")
    flooded = page.replace("<body", "<body " + " ".join(f"a{i}=x" for i in range(200_000)), 1)
    engine = create("bing")
    request = httpx.Request("GET", engine.url("/search"))

    def hits(markup: str) -> list[str]:
        answer = httpx.Response(200, headers={"content-type": "text/html"}, content=markup.encode(), request=request)
        return [hit.url for hit in engine.parse(answer)]

    assert hits(flooded) == hits(page) != []
