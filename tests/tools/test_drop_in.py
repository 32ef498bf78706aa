"""Drop-in profiles (tools/drop_in.py): a profile's tools replace the default surface, each running a native tool's
plan and handler; the visual-agent alias set is one of them."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from webreach import Gateway, Settings
from webreach.errors import InvalidInputError
from webreach.tools import TOOL_NAMES, Toolbox
from webreach.tools.aliases import alias_tools
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
