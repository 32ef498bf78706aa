"""Text, JSON and XML bodies passed through; feeds listed; binaries refused with their type and size."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webreach.errors import UnsupportedContentError
from webreach.extract.cascade import extract

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
URL = "https://notes.example/data"


def test_plain_text_passes_through_with_unix_newlines() -> None:
    result = extract(b"line one\r\nline two\rline three\x00", content_type="text/plain", url=URL)
    assert (result.text, result.extractor, result.content_type) == (
        "line one\nline two\nline three",
        "text",
        "text/plain",
    )


def test_plain_text_as_html_is_escaped() -> None:
    result = extract(b"a < b\n\nnext <script>", content_type="text/plain", url=URL, format="html")
    assert "<p>a &lt; b</p>" in result.text and "<p>next &lt;script&gt;</p>" in result.text


def test_json_is_pretty_printed() -> None:
    result = extract(b'{"name":"\\u00e9t\\u00e9","tides":[1,2]}', content_type="application/json", url=URL)
    assert result.text == '{\n  "name": "été",\n  "tides": [\n    1,\n    2\n  ]\n}'
    assert result.extractor == "json"


def test_json_format_embeds_the_parsed_value() -> None:
    result = extract(b'{"tides": [1, 2]}', content_type="application/json", url=URL, format="json")
    assert json.loads(result.text)["content"] == {"tides": [1, 2]}


def test_invalid_json_is_passed_through_as_text() -> None:
    result = extract(b"{not json", content_type="application/json", url=URL)
    assert (result.text, result.extractor) == ("{not json", "text")


def test_rss_feed_becomes_a_list_of_items() -> None:
    body = (PAGES / "feed.rss").read_bytes()
    result = extract(body, content_type="application/rss+xml", url=URL)
    assert result.title == "Coastal Notes"
    assert result.extractor == "feed"
    assert result.text.startswith("# Coastal Notes\n\nGuides for walking the coast safely.")
    assert "## [Reading the tide tables](https://notes.example/guides/tide-tables)\n2024-03-05\n\n" in result.text
    assert "How to read a tide table before a coastal walk." in result.text  # HTML in the description flattened
    assert "## [Rock pools at low water](https://notes.example/guides/rock-pools)\n2024-02-20" in result.text


def test_rss_feed_as_text_has_no_markdown() -> None:
    text = extract((PAGES / "feed.rss").read_bytes(), content_type="text/xml", url=URL, format="text").text
    assert "Reading the tide tables\nhttps://notes.example/guides/tide-tables\n2024-03-05" in text
    assert "#" not in text and "](" not in text


def test_atom_feed_uses_the_alternate_link() -> None:
    result = extract((PAGES / "feed.atom").read_bytes(), content_type=None, url=URL, format="json")
    document = json.loads(result.text)
    assert document["title"] == "Harbour News"
    assert document["content"]["items"] == [
        {
            "title": "Ferry strike ends",
            "link": "https://harbour.example/ferry-strike-ends",
            "date": "2024-03-06",
            "summary": "Crews returned to work on Monday.",
        }
    ]


def test_other_xml_passes_through() -> None:
    body = b'<?xml version="1.0"?><config><tide level="low"/></config>'
    result = extract(body, content_type="application/xml", url=URL)
    assert (result.text, result.extractor) == ('<?xml version="1.0"?><config><tide level="low"/></config>', "xml")


def test_xml_entities_are_not_expanded() -> None:
    body = (
        b'<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
        b"<rss><channel><title>&xxe;</title><item><title>t</title></item></channel></rss>"
    )
    result = extract(body, content_type="application/rss+xml", url=URL)
    assert "root:" not in result.text


@pytest.mark.parametrize(
    ("body", "content_type", "media"),
    [
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 100, "image/png", "image/png"),
        (b"\xff\xd8\xff\xe0" + b"\x00" * 100, "text/html", "image/jpeg"),
        (b"PK\x03\x04" + b"\x00" * 100, None, "application/zip"),
        (b"\x00\x01\x02" * 40, "application/octet-stream", "application/octet-stream"),
    ],
)
def test_binaries_are_refused_with_type_and_size(body: bytes, content_type: str | None, media: str) -> None:
    with pytest.raises(UnsupportedContentError) as caught:
        extract(body, content_type=content_type, url=URL)
    error = caught.value
    assert (error.code, error.content_type, error.size, error.url) == ("unsupported_content", media, len(body), URL)
    assert media in str(error) and f"{len(body):,} bytes" in str(error)
    assert error.to_dict()["code"] == "unsupported_content"
