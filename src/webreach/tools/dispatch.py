"""Run one tool call by name, the way every door does: decode arguments, validate, handle, render.

`dispatch` never raises a WebreachError: bad arguments, unknown tools, engine failures and unknown refs all come
back as a ToolResult holding the agent error body ({"status": "error", "tool", "code", "message", "retry_after"}).
Anything else escaping is a bug and propagates.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from webreach.errors import InvalidInputError, WebreachError
from webreach.state.memo import DEFAULT_ENTRIES, Memo
from webreach.state.sessions import SessionStore, check_session
from webreach.tools import render
from webreach.tools.backend import OUTPUT_FORMATS, OutputFormat, ToolBackend, ToolResult
from webreach.tools.definitions import TOOLS, ToolCall, ToolDefinition, select_tools


async def dispatch(
    backend: ToolBackend,
    name: str,
    arguments: Mapping[str, Any] | str | None,
    *,
    sessions: SessionStore | None,
    session: str = "default",
    output: OutputFormat = "compact",
    enabled: Collection[str] | None = None,
    prepared: PreparedCalls | None = None,
) -> ToolResult:
    """Call tool `name` with `arguments` (a dict, or the JSON text an OpenAI-style tool call carries).

    `sessions` maps refs to URLs for `session` (None: results show URLs and refs are refused); `enabled`
    limits which tools may be called (None: all); `prepared` (from prepared_calls(backend)) keeps the prepared
    arguments of argument texts seen before.
    """
    if output not in OUTPUT_FORMATS:
        raise ValueError(f"output must be one of {', '.join(OUTPUT_FORMATS)}, not {output!r}")
    try:
        tool = find_tool(name, enabled)
        if sessions is not None:
            check_session(session)  # before searching, so a bad session name costs no engine call
        if prepared is not None and isinstance(arguments, str) and len(arguments) <= MAX_PREPARED_TEXT:
            ready = prepared((tool.name, arguments))
        else:
            ready = prepare_call(tool, arguments, backend.engine_names())
        call = ToolCall(tool=name, backend=backend, sessions=sessions, session=session, output=output)
        return await tool.handler(call, ready)
    except WebreachError as exc:
        return error_result(name, exc, output=output)


# what a tool's handler takes, by (tool name, argument text)
PreparedCalls = Memo[tuple[str, str], Any]
# longer argument texts are prepared afresh each time, so the memo's memory stays small (512 entries x 4 KB)
MAX_PREPARED_TEXT = 4096


def prepared_calls(backend: ToolBackend, *, entries: int = DEFAULT_ENTRIES) -> PreparedCalls:
    """A memo of prepare_call for `backend`'s tools: a door answering the same call again and again (an agent
    loop, a busy REST client) skips decoding, validating and planning. Argument texts that fail are not kept."""
    return Memo(lambda key: prepare_call(find_tool(key[0]), key[1], backend.engine_names()), entries=entries)


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
