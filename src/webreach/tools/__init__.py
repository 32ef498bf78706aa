"""Agent tools: one definition per tool, rendered for every dialect, called through one pipeline, fit for a model.

    tools = Toolbox.over(gateway)                       # or Toolbox(backend, session_store)
    schemas = tools.schemas("openai")
    result = await tools.call("web_search", '{"query": "rust async"}', session="s1")
    result.text  # compact text with numbered refs; result.is_error / result.data for errors and JSON output

The tools sit above the Gateway (anything implementing ToolBackend): they own the agent-facing contract
(arguments, sessions and refs, rendering), and the Gateway knows nothing of them.
"""

from __future__ import annotations

from webreach.errors import error_body
from webreach.state.sessions import MAX_SESSION_CHARS, SESSION_PATTERN, SessionStore, check_session
from webreach.tools.accounting import Metering, account_policies
from webreach.tools.arguments import (
    DEFAULT_TOOL_LIMIT,
    MAX_QUERIES,
    ToolArguments,
    WebFetchArguments,
    WebSearchArguments,
    WebSearchMultiArguments,
)
from webreach.tools.backend import OUTPUT_FORMATS, OutputFormat, ToolBackend, ToolResult
from webreach.tools.call_session import DEFAULT_SESSION, NAMED_SESSION_PATTERN, store_session
from webreach.tools.costs import cost_line
from webreach.tools.definitions import (
    TOOL_NAMES,
    TOOLS,
    SearchResults,
    ToolAnnotations,
    ToolDefinition,
    select_tools,
)
from webreach.tools.fence import fence
from webreach.tools.output import QueryResults, Searches, search_json, search_output, with_ref
from webreach.tools.pipeline import (
    CallContext,
    CallPolicy,
    PreparedCall,
    Toolbox,
    decode_arguments,
    error_result,
    find_tool,
)
from webreach.tools.render import SearchOutcome, page_json, page_text, search_text
from webreach.tools.schemas import DIALECTS, Dialect, input_schema, tool_schema, tool_schemas

__all__ = [
    "DEFAULT_SESSION",
    "DEFAULT_TOOL_LIMIT",
    "DIALECTS",
    "MAX_QUERIES",
    "MAX_SESSION_CHARS",
    "NAMED_SESSION_PATTERN",
    "OUTPUT_FORMATS",
    "SESSION_PATTERN",
    "TOOLS",
    "TOOL_NAMES",
    "CallContext",
    "CallPolicy",
    "Dialect",
    "Metering",
    "OutputFormat",
    "PreparedCall",
    "QueryResults",
    "SearchOutcome",
    "SearchResults",
    "Searches",
    "SessionStore",
    "ToolAnnotations",
    "ToolArguments",
    "ToolBackend",
    "ToolDefinition",
    "ToolResult",
    "Toolbox",
    "WebFetchArguments",
    "WebSearchArguments",
    "WebSearchMultiArguments",
    "account_policies",
    "check_session",
    "cost_line",
    "decode_arguments",
    "error_body",
    "error_result",
    "fence",
    "find_tool",
    "input_schema",
    "page_json",
    "page_text",
    "search_json",
    "search_output",
    "search_text",
    "select_tools",
    "store_session",
    "tool_schema",
    "tool_schemas",
    "with_ref",
]
