"""Tool schemas for every dialect, generated from the one definition of each tool (tools/definitions.py).

- mcp:              {name, title, description, inputSchema, annotations{readOnlyHint, openWorldHint, ...}}
- openai:           Chat Completions {"type": "function", "function": {name, description, parameters[, strict]}}
- openai-responses: Responses API, flat {"type": "function", name, description, parameters, strict}
- anthropic:        {name, description, input_schema}

Every schema is self-contained: $refs are inlined and titles dropped (noise for a model). Optional parameters
are nullable (`anyOf: [<type>, {"type": "null"}]`) with their default, and null means "the default" on input, so
a client's own strict converter (openai-agents' `convert_schemas_to_strict=True` makes every property required)
still leaves the model a way to leave one out. With strict=True, in every dialect, the schema follows OpenAI's
structured-outputs rules: every property required, optional ones nullable, no defaults and no length/range
keywords, whose limits move into the parameter's description instead; the dialects whose tool definitions have
a strict flag (openai, openai-responses, anthropic) get `"strict": true`. MCP has no such flag: its strict shape
is for clients that hand MCP tools to a strict model.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Sequence
from typing import Any, Literal

from webreach.tools.arguments import ENGINE_NAMES
from webreach.tools.definitions import ToolDefinition, select_tools
from webreach.tools.number_text import with_text_form

Dialect = Literal["mcp", "openai", "openai-responses", "anthropic"]
DIALECTS: tuple[Dialect, ...] = ("mcp", "openai", "openai-responses", "anthropic")

Schema = dict[str, Any]

# keywords whose value is a map of name -> schema (their keys are names, not keywords)
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_STRICT_UNSUPPORTED = ("default", "minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems")


def tool_schemas(
    dialect: Dialect,
    *,
    engines: Sequence[str],
    enabled: Collection[str] | None = None,
    strict: bool = False,
    tools: Sequence[ToolDefinition] | None = None,
) -> list[Schema]:
    """Schemas of the enabled tools in `dialect` (of `tools` when given: a toolbox's, aliases included);
    `engines` fills the engine-name enums."""
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}; use one of {', '.join(DIALECTS)}")
    chosen = select_tools(enabled) if tools is None else tools
    return [tool_schema(tool, dialect, engines=engines, strict=strict) for tool in chosen]


def tool_schema(tool: ToolDefinition, dialect: Dialect, *, engines: Sequence[str], strict: bool = False) -> Schema:
    """One tool in one dialect."""
    parameters = input_schema(tool, engines=engines, strict=strict)
    if dialect == "mcp":
        hints = tool.annotations
        return {
            "name": tool.name,
            "title": tool.title,
            "description": tool.description,
            "inputSchema": parameters,
            "annotations": {
                "title": tool.title,
                "readOnlyHint": hints.read_only,
                "destructiveHint": hints.destructive,
                "idempotentHint": hints.idempotent,
                "openWorldHint": hints.open_world,
            },
        }
    if dialect == "anthropic":
        anthropic: Schema = {"name": tool.name, "description": tool.description, "input_schema": parameters}
        return {**anthropic, "strict": True} if strict else anthropic
    function: Schema = {"name": tool.name, "description": tool.description, "parameters": parameters}
    if strict or dialect == "openai-responses":
        function["strict"] = strict
    if dialect == "openai":
        return {"type": "function", "function": function}
    return {"type": "function", **function}


def input_schema(tool: ToolDefinition, *, engines: Sequence[str], strict: bool = False) -> Schema:
    """The JSON schema of a tool's arguments: inlined, cleaned, engine enums filled, strict-mode shaped if asked."""
    raw = tool.arguments.model_json_schema()
    schema = _inline(raw, raw.get("$defs", {}))
    schema.pop("$defs", None)
    schema.pop("description", None)  # the arguments model's docstring; the tool has its own description
    schema = _text_forms(_clean(schema, engines))
    if strict:
        return _strict(schema)
    required = set(schema.get("required", ()))
    properties = {
        name: prop if name in required else _nullable(prop, keep=("description", "default"))
        for name, prop in schema["properties"].items()
    }
    return {
        "type": "object",
        **{key: value for key, value in schema.items() if key != "type"},
        "properties": properties,
    }


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """`node` with every local $ref replaced by a copy of its definition."""
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target = _inline(copy.deepcopy(defs[ref.removeprefix("#/$defs/")]), defs)
        return {**target, **{k: _inline(v, defs) for k, v in node.items() if k != "$ref"}}
    return {key: _inline(value, defs) for key, value in node.items()}


def _clean(node: Any, engines: Sequence[str]) -> Any:
    """Drop titles, collapse Optional[X] to X (defaults say what is optional), fill engine enums."""
    if isinstance(node, list):
        return [_clean(item, engines) for item in node]
    if not isinstance(node, dict):
        return node
    out: Schema = {}
    for key, value in node.items():
        if key == "title":
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _clean(sub, engines) for name, sub in value.items()}
        else:
            out[key] = _clean(value, engines)
    _drop_null_branch(out)
    extra_choices = out.pop(ENGINE_NAMES, None)
    if extra_choices is not None:
        target = out["items"] if out.get("type") == "array" else out
        target["enum"] = [*extra_choices, *engines]
    return out


