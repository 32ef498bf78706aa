"""Run one tool call by name, the way every door does: decode arguments, validate, handle, render.

`dispatch` never raises a WebreachError: bad arguments, unknown tools, engine failures and unknown refs all come
back as a ToolResult holding the agent error body ({"status": "error", "tool", "code", "message", "retry_after"}).
Anything else escaping is a bug and propagates.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from webreach.errors import InvalidInputError, WebreachError
from webreach.models import Hit
from webreach.state.memo import DEFAULT_ENTRIES, IdentityMemo, Memo
from webreach.state.sessions import SessionStore, check_session
from webreach.tools import render
from webreach.tools.backend import OUTPUT_FORMATS, OutputFormat, ToolBackend, ToolResult
from webreach.tools.definitions import TOOLS, ToolCall, ToolDefinition, select_tools
from webreach.tools.json_text import hit_json

# longer argument texts are prepared afresh each time, so the memo stays small (512 texts of 4,096 characters)
MAX_PREPARED_TEXT = 4096
# about the results of the 512 searches answered most recently from the memory cache; results made afresh (an
# engine's answer, a multi merge, the SQLite cache) are new objects, kept once and pushed out by newer ones
HIT_JSON_ENTRIES = 4096


async def dispatch(
    backend: ToolBackend,
    name: str,
    arguments: Mapping[str, Any] | str | None,
    *,
    sessions: SessionStore | None,
    session: str = "default",
    output: OutputFormat = "compact",
    enabled: Collection[str] | None = None,
    memos: ToolMemos | None = None,
) -> ToolResult:
    """Call tool `name` with `arguments` (a dict, or the JSON text an OpenAI-style tool call carries).

    `sessions` maps refs to URLs for `session` (None: results show URLs and refs are refused); `enabled`
    limits which tools may be called (None: all); `memos` (tool_memos(backend), kept by a door between calls)
    make repeated calls cheaper.
    """
    if output not in OUTPUT_FORMATS:
        raise ValueError(f"output must be one of {', '.join(OUTPUT_FORMATS)}, not {output!r}")
    try:
        tool = find_tool(name, enabled)
        if sessions is not None:
            check_session(session)  # before searching, so a bad session name costs no engine call
        if memos is not None and memos.backend is not backend:
            raise ValueError("these tool memos were made for another backend (tool_memos(backend))")
        if memos is not None and isinstance(arguments, str) and len(arguments) <= MAX_PREPARED_TEXT:
            ready = memos.prepared((tool.name, arguments))
        else:
            ready = prepare_call(tool, arguments, backend.engine_names())
        write_hit = memos.hit_json if memos is not None else hit_json
        call = ToolCall(name, backend, sessions, session, output, write_hit)
        return await tool.handler(call, ready)
    except WebreachError as exc:
        return error_result(name, exc, output=output)


@dataclass(frozen=True)
class ToolMemos:
    """What a door keeps between tool calls, so that repeated ones (an agent loop, a busy REST client) cost less.

    prepared: what a tool's handler takes, by (tool name, argument text): decoding, validating and planning are
    skipped (texts that fail are not kept). hit_json: each search result's JSON text, by the result object.
    """

    backend: ToolBackend  # plans are checked against its engines, so the memos serve no other backend
    prepared: Memo[tuple[str, str], Any]
    hit_json: IdentityMemo[Hit, bytes]


def tool_memos(backend: ToolBackend, *, entries: int = DEFAULT_ENTRIES) -> ToolMemos:
    """Empty memos for calls to `backend`'s tools (the Gateway keeps one for its doors)."""
    return ToolMemos(
        backend=backend,
        prepared=Memo(lambda key: prepare_call(find_tool(key[0]), key[1], backend.engine_names()), entries=entries),
        hit_json=IdentityMemo(hit_json, entries=HIT_JSON_ENTRIES),
    )


def prepare_call(tool: ToolDefinition, arguments: Mapping[str, Any] | str | None, engines: Sequence[str]) -> Any:
    """What the tool's handler takes: the parsed arguments, checked and planned (InvalidInputError if wrong)."""
    return tool.prepare(parse_arguments(tool, arguments), engines)


def error_result(tool: str, error: WebreachError, *, output: OutputFormat = "json") -> ToolResult:
    """A failed call as the agent sees it (compact output leaves out the per-attempt log)."""
    body = render.error_body(error, tool, detail=output == "json")
    return ToolResult(tool=tool, text=render.to_text(body), is_json=True, error=error)


def find_tool(name: str, enabled: Collection[str] | None = None) -> ToolDefinition:
    """The enabled tool called `name`, else InvalidInputError listing the ones that can be called."""
    tools = TOOLS if enabled is None else select_tools(enabled)
    for tool in tools:
        if tool.name == name:
            return tool
    known = any(tool.name == name for tool in TOOLS)
    message = f"tool {name!r} is not enabled here" if known else f"unknown tool {name!r}"
    raise InvalidInputError(message, hint=f"Available tools: {', '.join(tool.name for tool in tools)}.")


def parse_arguments(tool: ToolDefinition, arguments: Mapping[str, Any] | str | None) -> Any:
    """The tool's arguments model from a mapping or JSON text; InvalidInputError says what is wrong."""
    if isinstance(arguments, str):
        parsed = tool.arguments.parse_json(arguments)
        if parsed is not None:
            return parsed
    return tool.arguments.parse(decode_arguments(arguments))


def decode_arguments(arguments: Mapping[str, Any] | str | None) -> Mapping[str, Any]:
    """Arguments as a mapping: None and "" are no arguments; text must be a JSON object."""
    if arguments is None:
        return {}
    if isinstance(arguments, str):
        if not arguments.strip():
            return {}
        try:
            arguments = json.loads(arguments)
        except ValueError as exc:
            raise InvalidInputError(f"arguments are not valid JSON: {exc}", hint="Send a JSON object.") from None
    if not isinstance(arguments, Mapping):
        raise InvalidInputError("arguments must be a JSON object", hint='Send e.g. {"query": "..."}.')
    return arguments
