"""Agent tools: one definition per tool, rendered for every dialect, dispatched by name, output fit for a model.

    schemas = tool_schemas("openai", engines=backend.engine_names())
    result = await dispatch(backend, "web_search", '{"query": "rust async"}', sessions=store, session="s1")
    result.text  # compact text with numbered refs; result.is_error / result.data for errors and JSON output

`backend` is anything implementing ToolBackend (the Gateway does); `store` a state.sessions.SessionStore.
"""

from __future__ import annotations

from webreach.tools.arguments import (
    MAX_QUERIES,
    ToolArguments,
    WebFetchArguments,
    WebSearchArguments,
    WebSearchMultiArguments,
)
from webreach.tools.backend import OUTPUT_FORMATS, OutputFormat, ToolBackend, ToolResult
from webreach.tools.definitions import (
    TOOL_NAMES,
    TOOLS,
    ToolAnnotations,
    ToolDefinition,
    search_result,
    select_tools,
)
from webreach.tools.dispatch import (
    ToolMemos,
    decode_arguments,
    dispatch,
    error_result,
    find_tool,
    prepare_call,
    tool_memos,
)
from webreach.tools.fence import fence
from webreach.tools.render import SearchOutcome, error_body, page_json, page_text, search_json, search_text
from webreach.tools.schemas import DIALECTS, Dialect, input_schema, tool_schema, tool_schemas

__all__ = [
    "DIALECTS",
    "MAX_QUERIES",
    "OUTPUT_FORMATS",
    "TOOLS",
    "TOOL_NAMES",
    "Dialect",
    "OutputFormat",
    "SearchOutcome",
    "ToolAnnotations",
    "ToolArguments",
    "ToolBackend",
    "ToolDefinition",
    "ToolMemos",
    "ToolResult",
    "WebFetchArguments",
    "WebSearchArguments",
    "WebSearchMultiArguments",
    "decode_arguments",
    "dispatch",
    "error_body",
    "error_result",
    "fence",
    "find_tool",
    "input_schema",
    "page_json",
    "page_text",
    "prepare_call",
    "search_json",
    "search_result",
    "search_text",
    "select_tools",
    "tool_memos",
    "tool_schema",
    "tool_schemas",
]
