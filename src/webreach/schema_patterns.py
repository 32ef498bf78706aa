"""The text patterns the schemas state (a query, a site, a language or region code), read in Python as JSON Schema
reads them, and the one message for an empty query: the models validate with them, the tools' schemas publish
them."""

from __future__ import annotations

import re
from functools import lru_cache

# What the schemas' `pattern`s say, written so ECMAScript (what JSON Schema validators use) and Python read them
# alike: explicit character classes, no \s, \S or \w (whose meanings differ), and `$` checked as the very end
# (`schema_pattern_matches`), so the documents and the server agree exactly:
# a query holds something besides whitespace (every character str.split() splits on);
_SPACES = "\\t\\n\\u000b\\f\\r\\u001c-\\u001f \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
QUERY_PATTERN = f"[^{_SPACES}]"
# a site is a domain in ASCII (an internationalized one in its xn-- form), optionally written with http(s)://
# before it and one slash after it;
SITE_PATTERN = r"^(?:[Hh][Tt][Tt][Pp][Ss]?://)?[A-Za-z0-9_.-]+/?$"
# a language or region code is ASCII letters, parts joined by - or _ ('en', 'zh-hans', 'pt_BR').
LANGUAGE_PATTERN = r"^[A-Za-z]+(?:[-_][A-Za-z]+)*$"


def schema_pattern_matches(pattern: str, value: str) -> bool:
    """Whether `value` matches a schema `pattern` as JSON Schema reads it: searched, `$` only at the very end
    (Python's `$` also matches before a final newline)."""
    return _schema_regex(pattern).search(value) is not None


@lru_cache(maxsize=256)  # the schemas' own patterns (a few dozen): a session name is checked on every tool call
def _schema_regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern[:-1] + r"\Z" if pattern.endswith("$") else pattern)


# the one message for an empty query, whichever door it came through (CLI, REST, MCP)
EMPTY_QUERY = "empty or only whitespace; give the words to search for"


def check_query_not_blank(value: object) -> None:
    """Raise ValueError(EMPTY_QUERY) for a query string with nothing but whitespace (a validator's first step)."""
    if isinstance(value, str) and not value.split():
        raise ValueError(EMPTY_QUERY)
