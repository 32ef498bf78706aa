"""Per-agent tool profiles: which tools an agent sees and how its calls are shaped.

A profile (set per agent: `webreach agents set NAME --tools ... --max-results N --max-chars N`) may hold
`tools` (the tools shown and callable), `default_results` / `max_results` (web_search and web_search_multi
`limit` when the agent gives none / at most) and `default_chars` / `max_chars` (web_fetch's window). A cap lowers
what the agent asked for rather than refusing it: the agent still gets an answer, shaped as its operator wants.
A profile's default above the argument's own maximum (models.TOOL_LIMITS for `limit`) is lowered to that maximum.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from annotated_types import Le

from webreach.tools.arguments import ToolArguments

# argument -> (profile default key, profile cap key)
SHAPED = {"limit": ("default_results", "max_results"), "max_chars": ("default_chars", "max_chars")}
PROFILE_NUMBERS = tuple(key for pair in SHAPED.values() for key in pair)


def shaped(arguments: ToolArguments, profile: Mapping[str, Any], given: Collection[str]) -> ToolArguments:
    """`arguments` with the profile's defaults (for arguments not `given`) and caps applied."""
    update: dict[str, int] = {}
    for name, (default_key, cap_key) in SHAPED.items():
        field = type(arguments).model_fields.get(name)
        if field is None:
            continue
        value = getattr(arguments, name)
        if name not in given and profile.get(default_key) is not None:
            value = int(profile[default_key])
            highest = [item.le for item in field.metadata if isinstance(item, Le) and isinstance(item.le, int)]
            value = min([value, *highest])
        if profile.get(cap_key) is not None:
            value = min(value, int(profile[cap_key]))
        if value != getattr(arguments, name):
            update[name] = value
    return arguments.model_copy(update=update) if update else arguments
