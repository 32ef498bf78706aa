"""Tool schemas for every dialect, generated from the one definition of each tool (tools/definitions.py).

- mcp:              {name, title, description, inputSchema, annotations{readOnlyHint, openWorldHint, ...}}
- openai:           Chat Completions {"type": "function", "function": {name, description, parameters[, strict]}}
- openai-responses: Responses API, flat {"type": "function", name, description, parameters, strict}
- anthropic:        {name, description, input_schema}

Every schema is self-contained: $refs are inlined and titles dropped (noise for a model). The definitions are
sent to the model on every turn, so they are lean (docs/decisions.md, issue 41): number arguments show their
number type only (the tools still take "5" for 5, tools/number_text.py) and the patterns that only say "not blank"
or spell out a domain or language code are left to the tools' own checks, whose errors say what to send instead.
`exact=True` keeps both (the OpenAPI document: what a validator should check). Optional parameters are nullable
(`"type": [T, "null"]`, or an anyOf with a null branch) with their default, and null means "the default" on
input, so a client's own strict converter (openai-agents' `convert_schemas_to_strict=True` makes every property
required) still leaves the model a way to leave one out. With strict=True, in every dialect, the schema follows
OpenAI's strict rules at every depth (tools/strict_schema.py): every property required, optional ones nullable,
no defaults and no length/range keywords, whose limits move into the parameter's description instead; the
dialects whose tool definitions have a strict flag (openai, openai-responses, anthropic) get `"strict": true`
only when the schema passes strict_problems, else the plain schema with `"strict": false`. MCP has no such flag:
its strict shape is for clients that hand MCP tools to a strict model.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Sequence
from typing import Any, Literal

from webreach.schema_patterns import LANGUAGE_PATTERN, QUERY_PATTERN, SITE_PATTERN
from webreach.tools.arguments import ENGINE_NAMES, UNLISTED
from webreach.tools.definitions import ToolAnnotations, ToolDefinition, select_tools
from webreach.tools.number_text import MARKS, with_text_form
from webreach.tools.strict_schema import nullable, strict_problems, strict_shape

Dialect = Literal["mcp", "openai", "openai-responses", "anthropic"]
DIALECTS: tuple[Dialect, ...] = ("mcp", "openai", "openai-responses", "anthropic")

Schema = dict[str, Any]

# keywords whose value is a map of name -> schema (their keys are names, not keywords)
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
# patterns the lean schemas leave to the tools' checks: "has a non-space character", a bare domain, a language code
_CHECKED_PATTERNS = frozenset({QUERY_PATTERN, SITE_PATTERN, LANGUAGE_PATTERN})
_LEFT_TO_THE_TOOLS = frozenset({"minLength", "maxLength", MARKS})
_NO_PRACTICAL_MAXIMUM = 2**31 - 1


def tool_schemas(
    dialect: Dialect,
    *,
    engines: Sequence[str],
    enabled: Collection[str] | None = None,
    strict: bool = False,
    tools: Sequence[ToolDefinition] | None = None,
    exact: bool = False,
) -> list[Schema]:
    """Schemas of the enabled tools in `dialect` (of `tools` when given: a toolbox's, aliases included);
    `engines` fills the engine-name enums; `exact` keeps what lean schemas leave to the tools' checks."""
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}; use one of {', '.join(DIALECTS)}")
    chosen = select_tools(enabled) if tools is None else tools
    return [tool_schema(tool, dialect, engines=engines, strict=strict, exact=exact) for tool in chosen]


def tool_schema(
    tool: ToolDefinition, dialect: Dialect, *, engines: Sequence[str], strict: bool = False, exact: bool = False
) -> Schema:
    """One tool in one dialect; asked for strict, the strict shape where it passes strict_problems, else the plain
    schema flagged `"strict": false` (never a strict claim for a schema strict mode would refuse)."""
    parameters = input_schema(tool, engines=engines, strict=strict, exact=exact)
    if strict and strict_problems(parameters):
        parameters, strict = input_schema(tool, engines=engines, exact=exact), False
        claim: bool | None = False
    else:
        claim = True if strict else None
    if dialect == "mcp":
        return {
            "name": tool.name,
            "title": tool.title,
            "description": tool.description,
            "inputSchema": parameters,
            "annotations": _annotations(tool.annotations),
        }
    if dialect == "anthropic":
        anthropic: Schema = {"name": tool.name, "description": tool.description, "input_schema": parameters}
        return anthropic if claim is None else {**anthropic, "strict": claim}
    function: Schema = {"name": tool.name, "description": tool.description, "parameters": parameters}
    if claim is not None or dialect == "openai-responses":
        function["strict"] = bool(claim)
    if dialect == "openai":
        return {"type": "function", "function": function}
    return {"type": "function", **function}


def _annotations(hints: ToolAnnotations) -> Schema:
    """MCP tool annotations, only where they differ from MCP's defaults (readOnlyHint false, destructiveHint true,
    idempotentHint false, openWorldHint true; the middle two mean something only for a tool that writes). The title
    is the tool's own, which MCP reads before annotations.title."""
    out: Schema = {"readOnlyHint": hints.read_only}
    if not hints.read_only:
        out.update(destructiveHint=hints.destructive, idempotentHint=hints.idempotent)
    if not hints.open_world:
        out["openWorldHint"] = False
    return out


def input_schema(tool: ToolDefinition, *, engines: Sequence[str], strict: bool = False, exact: bool = False) -> Schema:
    """The JSON schema of a tool's arguments: inlined, cleaned, engine enums filled, lean unless `exact`,
    strict-mode shaped if asked (strict shapes are always lean)."""
    raw = tool.arguments.model_json_schema()
    schema = _inline(raw, raw.get("$defs", {}))
    schema.pop("$defs", None)
    schema.pop("description", None)  # the arguments model's docstring; the tool has its own description
    exact = exact and not strict
    schema = _listed(_clean(schema, engines if exact else None), everything=exact)
    schema = _text_forms(schema) if exact else _lean(schema)
    if strict:
        return strict_shape(schema)
    required = set(schema.get("required", ()))
    properties = {
        name: prop if name in required else nullable(prop, keep=("description", "default"))
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


def _clean(node: Any, engines: Sequence[str] | None) -> Any:
    """Drop titles, collapse Optional[X] to X (defaults say what is optional), fill engine enums (with `engines`;
    None: no enum)."""
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
    if extra_choices is not None and engines is not None:
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


def _listed(schema: Schema, *, everything: bool) -> Schema:
    """`schema` without its unlisted arguments (arguments.UNLISTED) unless `everything`, unmarked either way."""
    properties = {
        name: {key: value for key, value in prop.items() if key != UNLISTED}
        for name, prop in schema["properties"].items()
        if everything or not prop.get(UNLISTED)
    }
    required = [name for name in schema.get("required", ()) if name in properties]
    return {**schema, "properties": properties, **({"required": required} if "required" in schema else {})}


def _lean(node: Any) -> Any:
    """`node` without what the tools check themselves: string lengths, the patterns of _CHECKED_PATTERNS and a
    maximum no call reaches (a ref's); the engine-name enums (an unknown name is answered with the list)."""
    if isinstance(node, list):
        return [_lean(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: Schema = {}
    for key, value in node.items():
        if key in _LEFT_TO_THE_TOOLS or (key == "pattern" and value in _CHECKED_PATTERNS):
            continue
        if key == "maximum" and isinstance(value, int) and value >= _NO_PRACTICAL_MAXIMUM:
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _lean(sub) for name, sub in value.items()}
        else:
            out[key] = _lean(value)
    return out
