"""OpenAI's strict function-calling shape: making a tool's arguments schema strict, and checking that it is.

Strict mode (structured outputs) takes a subset of JSON Schema: every object closes itself
(`additionalProperties: false`) and lists every property as required (optional ones take null instead), and only
some keywords are allowed (STRICT_KEYWORDS); `patternProperties`, free-keyed maps, lengths and defaults are not.
`strict_shape` turns a tool's schema into that shape at every depth, moving the limits it drops into the
description; `strict_problems` says why a schema is not in it, so no door claims `"strict": true` for one that
is not (tools/schemas.py).
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]

# the keywords OpenAI's strict mode takes (https://platform.openai.com/docs/guides/structured-outputs, "Supported
# schemas"); lengths, counts and ranges are supported there too, but are moved into descriptions here so the shape
# also suits the stricter validators of older models and other providers' strict modes
STRICT_KEYWORDS = frozenset(
    {"type", "properties", "required", "additionalProperties", "items", "anyOf", "enum", "const", "description",
     "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems",
     "maxItems", "$defs", "$ref"}
)  # fmt: skip
# what strict_shape drops (its limits go into the description)
_DROPPED = ("default", "minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems")


def strict_shape(schema: Schema) -> Schema:
    """`schema` (a tool's arguments: an object) in OpenAI's strict shape at every depth."""
    shaped = _shaped(schema)
    return {"type": "object", **{key: value for key, value in shaped.items() if key != "type"}}


def _shaped(node: Any) -> Any:
    if isinstance(node, list):
        return [_shaped(item) for item in node]
    if not isinstance(node, dict):
        return node
    limits = _limits_text(node)
    out: Schema = {
        key: _shaped(value)
        for key, value in node.items()
        if key not in _DROPPED and key not in ("properties", "required")
    }
    if isinstance(node.get("properties"), dict):
        required = set(node.get("required", ()))
        properties = {name: _shaped(prop) for name, prop in node["properties"].items()}
        out["properties"] = {name: prop if name in required else nullable(prop) for name, prop in properties.items()}
        out["required"] = list(properties)
        out["additionalProperties"] = False
    if limits:
        out["description"] = f"{out.get('description', '').rstrip()} ({limits})".lstrip()
    return out


def nullable(prop: Schema, keep: tuple[str, ...] = ("description",)) -> Schema:
    """`prop` also accepting null (how an optional parameter is marked): `"type": [T, "null"]` for a one-type node
    (null added to its enum), else `anyOf` with a null branch; the `keep` keywords stay outside an anyOf."""
    kind = prop.get("type")
    if isinstance(kind, str) and kind not in ("object", "array") and "anyOf" not in prop:
        out = {**prop, "type": [kind, "null"]}
        if isinstance(prop.get("enum"), list):
            out["enum"] = [*prop["enum"], None]
        return out
    if isinstance(kind, list) and "null" in kind:
        return prop
    inner = {key: value for key, value in prop.items() if key not in keep}
    branches = inner["anyOf"] if list(inner) == ["anyOf"] else [inner]
    if {"type": "null"} in branches:
        return prop
    out = {"anyOf": [*branches, {"type": "null"}]}
    out.update((key, prop[key]) for key in keep if key in prop)
    return out


def strict_problems(schema: Schema) -> list[str]:
    """Why `schema` is not in OpenAI's strict shape (none: it is), each naming where."""
    problems: list[str] = []
    if schema.get("type") != "object" or "anyOf" in schema:
        problems.append("the root is not a plain object")
    _check(schema, "$", problems)
    return problems


def _check(node: Any, where: str, problems: list[str]) -> None:
    if isinstance(node, list):
        for index, item in enumerate(node):
            _check(item, f"{where}[{index}]", problems)
        return
    if not isinstance(node, dict):
        return
    problems.extend(f"{where}: {key} is not allowed" for key in sorted(set(node) - STRICT_KEYWORDS))
    kinds = node.get("type")
    if kinds == "object" or (isinstance(kinds, list) and "object" in kinds):
        properties = node.get("properties")
        if not isinstance(properties, dict):
            problems.append(f"{where}: an object without declared properties")
        elif set(node.get("required", ())) != set(properties):
            problems.append(f"{where}: not every property is required")
        if node.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties is not false")
    for key, value in node.items():
        if key in ("properties", "$defs") and isinstance(value, dict):
            for name, sub in value.items():
                _check(sub, f"{where}.{name}", problems)
        elif key in ("items", "anyOf"):
            _check(value, f"{where}.{key}", problems)


def _limits_text(node: Schema) -> str:
    parts = []
    bounds = (("minimum", "maximum", ""), ("minLength", "maxLength", " chars"), ("minItems", "maxItems", " items"))
    for low, high, unit in bounds:
        if low in node and high in node:
            same = node[low] == node[high]
            parts.append(f"exactly {node[low]}{unit}" if same else f"{node[low]} to {node[high]}{unit}")
        elif low in node:
            parts.append(f"at least {node[low]}{unit.rstrip('s') if node[low] == 1 else unit}")
        elif high in node:
            parts.append(f"at most {node[high]}{unit}")
    if "default" in node and node["default"] is not None:
        parts.append(f"default {node['default']}")
    return ", ".join(parts)
