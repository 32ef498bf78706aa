"""The checks and forgiving conversions of one argument's value, shared by the tools' argument models
(tools/arguments.py): nesting depth of raw and decoded arguments, lists sent as strings, lengths and patterns checked
on the text as sent, enum-like values' case and spaces, and arguments of which exactly one is given.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from webreach.bounded_json import nests_deeper_than
from webreach.defaults import MAX_JSON_DEPTH
from webreach.errors import Arg, InvalidInputError, hint
from webreach.models import MAX_QUERY_CHARS
from webreach.schema_patterns import schema_pattern_matches


def check_exactly_one(names: tuple[str, ...], given: Mapping[str, Any]) -> None:
    """InvalidInputError unless exactly one of `names` is given (not null): the one check of web_fetch's url and ref
    for every door (MCP, REST, the CLI's `fetch URL` / `--ref N`), its hint written in each door's syntax."""
    present = [name for name in names if given.get(name) is not None]
    if len(present) == 1:
        return
    said = " and ".join(present) + " were given" if present else "none was given"
    slots = " or ".join("{}" for _ in names)
    next_step = hint(f"Keep only one: {slots}." if present else f"Pass {slots}.", *(Arg(name) for name in names))
    raise InvalidInputError(f"give exactly one of {' or '.join(names)} ({said})", hint=next_step)


def check_json_depth(text: str | bytes, *, limit: int = MAX_JSON_DEPTH) -> None:
    """InvalidInputError when JSON `text` nests arrays/objects deeper than `limit`, found without decoding (so it is
    safe on text no decoder should recurse into)."""
    data = text if isinstance(text, bytes) else text.encode("utf-8", errors="surrogatepass")
    if data.count(b"[") + data.count(b"{") <= limit:  # the common case: too few brackets to be too deep
        return
    if nests_deeper_than(data, limit):
        raise InvalidInputError(
            f"arguments nest deeper than {limit} levels", hint="Send a flat JSON object of the tool's arguments."
        )


def check_depth(value: Any, *, limit: int = MAX_JSON_DEPTH) -> None:
    """InvalidInputError when decoded arguments (dicts and lists) nest deeper than `limit`; iterative, so a deep
    value cannot exhaust the stack here either."""
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, Mapping | list | tuple):
            if depth >= limit:
                raise InvalidInputError(
                    f"arguments nest deeper than {limit} levels", hint="Send a flat object of the tool's arguments."
                )
            pending.extend((child, depth + 1) for child in _children(item))


def _children(item: Mapping[str, Any] | list[Any] | tuple[Any, ...]) -> Iterator[Any]:
    return iter(item.values()) if isinstance(item, Mapping) else iter(item)


def lowered(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


def as_list(value: Any, *, max_chars: int) -> Any:
    """A JSON-encoded list (of at most `max_chars` characters) or a comma/space separated string as a list;
    anything else unchanged."""
    if not isinstance(value, str):
        return value
    text = value.strip(" \t\n\r\f\v")  # ASCII spacing: see below
    if text.startswith("["):
        if len(text) > max_chars or nests_deeper_than(text, 1):
            return value  # not a list of strings this argument could take: validation says so
        try:
            decoded = json.loads(text)
        except ValueError:
            return value
        return decoded if isinstance(decoded, list) else value
    # split at commas and ASCII spacing only: str.split() would also split at (and drop) \x1c-\x1f, so a list
    # of control characters read as an empty list (the default) instead of failing as the names it is not
    return [part for part in re.split(r"[,\s]+", text, flags=re.ASCII) if part]


def as_sent(value: Any, *, pattern: str, max_chars: int, min_chars: int = 0) -> Any:
    """`value` unchanged once it passes the schema's length and pattern checked as a JSON Schema validator checks
    them: on the text as sent (before whitespace is stripped), the pattern with re.search."""
    if isinstance(value, str):
        if not min_chars <= len(value) <= max_chars:
            raise ValueError(f"must have {min_chars}-{max_chars} characters, whitespace included")
        if not schema_pattern_matches(pattern, value):
            raise ValueError(f"must match the pattern {pattern}")
    return value


def check_query_length(value: Any) -> None:
    """Queries are measured as sent, whitespace included, so the schemas' maxLength is exactly what is accepted."""
    if isinstance(value, str) and len(value) > MAX_QUERY_CHARS:
        raise ValueError(f"a query may have at most {MAX_QUERY_CHARS} characters, whitespace included")
