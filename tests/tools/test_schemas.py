"""Every dialect's required shape, generated from the one definition per tool, and valid JSON Schema."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from webreach.errors import InvalidInputError
from webreach.models import MAX_LIMIT, MAX_QUERY_CHARS, MAX_WINDOW_CHARS, ReadRequest
from webreach.state.sessions import MAX_REF
from webreach.tools import DIALECTS, MAX_QUERIES, TOOL_NAMES, tool_schemas
from webreach.tools.pipeline import find_tool
from webreach.tools.strict_schema import strict_problems

from .fakes import ENGINES

jsonschema = pytest.importorskip("jsonschema")


def parameters(schema: dict[str, Any]) -> dict[str, Any]:
    """The arguments schema wherever the dialect keeps it."""
    if "inputSchema" in schema:
        return dict(schema["inputSchema"])
    if "input_schema" in schema:
        return dict(schema["input_schema"])
    return dict(schema["function"]["parameters"] if "function" in schema else schema["parameters"])


def walk(node: Any) -> list[dict[str, Any]]:
    """Every dict in a schema."""
    if isinstance(node, list):
        return [found for item in node for found in walk(item)]
    if isinstance(node, dict):
        return [node, *(found for value in node.values() for found in walk(value))]
    return []


# every tool a model may be offered: the three web tools by default, the image tools one setting away
WEB_TOOLS = ["web_search", "web_search_multi", "web_fetch"]
LISTED = [*WEB_TOOLS, "image_search", "crop_images", "reverse_image_search"]


def by_name(dialect: Any, **options: Any) -> dict[str, dict[str, Any]]:
    schemas = tool_schemas(dialect, engines=ENGINES, enabled=LISTED, **options)
    return {parameters_name(s): s for s in schemas}


def parameters_name(schema: dict[str, Any]) -> str:
    return str(schema["function"]["name"] if "function" in schema else schema["name"])


def test_mcp_shape() -> None:
    for name, schema in by_name("mcp").items():
        assert set(schema) == {"name", "title", "description", "inputSchema", "annotations"}
        assert schema["inputSchema"]["type"] == "object"
        # only what differs from MCP's defaults: read-only (so destructive and idempotent mean nothing), open world
        assert schema["annotations"] == {"readOnlyHint": True}
        assert isinstance(schema["title"], str) and name in TOOL_NAMES


def test_openai_chat_completions_shape() -> None:
    for schema in by_name("openai").values():
        assert set(schema) == {"type", "function"}
        assert schema["type"] == "function"
        assert set(schema["function"]) == {"name", "description", "parameters"}
        assert schema["function"]["parameters"]["type"] == "object"


def test_openai_responses_shape_is_flat() -> None:
    for schema in by_name("openai-responses").values():
        assert set(schema) == {"type", "name", "description", "parameters", "strict"}
        assert schema["type"] == "function" and schema["strict"] is False


def test_anthropic_shape() -> None:
    for schema in by_name("anthropic").values():
        assert set(schema) == {"name", "description", "input_schema"}
        assert schema["input_schema"]["type"] == "object"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_dialect_lists_every_tool_with_valid_self_contained_schemas(dialect: Any) -> None:
    # the default lists the three web tools; the image tools, and the hidden image_upload, once enabled by name
    assert [parameters_name(s) for s in tool_schemas(dialect, engines=ENGINES)] == WEB_TOOLS
    schemas = tool_schemas(dialect, engines=ENGINES, enabled=LISTED)
    assert [parameters_name(s) for s in schemas] == [name for name in TOOL_NAMES if name != "image_upload"]
    schemas += tool_schemas(dialect, engines=ENGINES, enabled=["image_upload"])
    for schema in schemas:
        assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", parameters_name(schema))
        description = schema.get("description") or schema["function"]["description"]
        assert 100 < len(description) < 1024
        args = parameters(schema)
        jsonschema.Draft202012Validator.check_schema(args)
        assert args["additionalProperties"] is False
        assert all("$ref" not in node and "$defs" not in node and "title" not in node for node in walk(args))
        assert all("description" in prop for prop in args["properties"].values())
        json.dumps(schema)  # plain JSON, nothing pydantic-specific left


@pytest.mark.parametrize("dialect", DIALECTS)
def test_schemas_accept_good_arguments_and_reject_bad_ones(dialect: Any) -> None:
    validators = {name: jsonschema.Draft202012Validator(parameters(s)) for name, s in by_name(dialect).items()}
    good = {
        "web_search": [
            {"query": "rust"},
            {"query": ["a", "b"], "engine": "bing", "limit": 3, "freshness": "week"},
            {"query": "rust", "limit": 5, "page": 2},
        ],
        "web_search_multi": [{"query": "rust", "engines": ["bing", "mojeek"]}],
        "web_fetch": [
            {"ref": 3},
            {"url": "https://example.org", "start": 8000, "format": "text"},
            {"ref": 3, "max_chars": 2000, "start": 0},
        ],
        "image_search": [{"query": "red panda"}, {"query": "red panda", "limit": 50, "safesearch": "strict"}],
        "crop_images": [
            {"crops": [{"image": "<image_1>", "box": [0, 0, 0.5, 0.5]}]},
            {"crops": [{"image": "<obs_2>", "box": [1, 2, 30, 40]}], "units": "pixels"},
            {"crops": [{"image": "<obs_2>", "box": [1, 2, 30.5, 40]}], "messages": [{"role": "user", "content": "hi"}]},
        ],
        "reverse_image_search": [{"image": "<image_1>"}, {"image": "https://x.example/a.png", "backend": "tineye"}],
    }
    bad = {
        "web_search": [
            {},
            {"query": "x", "limit": MAX_LIMIT + 1},
            {"query": "x", "limit": 5.5},
            {"query": "x", "limit": True},
            {"query": ["a", "b", "c", "d", "e", "f"]},
        ],
        "web_search_multi": [{"query": "x", "engines": "bing"}, {"query": "x", "extra": 1}],
        "web_fetch": [{"ref": 0}, {"ref": 1, "max_chars": MAX_WINDOW_CHARS + 1}],
        "image_search": [{}, {"query": "x", "limit": 51}],
        "crop_images": [
            {},
            {"crops": [{"image": "<image_1>", "box": [0, 0, 1]}]},
            {"crops": [{"image": "image_1", "box": [0, 0, 1, 1]}]},
            {"crops": [{"image": "<image_1>", "box": [0, 0, "inf", 1]}]},
            {"crops": {"<image_1>": [0, 0, 1, 1]}},  # the map form is still taken, but no longer published
            {"crops": [{"image": "<image_1>", "box": [0, 0, 1, 1]}], "messages": [{"role": "user"}]},
        ],
        "reverse_image_search": [{}, {"image": "<image_1>", "limit": 51}, {"image": "x", "backend": "altavista"}],
    }
    for name, validator in validators.items():
        assert all(validator.is_valid(args) for args in good[name]), name
        assert not any(validator.is_valid(args) for args in bad[name]), name


def branch(prop: dict[str, Any]) -> dict[str, Any]:
    """An optional property's non-null branch (the property itself when it is required); of a number that may be
    sent as text, its number branch."""
    if isinstance(prop.get("type"), list):
        found = {**prop, "type": next(kind for kind in prop["type"] if kind != "null")}
        return found | ({"enum": [v for v in prop["enum"] if v is not None]} if "enum" in prop else {})
    rest = [b for b in prop.get("anyOf", [prop]) if b != {"type": "null"}]
    numbers = [b for b in rest if b.get("type") in ("integer", "number")]
    (found,) = numbers if numbers and len(rest) == 2 else rest
    return dict(found)


def test_limits_and_descriptions_come_from_the_request_models() -> None:
    for exact in (False, True):
        search = parameters(by_name("mcp", exact=exact)["web_search"])["properties"]
        assert branch(search["limit"])["maximum"] == MAX_LIMIT
        assert search["limit"]["default"] == 8
        assert search["query"]["anyOf"][1]["maxItems"] == MAX_QUERIES
        fetch = parameters(by_name("mcp", exact=exact)["web_fetch"])["properties"]
        assert branch(fetch["max_chars"])["maximum"] == MAX_WINDOW_CHARS
        assert fetch["url"]["description"] == ReadRequest.model_fields["url"].description
        assert branch(fetch["format"])["enum"] == ["markdown", "text", "html", "json"]
    # what the lean schemas leave to the tools' checks, the exact ones (the OpenAPI document's) state
    exact_search = parameters(by_name("mcp", exact=True)["web_search"])["properties"]
    assert exact_search["query"]["anyOf"][0]["maxLength"] == MAX_QUERY_CHARS
    assert "pattern" in exact_search["site"]
    exact_fetch = parameters(by_name("mcp", exact=True)["web_fetch"])["properties"]
    assert (branch(exact_fetch["ref"])["minimum"], branch(exact_fetch["ref"])["maximum"]) == (1, MAX_REF)
    assert {"max_tokens", "passage"} <= set(exact_fetch)


# (tool, arguments that make the call valid, the numeric argument tried)
NUMERIC = [
    ("web_search", {"query": "x"}, "limit"),
    ("web_search", {"query": "x"}, "page"),
    ("web_search_multi", {"query": "x"}, "limit"),
    ("web_fetch", {"url": "https://example.org"}, "start"),
    ("web_fetch", {"url": "https://example.org"}, "max_chars"),
    ("web_fetch", {}, "ref"),
    ("image_search", {"query": "x"}, "limit"),
    ("reverse_image_search", {"image": "<image_1>"}, "limit"),
]
NUMBER_TRIES: list[Any] = [
    "5", " 5 ", "05", "+5", "-5", "5.0", "5.5", "1e1", "", " ", "five", "0x5", "٥", "1_0", "[3]", "#3", " [ 3 ] ",
    "100", "200000", "200001", "50", "51", "10", "11", "0", "2147483647", "2147483648", "99999999999999999999",
    5, 0, 50, 51, 100, 5.0, 5.5, -1, True, False, 2**31, 2**63,
]  # fmt: skip
COORDINATE_TRIES: list[Any] = [
    "0.5", "1", "-1", "1e3", "1E+2", "0", "-0", ".5", "1.", "+1", " 1", "inf", "nan", "Infinity", "0x1", "1_0", "",
    "-0.485421473E3973379890", "1" * 400, "123456789012345.25", "1234567890123456",
    0.5, 1, -3, True,
]  # fmt: skip


def _accepted(tool: str, arguments: dict[str, Any]) -> bool:
    try:
        find_tool(tool).arguments.parse(arguments)
    except InvalidInputError:
        return False
    return True


@pytest.mark.parametrize("dialect", DIALECTS)
def test_exact_schemas_take_exactly_the_numbers_and_number_strings_the_tools_take(dialect: Any) -> None:
    # forgiving coercion ("limit": "5") is by design: the exact schemas (the OpenAPI document's) say so, and say
    # nothing more
    schemas = by_name(dialect, exact=True)
    for tool, call, name in NUMERIC:
        validator = jsonschema.Draft202012Validator(parameters(schemas[tool]))
        for value in NUMBER_TRIES:
            arguments = {**call, name: value}
            assert validator.is_valid(arguments) == _accepted(tool, arguments), (tool, name, value)
    crop = jsonschema.Draft202012Validator(parameters(schemas["crop_images"]))
    for value in COORDINATE_TRIES:
        arguments = {"crops": [{"image": "<image_1>", "box": [0, 0, value, 1]}]}
        assert crop.is_valid(arguments) == _accepted("crop_images", arguments), value


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("dialect", DIALECTS)
def test_lean_schemas_take_the_numbers_the_tools_take(dialect: Any, strict: bool) -> None:
    """The model-facing schemas state numbers as numbers (the tools still take "5"): every number they pass the
    tools take, and without strict mode (which moves ranges into descriptions) the other way round too."""
    schemas = by_name(dialect, strict=strict)
    for tool, call, name in NUMERIC:
        validator = jsonschema.Draft202012Validator(parameters(schemas[tool]))
        blank = dict.fromkeys(parameters(schemas[tool])["properties"]) if strict else {}
        for value in NUMBER_TRIES:
            arguments = {**blank, **call, name: value}
            if isinstance(value, str):
                assert not validator.is_valid(arguments), (tool, name, value)
                continue
            taken = _accepted(tool, arguments)
            # strict mode states ranges in words; a ref's bound (2**31 - 1) is no practical one, so left to the tool
            loose = strict or (name == "ref" and isinstance(value, int) and value >= 2**31)
            assert validator.is_valid(arguments) == taken or (loose and not taken), (tool, name, value)


def test_engine_enums_come_from_the_backend() -> None:
    search = parameters(by_name("anthropic", exact=True)["web_search"])["properties"]
    assert branch(search["engine"])["enum"] == ["auto", *ENGINES]
    assert search["engine"]["default"] == "auto"
    multi = parameters(by_name("anthropic", exact=True)["web_search_multi"])["properties"]
    assert branch(multi["engines"])["items"]["enum"] == list(ENGINES)
    # the model-facing schemas leave the names out (an unknown engine is answered with the list)
    lean = parameters(by_name("anthropic")["web_search"])["properties"]
    assert "enum" not in lean["engine"] and lean["engine"]["default"] == "auto"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_optional_arguments_are_nullable(dialect: Any) -> None:
    """A client's own strict converter (openai-agents) makes every property required: null must stay possible."""
    for name, schema in by_name(dialect).items():
        args = parameters(schema)
        validator = jsonschema.Draft202012Validator(args)
        optional = [key for key in args["properties"] if key not in args.get("required", ())]
        for key in optional:
            prop = args["properties"][key]
            assert {"type": "null"} in prop.get("anyOf", []) or "null" in prop.get("type", []), (name, key)
        everything_null = dict.fromkeys(optional)
        calls = {
            "web_search": {**everything_null, "query": "rust"},
            "web_search_multi": {**everything_null, "query": "rust"},
            "web_fetch": {**everything_null, "ref": 1},
            "image_search": {**everything_null, "query": "rust"},
            "crop_images": {**everything_null, "crops": [{"image": "<image_1>", "box": [0, 0, 1, 1]}]},
            "reverse_image_search": {**everything_null, "image": "<image_1>"},
            "image_upload": {**everything_null, "image": "https://x.example/a.png"},
        }
        assert validator.is_valid(calls[name]), name


