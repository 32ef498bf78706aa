"""Forgiving where it is safe, strict where it is not: what the tools make of an agent's arguments."""

from __future__ import annotations

from typing import Any

import pytest

from webreach.errors import InvalidInputError
from webreach.tools import WebFetchArguments, WebSearchArguments, WebSearchMultiArguments


@pytest.mark.parametrize("given", ["5", " 5 ", 5, 5.0])
def test_numbers_may_come_as_strings(given: Any) -> None:
    assert WebSearchArguments.parse({"query": "x", "limit": given}).limit == 5


@pytest.mark.parametrize("given", ["5.5", "five", 0, 51, [5]])
def test_bad_numbers_are_refused_naming_the_argument(given: Any) -> None:
    with pytest.raises(InvalidInputError, match="limit") as caught:
        WebSearchArguments.parse({"query": "x", "limit": given})
    assert caught.value.error_code == "invalid_input"


def test_null_means_the_default() -> None:
    args = WebSearchArguments.parse(
        {"query": "x", "engine": None, "limit": None, "page": None, "site": None, "freshness": None, "lang": None}
    )
    assert (args.engine, args.limit, args.page, args.site) == ("auto", 8, 1, None)


def test_unknown_argument_names_are_named_with_the_valid_ones() -> None:
    with pytest.raises(InvalidInputError) as caught:
        WebSearchArguments.parse({"query": "x", "num_results": 5, "country": "us"})
    text = str(caught.value)
    assert "'country', 'num_results'" in text
    assert "Valid arguments: query, engine, limit, page, site, freshness, lang." in text


def test_a_query_list_may_come_as_json_text() -> None:
    assert WebSearchArguments.parse({"query": '["a", "b", "a"]'}).queries() == ["a", "b"]
    assert WebSearchArguments.parse({"query": "[not json"}).queries() == ["[not json"]
    assert WebSearchArguments.parse({"query": "[1, 2]"}).queries() == ["[1, 2]"]


def test_query_lists_are_bounded() -> None:
    assert len(WebSearchArguments.parse({"query": list("abcde")}).queries()) == 5
    with pytest.raises(InvalidInputError, match="query"):
        WebSearchArguments.parse({"query": list("abcdef")})
    with pytest.raises(InvalidInputError, match="query"):
        WebSearchArguments.parse({"query": []})
    with pytest.raises(InvalidInputError, match="query"):
        WebSearchArguments.parse({"query": "x" * 501})


@pytest.mark.parametrize(("given", "expected"), [("Week", "week"), (" d ", "day"), ("24h", "day"), ("y", "year")])
def test_freshness_is_case_and_shorthand_tolerant(given: str, expected: str) -> None:
    assert WebSearchArguments.parse({"query": "x", "freshness": given}).freshness == expected


def test_unknown_freshness_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="freshness"):
        WebSearchArguments.parse({"query": "x", "freshness": "decade"})


def test_engine_names_are_normalised() -> None:
    assert WebSearchArguments.parse({"query": "x", "engine": " Bing "}).engine == "bing"


@pytest.mark.parametrize(
    ("given", "expected"),
    [("bing, Mojeek", ["bing", "mojeek"]), ("bing mojeek", ["bing", "mojeek"]), ('["bing"]', ["bing"]), ("", None)],
)
def test_engine_lists_may_come_as_text(given: str, expected: list[str] | None) -> None:
    assert WebSearchMultiArguments.parse({"query": "x", "engines": given}).engines == expected


@pytest.mark.parametrize("given", [3, "3", "[3]", "#3", " [3] "])
def test_refs_may_come_as_shown(given: Any) -> None:
    assert WebFetchArguments.parse({"ref": given}).ref == 3


@pytest.mark.parametrize(("given", "expected"), [("MD", "markdown"), ("Text", "text"), ("plain", "text")])
def test_formats_are_tolerant(given: str, expected: str) -> None:
    assert WebFetchArguments.parse({"ref": 1, "format": given}).format == expected


@pytest.mark.parametrize("given", [{}, {"url": "https://example.org", "ref": 2}, {"start": 10}])
def test_fetch_needs_exactly_one_of_url_and_ref(given: dict[str, Any]) -> None:
    with pytest.raises(InvalidInputError, match="exactly one of url or ref"):
        WebFetchArguments.parse(given)


def test_fetch_window_limits_come_from_read_request() -> None:
    with pytest.raises(InvalidInputError, match="max_chars"):
        WebFetchArguments.parse({"ref": 1, "max_chars": 50})
    with pytest.raises(InvalidInputError, match="ref"):
        WebFetchArguments.parse({"ref": 0})
