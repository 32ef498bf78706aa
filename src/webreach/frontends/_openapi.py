"""The REST API's OpenAPI 3.1 document and /docs page, generated from the tools' MCP-dialect schemas.

Nothing here is written per endpoint: each exposed tool becomes POST /v1/<tool name without "web_"> with its
generated input schema as the request body (OpenAPI 3.1 takes JSON Schema as is), and the error responses come
from the one status table in _errors.py. The document states what the server accepts: lengths are measured as
sent (before whitespace is stripped), the session header's limits and pattern come from state/sessions.py.
Beyond the tool schemas (which every agent dialect shares, so they hold nothing a dialect refuses), the document
says: an optional argument may be null (null means the default), arguments of which exactly one must be given
(web_fetch's url and ref) are a oneOf, and the 501 answer names the engines this server has no key or instance
for (they stay in the engine enum: the schema is the product's, and the 501 says what to configure). What it
cannot say in JSON Schema is the forgiving side only (numbers as strings, case and spaces in enum values).
The docs page is plain HTML rendered from the same document, with no
script or stylesheet fetched from elsewhere; it shows an example error body (the schema is in /openapi.json).

GET /v1/tools, the image routes (POST /v1/images, a multipart upload; GET /i/{link_id}, a public image link) and
the admin endpoints are listed too. Admin operations carry the `adminToken` bearer scheme as
optional security (`[{"adminToken": []}, {}]`): required once `[server] admin_token` is set, and without one
the server answers loopback clients only (frontends/_admin.py); OpenAPI cannot express "loopback", so the
description says it.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from typing import Any

from webreach.frontends._errors import HTTP_STATUS
from webreach.schema_patterns import EMPTY_QUERY
from webreach.tools import DIALECTS, MAX_SESSION_CHARS, find_tool
from webreach.tools.arguments import ToolArguments
from webreach.tools.call_session import HEADER_SESSION_PATTERN

Schema = dict[str, Any]

ERROR_REF = "#/components/schemas/Error"
IMAGE_TOOLS = frozenset({"crop_images", "reverse_image_search"})
ERROR_SCHEMA: Schema = {
    "type": "object",
    "required": ["status", "code", "message", "retry_after"],
    "properties": {
        "status": {"const": "error"},
        "tool": {"type": "string", "description": "The tool that failed; left out when no tool ran."},
        "code": {"type": "string", "enum": sorted(HTTP_STATUS), "description": "Stable; act on this."},
        "message": {"type": "string", "description": "What happened and what to try next."},
        "retry_after": {"type": ["number", "null"], "description": "Seconds to wait before trying again."},
        "engine": {"type": "string", "description": "The engine that failed, when one did."},
    },
    "additionalProperties": True,
}
# what /docs shows for errors: a real body (the one an empty query gets), not the schema
ERROR_EXAMPLE: Schema = {
    "status": "error",
    "tool": "web_search",
    "code": "invalid_input",
    "message": f"query: {EMPTY_QUERY} (got ''). Fix the argument and call again.",
    "retry_after": None,
}
ADMIN_SECURITY: Schema = {
    "type": "http",
    "scheme": "bearer",
    "description": "The server's [server] admin_token. Without one configured, admin endpoints answer loopback "
    "clients only and need no token; anything else gets 401 admin_required.",
}
AGENT_SECURITY: Schema = {
    "type": "http",
    "scheme": "bearer",
    "description": "An agent's API key (`webreach agents add`), needed once accounts are enabled; a call without a "
    "valid one gets 401 agent_auth_failed. Without accounts no key is needed.",
}
IDEMPOTENCY_PARAMETER: Schema = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
    "description": "The same key with the same arguments within 24 h replays the stored answer without a second "
    "charge; with other arguments it is 422 idempotency_mismatch; while the first call runs, 409 in_progress.",
}

SECURITY_SCHEMES: Schema = {"adminToken": ADMIN_SECURITY, "agentKey": AGENT_SECURITY}


def rest_path(tool: str) -> str:
    """The REST path of a tool: web_search -> /v1/search."""
    return f"/v1/{tool.removeprefix('web_')}"


def openapi_document(
    tools: Sequence[Mapping[str, Any]],
    *,
    version: str,
    session_header: str,
    admin: Mapping[str, str] | None = None,
    unusable: Sequence[str] = (),
    arguments: Mapping[str, type[ToolArguments]] | None = None,
) -> Schema:
    """OpenAPI 3.1 for the REST API, from MCP-dialect tool schemas (name, title, description, inputSchema).

    `admin` maps "METHOD /v1/admin/..." to a summary (AdminRoutes.described); `unusable` names the engines this
    server cannot use (no key or instance URL), which answer 501; `arguments` maps each tool name to its arguments
    model (a drop-in profile's tools: Toolbox.tools; None: the native tools by name).
    """
    paths: Schema = {
        rest_path(tool["name"]): {"post": _operation(tool, session_header, unusable, arguments)} for tool in tools
    }
    paths["/v1/tools"] = {"get": _tools_operation()}
    if IMAGE_TOOLS & {tool["name"] for tool in tools}:  # the tokens an upload answers are for these tools
        paths.update(_image_paths(session_header))
    for endpoint, summary in (admin or {}).items():
        method, _, path = endpoint.partition(" ")
        paths.setdefault(path, {})[method.lower()] = _admin_operation(method, path, summary)
    paths["/healthz"] = {
        "get": {
            "operationId": "healthz",
            "summary": "Liveness",
            "responses": {"200": {"description": '{"status": "ok"} once the server is serving.'}},
        }
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "webreach",
            "version": version,
            "description": (
                "Web search and page reading for agents. Each endpoint runs the agent tool of the same name; the "
                "JSON body is the tool's arguments. Errors carry the agent error body with an HTTP status by code."
            ),
        },
        "paths": paths,
        "components": {"schemas": {"Error": ERROR_SCHEMA}, "securitySchemes": SECURITY_SCHEMES},
    }


def _tools_operation() -> Schema:
    return {
        "operationId": "tools",
        "summary": "Tool schemas",
        "description": "The agent tools' schemas in an agent framework's dialect (what `webreach tools` prints).",
        "parameters": [
            {
                "name": "dialect",
                "in": "query",
                "required": False,
                "schema": {"type": "string", "enum": list(DIALECTS), "default": "openai"},
            }
        ],
        "responses": {"200": {"description": "A JSON list of tool schemas."}, **_error_responses()},
    }


def _admin_operation(method: str, path: str, summary: str) -> Schema:
    names = [part[1:-1] for part in path.split("/") if part.startswith("{") and part.endswith("}")]
    operation: Schema = {
        # GET /v1/admin/engines -> get_admin_engines; path parameters lose their braces
        "operationId": "_".join([method.lower(), *(part.strip("{}") for part in path.split("/")[2:] if part)]),
        "summary": summary,
        "description": "Admin endpoint: the admin token when one is configured, else loopback clients only.",
        "tags": ["admin"],
        "security": [{"adminToken": []}, {}],
        "responses": {"200": {"description": "JSON with status ok."}, **_error_responses()},
    }
    if names:
        operation["parameters"] = [
            {"name": name, "in": "path", "required": True, "schema": {"type": "string"}} for name in names
        ]
    return operation


def _body_schema(tool: Mapping[str, Any], models: Mapping[str, type[ToolArguments]] | None = None) -> Schema:
    """The tool's input schema with what the server also accepts or requires: nulls for optional arguments, and
    exactly one of the arguments its model says so of."""
    schema = dict(tool["inputSchema"])
    required = set(schema.get("required", ()))
    schema["properties"] = {
        name: prop if name in required else _nullable(prop) for name, prop in schema.get("properties", {}).items()
    }
    arguments = models[tool["name"]] if models is not None else find_tool(tool["name"]).arguments
    exclusive = arguments.exactly_one_of
    if exclusive:
        schema["oneOf"] = [{"required": [name], "properties": {name: {"not": {"type": "null"}}}} for name in exclusive]
    if arguments.only_when:
        schema["allOf"] = [_only_when(*rule) for rule in arguments.only_when]
    return schema


def _only_when(name: str, other: str, values: Sequence[str]) -> Schema:
    """`name` empty or null unless `other` is one of `values` (null, the default, counts as one of them)."""
    elsewhere = {"required": [other], "properties": {other: {"not": {"enum": [*values, None]}}}}
    empty = {"anyOf": [{"type": "null"}, {"type": "array", "maxItems": 0}]}
    return {"if": elsewhere, "then": {"properties": {name: empty}}}


def _nullable(prop: Mapping[str, Any]) -> Schema:
    """`prop` that also takes null (string keywords such as minLength do not apply to null); the tool schemas
    already mark optional arguments nullable (tools/schemas.py), and those are kept as they are."""
    if {"type": "null"} in prop.get("anyOf", ()) or "null" in (prop.get("type") or ()):
        return dict(prop)
    out = dict(prop)
    if isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    if "enum" in out:
        out["enum"] = [*out["enum"], None]
    if "anyOf" in out:
        out["anyOf"] = [*out["anyOf"], {"type": "null"}]
    return out


def _operation(
    tool: Mapping[str, Any],
    session_header: str,
    unusable: Sequence[str],
    models: Mapping[str, type[ToolArguments]] | None = None,
) -> Schema:
    return {
        "operationId": tool["name"],
        "summary": tool.get("title") or tool["name"],
        "description": tool["description"],
        "parameters": [_session_parameter(session_header), IDEMPOTENCY_PARAMETER],
        "security": [{"agentKey": []}, {}],
        "requestBody": {"required": True, "content": {"application/json": {"schema": _body_schema(tool, models)}}},
        "responses": {"200": {"description": "The tool's JSON output."}, **_error_responses(unusable)},
    }


def _session_parameter(session_header: str) -> Schema:
    return {
        "name": session_header,
        "in": "header",
        "required": False,
        "schema": {
            "type": "string",
            "default": "default",
            "minLength": 1,
            "maxLength": MAX_SESSION_CHARS,
            "pattern": HEADER_SESSION_PATTERN,
        },
        "description": "Session whose numbered refs this call records or resolves: "
        f"1-{MAX_SESSION_CHARS} characters, no control characters, not starting with a space, a tab or '@' "
        "(reserved for agents' own sessions); sent as UTF-8 (bytes that are not UTF-8 are read as Latin-1).",
    }


def _image_paths(session_header: str) -> Schema:
    """POST /v1/images (a multipart upload, the image_upload tool's REST door) and GET /i/{link_id} (a public_url
    link): frontends/_image_routes.py."""
    upload: Schema = {
        "operationId": "image_upload",
        "summary": "Upload an image",
        "description": "Store an image in the session's image store (JPEG, PNG, WebP, GIF or BMP, at most [images] "
        "max_input_bytes) and answer its new token (<obs_N>) for crop_images and reverse_image_search, and its "
        "URL when [images] storage is public_url. Metered like a tool call when accounts are on.",
        "parameters": [_session_parameter(session_header), IDEMPOTENCY_PARAMETER],
        "security": [{"agentKey": []}, {}],
        "requestBody": {
            "required": True,
            "content": {
                "multipart/form-data": {
                    "schema": {
                        "type": "object",
                        "required": ["file"],
                        "properties": {"file": {"type": "string", "contentMediaType": "application/octet-stream",
                                                "description": "The image file."}},
                    }
                }
            },
        },
        "responses": {"200": {"description": 'JSON: {"token": "<obs_1>", "url": ... or null}.'}, **_error_responses()},
    }  # fmt: skip
    public: Schema = {
        "operationId": "public_image",
        "summary": "A public image link",
        "description": "The bytes of an image stored with [images] storage = public_url, for reverse-search "
        "backends to fetch (no key: the id is 192 random bits). Unknown or expired ids are 404.",
        "parameters": [{"name": "link_id", "in": "path", "required": True, "schema": {"type": "string"}}],
        "responses": {
            "200": {"description": "The image, with its content type.", "content": {"image/*": {}}},
            "404": {"description": "not_found", "content": {"application/json": {"schema": {"$ref": ERROR_REF}}}},
        },
    }
    return {"/v1/images": {"post": upload}, "/i/{link_id}": {"get": public}}


def _error_responses(unusable: Sequence[str] = ()) -> Schema:
    by_status: dict[int, list[str]] = {}
    for code, status in HTTP_STATUS.items():
        by_status.setdefault(status, []).append(code)
    error = {"application/json": {"schema": {"$ref": ERROR_REF}}}
    responses = {
        str(status): {"description": ", ".join(sorted(codes)), "content": error}
        for status, codes in sorted(by_status.items())
    }
    if unusable and "501" in responses:
        named = ", ".join(unusable)
        responses["501"]["description"] = (
            f"not_configured. Engines this server has no API key or instance URL for answer it when named: {named}"
        )
    return responses


# --- the docs page -------------------------------------------------------------------------------------------


def docs_html(document: Mapping[str, Any], *, base_url: str) -> str:
    """A self-contained HTML page describing every operation of `document`, with a curl line for each POST."""
    info = document["info"]
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>webreach API</title>",
        "<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em}"
        "code,pre{background:#f4f4f4;padding:.1em .3em}pre{padding:.6em;overflow-x:auto}"
        "table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2em .5em;text-align:left}</style>",
        "</head><body>",
        f"<h1>{_e(info['title'])} {_e(info['version'])}</h1><p>{_e(info['description'])}</p>",
        "<p>Machine-readable: <a href='/openapi.json'>/openapi.json</a>. MCP clients: <code>/mcp</code>.</p>",
    ]
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            parts.append(f"<h2><code>{method.upper()} {_e(path)}</code> {_e(operation['summary'])}</h2>")
            parts.append(f"<p>{_e(operation.get('description', ''))}</p>")
            body = operation.get("requestBody")
            if body and "application/json" in body["content"]:
                schema = body["content"]["application/json"]["schema"]
                parts.append(_properties_table(schema))
                parts.append(f"<pre>{_e(_curl(base_url, path, schema))}</pre>")
            elif body:  # a multipart upload
                parts.append(f"<pre>{_e(f'curl -s {base_url}{path} -F file=@photo.jpg')}</pre>")
    parts.append(
        "<h2>Errors</h2><p>Every error is JSON with an HTTP status by its <code>code</code> (act on the code, "
        "show the message; <code>retry_after</code> says when to come back). For example:</p>"
    )
    parts.append(f"<pre>{_e(json.dumps(ERROR_EXAMPLE, indent=2))}</pre>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _properties_table(schema: Mapping[str, Any]) -> str:
    required = set(schema.get("required", ()))
    rows = ["<table><tr><th>argument</th><th>type</th><th>default</th><th>description</th></tr>"]
    for name, prop in schema.get("properties", {}).items():
        default = json.dumps(prop["default"]) if "default" in prop else ("required" if name in required else "")
        rows.append(
            f"<tr><td><code>{_e(name)}</code></td><td>{_e(_type_text(prop))}</td>"
            f"<td>{_e(default)}</td><td>{_e(prop.get('description', ''))}</td></tr>"
        )
    rows.append("</table>")
    return "".join(rows)


def _type_text(prop: Mapping[str, Any]) -> str:
    if "enum" in prop:
        return " | ".join(str(choice) for choice in prop["enum"])
    if "anyOf" in prop:
        # a number that may come as text (tools/number_text.py): its string branch reads "integer as text"
        numeric = next((b["type"] for b in prop["anyOf"] if b.get("type") in ("integer", "number")), None)
        return " or ".join(
            f"{numeric} as text" if numeric and branch.get("type") == "string" else _type_text(branch)
            for branch in prop["anyOf"]
        )
    if prop.get("type") == "array":
        return f"list of {_type_text(prop.get('items', {}))}"
    return str(prop.get("type", "any"))


def _curl(base_url: str, path: str, schema: Mapping[str, Any]) -> str:
    """A curl line with the required arguments (else the first one) as placeholders."""
    properties: Mapping[str, Any] = schema.get("properties", {})
    names = list(schema.get("required", ())) or list(properties)[:1]
    example = {name: 1 if properties.get(name, {}).get("type") == "integer" else f"<{name}>" for name in names}
    body = json.dumps(example, ensure_ascii=False)
    return f"curl -s {base_url}{path} -H 'content-type: application/json' -d '{body}'"


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)
