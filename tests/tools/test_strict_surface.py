"""The tool surface a model is offered (issue 41, deliver 2): the three web tools by default, in at most 900 o200k
tokens, and every tool any surface offers in OpenAI's strict shape, never claimed strict when it is not.

The real converter (openai-agents) runs in tests/frontends/test_strict_conversion.py; here are the rules it and
OpenAI's strict mode hold a schema to (tools/strict_schema.py), checked on every tool of every surface.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import Field

from webreach import Gateway, Settings, engines
from webreach.tools import DIALECTS, ToolArguments, Toolbox, tool_schemas
from webreach.tools.definitions import ToolDefinition, as_given
from webreach.tools.drop_in import PROFILES, surface
from webreach.tools.strict_schema import strict_problems

# bpe-openai loads its vocabulary with importlib.resources.open_binary, deprecated since Python 3.11
pytestmark = pytest.mark.filterwarnings("ignore:open_binary is deprecated:DeprecationWarning")

WEB_TOOLS = ["web_search", "web_search_multi", "web_fetch"]
BUDGET = 900  # o200k tokens for the three web tools' definitions together


def offered_tools() -> dict[str, ToolDefinition]:
    """Every tool of every surface (the default, the alias set, every profile), hidden ones included, by name and
    surface (an alias may share a native tool's name)."""
    found: dict[str, ToolDefinition] = {}
    surfaces = [(None, None), ("visual-agent", None), *((None, profile) for profile in PROFILES)]
    for alias_set, profile in surfaces:
        for tool in surface(None, alias_set, profile):
            found[f"{profile or alias_set or 'default'}:{tool.name}"] = tool
    return found


def test_the_default_surface_is_the_three_web_tools_within_the_token_budget() -> None:
    from bpe_openai import get_encoding

    count = get_encoding("o200k_base").encode
    names = engines.names()  # every engine in the registry: the worst case for any engine list
    for dialect in DIALECTS:
        schemas = tool_schemas(dialect, engines=names)
        assert [schema.get("function", schema)["name"] for schema in schemas] == WEB_TOOLS
        # as MCP and the provider APIs send them: compact JSON, UTF-8
        tokens = sum(len(count(json.dumps(schema, separators=(",", ":"), ensure_ascii=False))) for schema in schemas)
        assert tokens <= BUDGET, (dialect, tokens)
    # still telling the model when to use each, and how they connect
    described = {schema["name"]: schema["description"] for schema in tool_schemas("mcp", engines=names)}
    assert "current facts" in described["web_search"] and "web_fetch(ref=N)" in described["web_search"]
    assert "coverage matters" in described["web_search_multi"]
    assert "web_fetch(ref=3)" in described["web_fetch"] and "untrusted" in described["web_fetch"]


async def test_a_gateway_offers_the_web_tools_and_the_image_tools_one_setting_away() -> None:
    async with Gateway.from_settings(Settings(state={"backend": "memory"})) as gateway:
        default = [schema["name"] for schema in Toolbox.over(gateway).schemas("mcp")]
        # the image tools are not listed, but a name still reaches them (the CLI's `webreach image ...`)
        crops = [{"image": "<image_9>", "box": [0, 0, 1, 1]}]
        unlisted = await Toolbox.over(gateway).call("crop_images", {"crops": crops})
    settings = Settings(state={"backend": "memory"}, tools={"enabled": [*WEB_TOOLS, "image_search"]})
    async with Gateway.from_settings(settings) as gateway:
        enabled = [schema["name"] for schema in Toolbox.over(gateway).schemas("mcp")]
    assert default == WEB_TOOLS
    assert unlisted.error is not None and unlisted.error.code == "unknown_image"
    assert enabled == [*WEB_TOOLS, "image_search"]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_offered_tool_has_a_strict_shape_and_says_so(dialect: Any) -> None:
    for key, tool in offered_tools().items():
        (schema,) = tool_schemas(dialect, engines=engines.names(), strict=True, tools=[tool])
        function = schema.get("function", schema)
        parameters = function.get("parameters") or schema.get("input_schema") or schema.get("inputSchema")
        assert strict_problems(parameters) == [], key
        assert function.get("strict") is (None if dialect == "mcp" else True), key


class FreeMap(ToolArguments):
    """A tool whose arguments no strict schema can state: a map with free keys."""

    weights: dict[str, int] = Field(description="Any names, each with a weight.")


async def _unused(call: Any, plan: Any) -> Any:
    raise AssertionError("schemas only")


def test_a_schema_strict_mode_would_refuse_is_never_claimed_strict() -> None:
    tool = ToolDefinition(
        name="weigh", title="Weigh", description="Weigh things.", arguments=FreeMap, handler=_unused, prepare=as_given
    )
    for dialect in ("openai", "openai-responses", "anthropic"):
        (schema,) = tool_schemas(dialect, engines=[], strict=True, tools=[tool])
        function = schema.get("function", schema)
        assert function["strict"] is False, dialect
        parameters = function.get("parameters") or schema["input_schema"]
        assert parameters["properties"]["weights"]["additionalProperties"] == {"type": "integer"}
    assert any("additionalProperties" in problem for problem in strict_problems({"type": "object", **parameters}))


def test_crops_are_taken_as_the_published_list_and_as_the_older_map() -> None:
    from webreach.errors import InvalidInputError
    from webreach.tools.image_tools import CropImagesArguments

    box = [0, 0, 0.5, 0.5]
    listed = CropImagesArguments.parse(
        {"crops": [{"image": "<image_1>", "box": box}, {"image": "<obs_2>", "box": box}]}
    )
    mapped = CropImagesArguments.parse({"crops": {"<image_1>": box, "<obs_2>": box}})
    assert listed.crops == mapped.crops == {"<image_1>": box, "<obs_2>": box}
    twice = CropImagesArguments.parse({"crops": [{"image": "<image_1>", "box": box}] * 2})  # the same crop: one
    assert twice.crops == {"<image_1>": box}
    with pytest.raises(InvalidInputError, match="two boxes"):
        CropImagesArguments.parse(
            {"crops": [{"image": "<image_1>", "box": box}, {"image": "<image_1>", "box": [0] * 4}]}
        )
    with pytest.raises(InvalidInputError, match='"image": "<image_1>", "box"'):
        CropImagesArguments.parse({"crops": [["<image_1>", box]]})
