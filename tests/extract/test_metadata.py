"""Declared metadata: meta tags, JSON-LD, canonical links, titles, dates; malformed input never raises."""

from __future__ import annotations

import pytest

from webreach.extract.metadata import PageMetadata, iso_date, read_metadata
from webreach.extract.preparation.html_tree import parse

URL = "https://news.example/2019/11/18/ferry-strike/"


def meta(head: str, body: str = "<p>text</p>", url: str = URL) -> PageMetadata:
    return read_metadata(parse(f"<html><head>{head}</head><body>{body}</body></html>"), url)


def test_meta_tags() -> None:
    found = meta(
        '<meta property="og:title" content="Ferry strike ends"><meta name="author" content="By Ana Ruiz">'
        '<meta property="article:published_time" content="2019-11-19T08:00:00Z">'
        '<meta property="og:site_name" content="Harbour News"><meta property="og:url" content="/ferry">'
    )
    assert found == PageMetadata(
        title="Ferry strike ends",
        author="Ana Ruiz",
        date="2019-11-19",
        language=None,
        canonical_url="https://news.example/ferry",
        sitename="Harbour News",
    )


def test_json_ld_article_beats_meta_tags_for_author_and_date() -> None:
    found = meta(
        '<meta name="author" content="Desk"><meta name="date" content="2019-01-01">'
        '<script type="application/ld+json">[{"@type": "BreadcrumbList"}, {"@type": ["NewsArticle"], '
        '"headline": "Headline", "datePublished": "2019-11-18", "author": {"@type": "Person", "name": "Ana Ruiz"},'
        ' "publisher": {"name": "Harbour News"}}]</script>'
    )
    assert (found.title, found.author, found.date, found.sitename) == (
        "Headline",
        "Ana Ruiz",
        "2019-11-18",
        "Harbour News",
    )


def test_broken_json_ld_is_ignored() -> None:
    found = meta('<script type="application/ld+json">{"@type": "NewsArticle", </script><title>Fallback</title>')
    assert found.title == "Fallback"


def test_title_tag_loses_its_site_suffix() -> None:
    assert meta("<title>Ferry strike ends | Harbour News</title>").title == "Ferry strike ends"
    titled = meta(
        '<title>Ferry strike ends - Harbour News</title><meta property="og:site_name" content="Harbour News">'
    )
    assert titled.title == "Ferry strike ends"


def test_h1_when_there_is_no_title() -> None:
    assert meta("", "<h1> Ferry  strike </h1><p>x</p>").title == "Ferry strike"


def test_canonical_link_is_made_absolute() -> None:
    assert meta('<link rel="canonical" href="/ferry-strike">').canonical_url == "https://news.example/ferry-strike"
    assert meta("").canonical_url is None


def test_date_from_time_element_then_url() -> None:
    assert meta("", '<p>x</p><time datetime="2020-02-03T10:00">3 Feb</time>').date == "2020-02-03"
    assert meta("").date == "2019-11-18"
    assert meta("", url="https://news.example/ferry").date is None


def test_language_from_content_language_and_og_locale() -> None:
    assert meta('<meta http-equiv="Content-Language" content="de-DE, en">').language == "de-DE"
    assert meta('<meta property="og:locale" content="pt_BR">').language == "pt-BR"


def test_author_urls_and_handles_are_not_names() -> None:
    assert meta('<meta property="article:author" content="https://facebook.com/x">').author is None
    assert meta('<meta name="author" content="@harbour">').author is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2019-11-18T08:00:00+01:00", "2019-11-18"),
        ("20191118", "2019-11-18"),
        ("Tue, 05 Mar 2024 10:00:00 GMT", "2024-03-05"),
        ("yesterday", None),
        ("", None),
        (None, None),
        (12, None),
    ],
)
def test_iso_date(value: object, expected: str | None) -> None:
    assert iso_date(value) == expected


def test_page_metadata_is_declared_once_and_every_result_carries_it() -> None:
    from dataclasses import fields

    from webreach.extract.extracted import Extracted
    from webreach.models import METADATA_FIELDS, Page

    assert METADATA_FIELDS == ("title", "author", "date", "language", "canonical_url", "sitename")
    assert set(METADATA_FIELDS) <= {field.name for field in fields(Extracted)}
    assert set(METADATA_FIELDS) <= set(Page.model_fields)
    extracted = Extracted("text", "text/html", title="T", sitename="S")
    assert extracted.page_metadata() == PageMetadata(title="T", sitename="S")
