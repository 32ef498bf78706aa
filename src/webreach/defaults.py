"""The defaults and limits a door shows before anything else loads: `webreach --help` prints them without importing
pydantic, the models or the search service. models.py enforces the request limits, tools/ builds each tool's `limit`
field from TOOL_LIMITS, search/canary.py sends the query.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, get_args


@dataclass(frozen=True)
class ResultLimit:
    """How many results a search returns: `default` when the call gives no `limit`, and at most `maximum`."""

    default: int
    maximum: int

    def field(self, description: str) -> Any:
        """The `limit` field these bounds describe (a tool argument, a request): its default, range and schema."""
        from pydantic import Field  # here, so `--help` (which reads the numbers only) never loads pydantic

        return Field(self.default, ge=1, le=self.maximum, description=description)


# The `limit` of every tool that takes one, defined here only: each tool's argument model (so every door, MCP, REST,
# the CLI and the OpenAI / Anthropic schemas), the reverse-image service's check and the README's table are built
# from it. Agents get fewer web results by default than people (DEFAULT_LIMIT): each result costs context tokens.
TOOL_LIMITS: Mapping[str, ResultLimit] = MappingProxyType(
    {
        "web_search": ResultLimit(default=8, maximum=50),
        "web_search_multi": ResultLimit(default=8, maximum=50),
        "image_search": ResultLimit(default=10, maximum=50),
        "reverse_image_search": ResultLimit(default=10, maximum=50),
    }
)
# the most results one SearchRequest (web or images) asks for: every searching tool's maximum fits in it
MAX_LIMIT = max(TOOL_LIMITS[tool].maximum for tool in ("web_search", "web_search_multi", "image_search"))
# results a person or program gets by default: the library's SearchRequest and the CLI's `webreach search -n`
DEFAULT_LIMIT = 10
MAX_PAGE = 10
DEFAULT_MAX_CHARS = 8000
# tool arguments are flat objects whose values are at most lists of strings (depth 3); deeper JSON is never valid,
# and refusing it before decoding keeps a nesting bomb from reaching a recursive decoder (tools/arguments.py checks
# it; the MCP stdio door's line filter, frontends/_mcp_lines.py, bounds whole messages by it before the tools load)
MAX_JSON_DEPTH = 16
# the most crops one crop_images call (or Images.crop) makes: the tool's schema and the images service check it
MAX_CROPS = 20
# the fixed query of `webreach canary` and the canary checks
CANARY_QUERY = "python programming language"


# the drop-in tool profiles (tools/drop_in.py), named here so accounts/ can check an agent's without importing tools/
# and `webreach agents set --profile` offers them without loading pydantic
ToolProfileName = Literal[
    "images", "visual-agent", "serp-chat", "numeric-index", "rollout-gateway", "credits-server", "desktop-agent"
]
TOOL_PROFILES: tuple[str, ...] = get_args(ToolProfileName)