def _text_forms(node: Any) -> Any:
    """Every numeric node as `anyOf` the number and the string spelling of it the tools take (number_text.py)."""
    if isinstance(node, list):
        return [_text_forms(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _text_forms(value) for key, value in node.items()}
    return with_text_form(out)


def _drop_null_branch(node: Schema) -> None:
    branches = node.get("anyOf")
    if not isinstance(branches, list) or {"type": "null"} not in branches:
        return
    rest = [branch for branch in branches if branch != {"type": "null"}]
    del node["anyOf"]
    if len(rest) == 1:
        node.update({k: v for k, v in rest[0].items() if k not in node})
    else:
        node["anyOf"] = rest
    if node.get("default", ...) is None:
        del node["default"]


def _strict(schema: Schema) -> Schema:
    """OpenAI structured-outputs shape: all properties required, optional ones nullable, limits in descriptions."""
    required = set(schema.get("required", ()))
    properties = {}
    for name, prop in schema["properties"].items():
        prop = _strip_unsupported(prop)
        if name not in required:
            prop = _nullable(prop)
        properties[name] = prop
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _nullable(prop: Schema, keep: tuple[str, ...] = ("description",)) -> Schema:
    """`prop` also accepting null (how an optional parameter is marked), the `keep` keywords kept outside."""
    inner = {key: value for key, value in prop.items() if key not in keep}
    branches = inner["anyOf"] if list(inner) == ["anyOf"] else [inner]
    out: Schema = {"anyOf": [*branches, {"type": "null"}]}
    out.update((key, prop[key]) for key in keep if key in prop)
    return out


def _strip_unsupported(node: Any) -> Any:
    """`node` without keywords strict mode rejects; their limits are appended to the description."""
    if isinstance(node, list):
        return [_strip_unsupported(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = _lift_number_limits(node)
    limits = _limits_text(node)
    out = {k: _strip_unsupported(v) for k, v in node.items() if k not in _STRICT_UNSUPPORTED}
    if limits:
        out["description"] = f"{out.get('description', '').rstrip()} ({limits})".lstrip()
    return out


def _lift_number_limits(node: Schema) -> Schema:
    """A number-or-text node (number_text.py) with its number branch's range moved up, so the range is told in
    the argument's description, as for a plain integer."""
    branches = node.get("anyOf")
    if not isinstance(branches, list) or not any(b.get("type") in ("integer", "number") for b in branches):
        return node
    lifted = dict(node)
    lifted["anyOf"] = []
    for branch in branches:
        if branch.get("type") in ("integer", "number"):
            lifted.update((key, branch[key]) for key in ("minimum", "maximum") if key in branch)
            branch = {key: value for key, value in branch.items() if key not in ("minimum", "maximum")}
        lifted["anyOf"].append(branch)
    return lifted


def _limits_text(node: Schema) -> str:
    parts = []
    bounds = (("minimum", "maximum", ""), ("minLength", "maxLength", " chars"), ("minItems", "maxItems", " items"))
    for low, high, unit in bounds:
        if low in node and high in node:
            parts.append(f"{node[low]} to {node[high]}{unit}")
        elif low in node:
            parts.append(f"at least {node[low]}{unit.rstrip('s') if node[low] == 1 else unit}")
        elif high in node:
            parts.append(f"at most {node[high]}{unit}")
    if "default" in node and node["default"] is not None:
        parts.append(f"default {node['default']}")
    return ", ".join(parts)
