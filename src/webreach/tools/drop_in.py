"""Drop-in tool profiles: a named set of tool definitions that replaces the default tool surface, so an agent stack
written against another system's tools calls webreach unchanged (seed-contracts.md; docs/decisions.md, issue 39).

    [tools]
    profile = "serp-chat"

or per agent (`webreach agents set NAME --profile credits-server`: the agent's tool profile's "surface", so agents
of one server see different surfaces; Toolbox picks the caller's).

Every profile's tools are definitions over the native tools' plans and handlers (alias_of names the one each runs:
metering, sessions, the SSRF guard, caching and fallback are the native pipeline's). "visual-agent" is the alias
set of tools/aliases.py served alone (`alias_set` still adds it beside the native tools); "rollout-gateway"
(tools/rollout_profile.py) is contract B exactly: the same tool names, JSON indented 2 and the contract's own
error shape. A server also serves profiles at their own MCP paths (frontends/_mcp_paths.py). "images" is not another
stack's contract but the native tools with the image tools listed (the default lists the three web tools only).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import replace

from webreach.defaults import ToolProfileName
from webreach.errors import InvalidInputError
from webreach.tools.aliases import alias_tools, exposed_tools
from webreach.tools.definitions import TOOLS, ToolDefinition

__all__ = ["PROFILES", "ProfileName", "Surfaces", "profile_tools", "surface"]
ProfileName = ToolProfileName
# the image tools the "images" profile lists beside the web tools (image_upload stays hidden: callable by name)
LISTED_IMAGE_TOOLS = ("image_search", "crop_images", "reverse_image_search")


def image_profile_tools() -> tuple[ToolDefinition, ...]:
    """The native tools with the image tools listed: the "images" profile."""
    return tuple(replace(tool, opt_in=False) if tool.name in LISTED_IMAGE_TOOLS else tool for tool in TOOLS)


def _from(module: str, function: str) -> Callable[[], tuple[ToolDefinition, ...]]:
    """A profile's tools made by `function` of tools/`module`.py, imported on first use: each profile module builds
    its argument models when it loads, and a process that serves no profile (a CLI search) needs none of them."""

    def tools() -> tuple[ToolDefinition, ...]:
        made: tuple[ToolDefinition, ...] = getattr(importlib.import_module(f"webreach.tools.{module}"), function)()
        return made

    return tools


PROFILES: Mapping[str, Callable[[], tuple[ToolDefinition, ...]]] = {
    "images": image_profile_tools,
    "visual-agent": lambda: tuple(alias_tools("visual-agent")),
    "serp-chat": _from("serp_profile", "serp_tools"),
    "numeric-index": _from("index_profile", "index_tools"),
    "rollout-gateway": _from("rollout_profile", "rollout_tools"),
    "credits-server": _from("credits_profile", "credits_tools"),
    "desktop-agent": _from("desktop_profile", "desktop_tools"),
}


def profile_tools(profile: str) -> tuple[ToolDefinition, ...]:
    """The tools of `profile`; InvalidInputError naming the profiles for an unknown one."""
    if profile not in PROFILES:
        raise InvalidInputError(f"unknown tool profile {profile!r}", hint=f"Valid profiles: {', '.join(PROFILES)}.")
    return PROFILES[profile]()


def surface(enabled: Collection[str] | None, alias_set: str | None, profile: str | None) -> list[ToolDefinition]:
    """The tools a toolbox exposes: a profile's alone (those `enabled` names, when it names any), else the native
    tools with an alias set's (tools/aliases.py exposed_tools)."""
    if profile is None:
        return exposed_tools(enabled, alias_set)
    tools = profile_tools(profile)
    names = [tool.name for tool in tools]
    unknown = sorted(set(enabled or ()) - set(names))
    if unknown:
        raise InvalidInputError(
            f"unknown tool {', '.join(unknown)} in profile {profile!r}", hint=f"Valid tools: {', '.join(names)}."
        )
    return [tool for tool in tools if enabled is None or tool.name in enabled]


class Surfaces(Mapping[str, Mapping[str, ToolDefinition]]):
    """Every profile's tools by name, each profile's table built the first time it is asked for (a Toolbox holds
    one: an agent whose profile names a surface sees that surface; most processes never ask for one)."""

    def __init__(self) -> None:
        self._built: dict[str, Mapping[str, ToolDefinition]] = {}

    def __getitem__(self, name: str) -> Mapping[str, ToolDefinition]:
        built = self._built.get(name)
        if built is None:
            if name not in PROFILES:
                raise KeyError(name)
            built = self._built[name] = {tool.name: tool for tool in profile_tools(name)}
        return built

    def __contains__(self, name: object) -> bool:
        return name in PROFILES

    def __iter__(self) -> Iterator[str]:
        return iter(PROFILES)

    def __len__(self) -> int:
        return len(PROFILES)
