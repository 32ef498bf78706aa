"""Drop-in profiles (tools/drop_in.py): a profile's tools replace the default surface, each running a native tool's
plan and handler; the visual-agent alias set is one of them."""

from __future__ import annotations

import json
from typing import get_args

import pytest
from pydantic import ValidationError

from webreach import Gateway, Settings
from webreach.config import ProfileName, ToolSettings
from webreach.errors import InvalidInputError
from webreach.frontends._mcp_paths import profile_paths
from webreach.tools import TOOL_NAMES, Toolbox
from webreach.tools.aliases import alias_tools
from webreach.tools.definitions import Price
from webreach.tools.drop_in import PROFILES, profile_tools, surface


def test_every_profile_tool_runs_a_native_tool() -> None:
    for name in PROFILES:
        tools = profile_tools(name)
        assert tools and all((tool.alias_of or tool.name) in TOOL_NAMES for tool in tools)
        assert len({tool.name for tool in tools}) == len(tools)


async def test_the_images_profile_lists_the_image_tools_beside_the_web_tools() -> None:
    settings = Settings(state={"backend": "memory"}, tools={"profile": "images"})
    async with Gateway.from_settings(settings) as gateway:
        names = [schema["name"] for schema in Toolbox.over(gateway).schemas("mcp")]
    images = ["image_search", "crop_images", "reverse_image_search"]
    assert names == ["web_search", "web_search_multi", "web_fetch", *images]
    assert [tool.name for tool in surface(["image_search"], None, "images")] == ["image_search"]


def test_the_visual_agent_alias_set_is_a_profile() -> None:
    assert [tool.name for tool in profile_tools("visual-agent")] == [tool.name for tool in alias_tools("visual-agent")]
    assert {tool.name for tool in surface(None, None, "visual-agent")} == {
        tool.name for tool in alias_tools("visual-agent")
    }


def test_enabled_narrows_a_profile_and_unknown_names_are_refused() -> None:
    assert [tool.name for tool in surface(["serp_search"], None, "serp-chat")] == ["serp_search"]
    with pytest.raises(InvalidInputError, match="web_search"):
        surface(["web_search"], None, "serp-chat")
    with pytest.raises(InvalidInputError, match="Valid profiles"):
        profile_tools("nope")
    with pytest.raises(ValidationError):
        Settings(tools={"profile": "nope"})


async def test_a_profile_in_the_settings_replaces_the_toolbox_surface() -> None:
    settings = Settings(state={"backend": "memory"}, tools={"profile": "serp-chat"})
    async with Gateway.from_settings(settings) as gateway:
        tools = Toolbox.over(gateway)
        names = [schema["name"] for schema in tools.schemas("openai-responses")]
        refused = await tools.call("web_fetch", {"url": "https://example.com/"})
    assert names == ["serp_search", "serp_search_multi", "browse_url"]
    assert refused.is_error and refused.data is not None and "serp_search" in refused.data["message"]


def test_the_settings_name_every_profile() -> None:
    assert set(get_args(ProfileName)) == set(PROFILES)


def test_mcp_paths_take_the_root_or_their_own_paths_only() -> None:
    paths = {"/": "rollout-gateway", "/mcp/serp": "serp-chat", "/agents/rl/": "numeric-index"}
    expected = {"/": "rollout-gateway", "/mcp/serp": "serp-chat", "/agents/rl": "numeric-index"}  # no trailing /
    assert Settings(tools={"mcp_paths": paths}).tools.mcp_paths == expected
    taken_paths = ("/mcp", "/v1/search", "/admin", "/console/x", "/i/1", "/healthz", "mcp/x", "/a/../v1", "/./x")
    for taken in (*taken_paths, "/a b"):
        with pytest.raises(ValidationError, match="cannot serve MCP"):
            Settings(tools={"mcp_paths": {taken: "serp-chat"}})
    with pytest.raises(ValidationError):
        Settings(tools={"mcp_paths": {"/x": "nope"}})


def test_every_profile_has_its_own_path_unless_the_operator_narrowed_the_tools() -> None:
    assert profile_paths(ToolSettings()) == {f"/mcp/{name}": name for name in PROFILES}
    assert profile_paths(ToolSettings(enabled=["web_search"])) == {}  # no wider surface by a default
    assert profile_paths(ToolSettings(mcp_paths={})) == {}
    assert profile_paths(ToolSettings(mcp_paths={"/": "rollout-gateway"})) == {"/": "rollout-gateway"}


def test_the_rollout_tools_are_priced_as_their_native_tools() -> None:
    tools = {tool.name: tool for tool in profile_tools("rollout-gateway")}

    def price(name: str, arguments: dict[str, object]) -> Price:
        return tools[name].price(tools[name].prepare(tools[name].arguments.parse(arguments), ("bing",)))

    assert price("文搜文", {"query": "cats", "k": 5}) == Price(units=1, engine="auto")
    assert price("image_search_by_text", {"query": "cats", "k": 5}) == Price(units=1, engine="auto")
    assert price("crop_images_by_token", {"crop_config": {"<image_1>": [0, 0, 1, 1], "<obs_2>": [0, 0, 9, 9]}}) == (
        Price(units=2)
    )
    assert {tool.name: tool.alias_of for tool in tools.values()} == {
        "文搜文": "web_search", "web_visit": "web_fetch", "image_search_by_text": "image_search",
        "reverse_image_search": "reverse_image_search", "crop_images_by_token": "crop_images",
        "upload_file_to_cloud": "image_upload",
    }  # fmt: skip
    assert [tool.name for tool in tools.values() if tool.hidden] == ["upload_file_to_cloud"]


async def test_a_rollout_error_has_the_contracts_shape_in_every_output() -> None:
    settings = Settings(state={"backend": "memory"}, tools={"profile": "rollout-gateway"})
    async with Gateway.from_settings(settings) as gateway:
        tools = Toolbox.over(gateway)
        compact = await tools.call("文搜文", {"query": "cats"})  # k is required by the contract
        as_json = await tools.call("reverse_image_search", {"image_token": "<image_3>", "k": 1}, output="json")
    for result, tool in ((compact, "文搜文"), (as_json, "reverse_image_search")):
        assert result.is_error and result.text == json.dumps(result.data, ensure_ascii=False, indent=2)
        assert result.data is not None and set(result.data) == {"status", "tool", "message"}
        assert (result.data["status"], result.data["tool"]) == ("error", tool)
    assert compact.error is not None and compact.error.code == "invalid_input" and "k" in compact.data["message"]
    assert as_json.error is not None and as_json.error.code == "unknown_image"