@pytest.mark.parametrize("dialect", DIALECTS)
def test_strict_mode_in_every_dialect(dialect: Any) -> None:
    unsupported = {"default", "minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems"}
    for name, schema in by_name(dialect, strict=True).items():
        function = schema.get("function", schema)
        # MCP tools have no strict flag; the others say the schema is strict
        assert function.get("strict") is (None if dialect == "mcp" else True)
        args = parameters(schema)
        jsonschema.Draft202012Validator.check_schema(args)
        assert args["required"] == list(args["properties"])
        assert args["additionalProperties"] is False
        assert not any(unsupported & set(node) for node in walk(args)), name
        assert strict_problems(args) == [], name
        everything_null = {key: None for key in args["properties"]}
        first = next(iter(args["properties"]))
        if name not in ("web_fetch", "crop_images"):  # url or ref; crops is a mapping
            assert jsonschema.Draft202012Validator(args).is_valid({**everything_null, first: "rust"})
    limit = parameters(by_name(dialect, strict=True)["web_search"])["properties"]["limit"]
    assert f"1 to {MAX_LIMIT}" in limit["description"] and "default 8" in limit["description"]


def test_enabled_selects_tools_in_registry_order() -> None:
    schemas = tool_schemas("mcp", engines=ENGINES, enabled={"web_fetch", "web_search"})
    assert [s["name"] for s in schemas] == ["web_search", "web_fetch"]
    with pytest.raises(InvalidInputError, match="web_browse"):
        tool_schemas("mcp", engines=ENGINES, enabled=["web_browse"])


def test_unknown_dialect_is_refused() -> None:
    with pytest.raises(ValueError, match="gemini"):
        tool_schemas("gemini", engines=ENGINES)  # type: ignore[arg-type]
