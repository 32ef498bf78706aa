"""json.loads for hostile documents: a size and a nesting-depth cap checked before the parser recurses.

The standard parser recurses once per nesting level, so a body of 100,000 `[` raised RecursionError out of the
extractor (and rendering such a value again recurses as deep). `loads` refuses such a document with
JsonTooDeepError (a ValueError, like every other reason a text is not usable JSON) after one linear scan; the
scan only runs when the text holds more brackets than MAX_DEPTH, which ordinary documents rarely do.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 64  # JSON-LD and API responses nest a dozen levels; 64 leaves room and keeps recursion shallow
# a JSON string, the unrolled-loop form (linear, no backtracking); an unterminated one runs to the end, so one quote
# followed by escaped quotes and no closing one is one match, not a failed scan from every quote (that was quadratic:
# 80 KB took 17 s; now 2 ms)
JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
AS_SQUARE = bytes.maketrans(b"{}", b"[]")
NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))


class JsonTooDeepError(ValueError):
    """The document nests deeper than allowed (or is larger than allowed): treat it as not JSON."""


def loads(text: str, *, max_depth: int = MAX_DEPTH, max_chars: int | None = None) -> Any:
    """json.loads(text), refusing documents over `max_chars` or nested deeper than `max_depth` (ValueError)."""
    if max_chars is not None and len(text) > max_chars:
        raise JsonTooDeepError(f"JSON document of {len(text):,} characters, over the {max_chars:,} allowed")
    if text.count("[") + text.count("{") > max_depth and nesting_depth(text, stop_after=max_depth) > max_depth:
        raise JsonTooDeepError(f"JSON document nested deeper than {max_depth} levels")
    try:
        return json.loads(text)
    except RecursionError:  # the depth check above should make this unreachable; a parser change must not crash
        raise JsonTooDeepError("JSON document nested too deeply for the parser") from None


def nesting_depth(text: str | bytes, *, stop_after: int) -> int:
    """The deepest bracket nesting outside strings, counting stopped once it passes `stop_after`.

    C-speed passes, not a loop over characters (which took 3 s on a 2.5 MB answer): strings and everything but
    brackets are cut out, braces become brackets, then each pass removes the innermost pairs, one level per
    pass. Brackets that do not pair up (a decoder would recurse into them) count as deeper than `stop_after`.
    """
    data = text if isinstance(text, bytes) else text.encode("utf-8", errors="surrogatepass")
    # one kind of bracket: the kinds matter for validity (json.loads checks that), not for depth
    brackets = JSON_STRING.sub(b"", data).translate(AS_SQUARE, NOT_BRACKETS)
    depth = 0
    while brackets and depth <= stop_after:
        shorter = brackets.replace(b"[]", b"")
        if len(shorter) == len(brackets):
            return stop_after + 1
        brackets, depth = shorter, depth + 1
    return depth


def nests_deeper_than(text: str | bytes, limit: int) -> bool:
    """Whether JSON text (tool arguments, a request body, an MCP line) nests arrays/objects deeper than `limit`."""
    return nesting_depth(text, stop_after=limit) > limit
