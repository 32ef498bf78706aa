"""Which store session a tool call's refs live in: one rule for every door (docs/decisions.md, "Refs").

In order:
1. an explicit session the client names: the X-Webreach-Session header (REST, MCP over HTTP), the `webreach/session`
   field of an MCP tools/call `_meta`, `--session` on the command line (`webreach search/fetch/mcp`);
2. else the caller's identity (`CallContext.caller`, set by the door from an API key once accounts exist): each
   caller has its own default session;
3. else DEFAULT_SESSION, shared by every anonymous caller of one store: with the SQLite state file that is one
   default per state file, so `webreach search` in one process and `web_fetch(ref=1)` in the next stdio server,
   or two MCP sessions of a client that opens one per call, see the same refs. A local keyless HTTP server has
   the single default.

The client's MCP session (Mcp-Session-Id, or a stdio connection) is deliberately not a ref namespace: a client
that opens a new session for every call (langchain-mcp-adapters' get_tools(), one-shot MCP Inspector CLI calls)
cannot be told from one that keeps it until its second call, and refs numbered in a session the client then drops
can never be read. Sharing a default costs little: a session's refs are stable per URL and never reused, so a ref
names the same page for everyone who was shown it.

A caller's sessions are kept apart from everyone else's: with a caller, the store session is `@<caller>/<name>`
(`@<caller>/default` when none is named). Names starting with "@" are reserved for that, so no client can name
its way into another caller's refs.
"""

from __future__ import annotations

import re

from webreach.errors import InvalidInputError
from webreach.state.sessions import MAX_SESSION_CHARS, SESSION_EXCLUDED, check_session

DEFAULT_SESSION = "default"
_CALLER_MARK = "@"
# what a door may name (the session header, `_meta`, --session): a storable name not starting with the mark
# (spelled without a lookahead: JSON Schema tools that generate strings from patterns do not all support one)
NAMED_SESSION_PATTERN = (
    rf"^[^{re.escape(_CALLER_MARK)}{SESSION_EXCLUDED}][^{SESSION_EXCLUDED}]{{0,{MAX_SESSION_CHARS - 1}}}$"
)
# the session header's: HTTP drops a header value's leading spaces and tabs, so "\t@x" arrives as the reserved "@x"
HEADER_SESSION_PATTERN = (
    rf"^[^ \t{re.escape(_CALLER_MARK)}{SESSION_EXCLUDED}][^{SESSION_EXCLUDED}]{{0,{MAX_SESSION_CHARS - 1}}}$"
)


def store_session(session: str | None, caller: str | None = None) -> str:
    """The store session of a call naming `session` (None: none named) made by `caller` (None: anonymous).

    InvalidInputError for a name the store cannot take or one reserved for callers' sessions."""
    name = DEFAULT_SESSION if session is None else check_session(session)
    if name.startswith(_CALLER_MARK):
        raise InvalidInputError(
            f"session names starting with {_CALLER_MARK!r} are reserved", hint="Use a name such as 'research'."
        )
    if caller is None:
        return name
    return check_session(f"{_CALLER_MARK}{caller}/{name}")
