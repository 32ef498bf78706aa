"""Forgiving where it is safe, strict where it is not: what the tools make of an agent's arguments."""

from __future__ import annotations

import json
from typing import Any

import pytest

from webreach.errors import InvalidInputError
from webreach.tools import WebFetchArguments, WebSearchArguments, WebSearchMultiArguments
from webreach.tools.arguments import ToolArguments
from webreach.tools.pipeline import decode_arguments


@pytest.mark.parametrize("given", ["5", " 5 ", 5, 5.0])
def test_numbers_may_come_as_strings(given: Any) -> None:
    assert WebSearchArguments.parse({"query": "x", "limit": given}).limit == 5


@pytest.mark.parametrize("given", ["5.5", "five", 0, 51, [5]])
def test_bad_numbers_are_refused_naming_the_argument(given: Any) -> None:
    with pytest.raises(InvalidInputError, match="limit") as caught:
        WebSearchArguments.parse({"query": "x", "limit": given})
    assert caught.value.code == "invalid_input"


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
    assert "Valid arguments: query, engine, limit, page, site, freshness, lang, question, read_top, max_tokens." in text


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


# every argument shape the tests above use: sent as JSON text (REST, OpenAI tool calls) or as a decoded mapping
# (MCP, the CLI), they must parse alike
SHAPES: list[tuple[type[ToolArguments], dict[str, Any]]] = [
    *(
        (WebSearchArguments, {"query": "x", "limit": given})
        for given in ["5", " 5 ", 5, 5.0, "5.5", "five", 0, 51, [5]]
    ),
    (WebSearchArguments, {"query": "x", "engine": None, "limit": None, "page": None, "site": None, "lang": None}),
    (WebSearchArguments, {"query": "x", "num_results": 5}),
    *((WebSearchArguments, {"query": given}) for given in ['["a", "b", "a"]', "[not json", "[1, 2]", [], ["a"] * 6]),
    *((WebSearchArguments, {"query": "x", "freshness": given}) for given in ["Week", " d ", "24h", "decade"]),
    (WebSearchArguments, {"query": "  padded  ", "engine": " Bing ", "site": "python.org", "lang": "EN"}),
    *((WebSearchMultiArguments, {"query": "x", "engines": given}) for given in ["bing, Mojeek", '["bing"]', "", []]),
    *((WebFetchArguments, {"ref": given}) for given in [3, "3", "[3]", "#3", " [3] ", 0]),
    *((WebFetchArguments, {"ref": 1, "format": given}) for given in ["MD", "Text", "plain", "pdf"]),
    (WebFetchArguments, {"url": "https://example.org", "ref": 2}),
    (WebFetchArguments, {"url": "https://example.org", "max_chars": 50}),
]


@pytest.mark.parametrize(("model", "raw"), SHAPES)
def test_json_text_parses_exactly_as_the_decoded_arguments(model: type[ToolArguments], raw: dict[str, Any]) -> None:
    outcomes = []
    for sent in (json.dumps(raw), raw):
        try:
            outcomes.append(model.parse(decode_arguments(sent)))
        except InvalidInputError as exc:
            outcomes.append(exc.describe())
    assert outcomes[0] == outcomes[1]
