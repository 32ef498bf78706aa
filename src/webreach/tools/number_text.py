"""Numbers written as text: the one rule for which strings a numeric tool argument takes, for parsing and schemas.

Models often quote numbers ("limit": "5"), so the tools take a number's digits in a string, and the published
schemas say so exactly: a numeric argument is `anyOf: [{"type": "integer", ...}, {"type": "string", "pattern":
P}]`, where P is the pattern the parser checks strings against (tools/arguments.py), so a string a schema
validator passes is one the tools take and the other way round.

- A whole number in [low, high] is its plain decimal digits, no sign, no leading zero, spaces around allowed: P
  spells out the range (`whole_number_pattern(1, 50)` takes "1" to "50" and nothing else), so "51" fails the
  schema as 51 fails `maximum`.
- A ref may also be written as it is shown, "[3]", or as "#3" (a field marked with MARKS).
- A coordinate (any finite number) is a plain decimal in a string (NUMBER_PATTERN): no exponent, NaN or
  infinity, no spaces.

Booleans are never numbers (pydantic would read true as 1).
"""

from __future__ import annotations

from typing import Any

from webreach.schema_patterns import schema_pattern_matches

# a decimal number, as text: JSON's spelling (no "+", no leading zero, no bare "." or "inf") without an exponent
# and with at most 15 digits before the point, so every string it takes is a finite float (a coordinate never
# needs more: "1e400" or 400 digits would read as infinity, which no box holds)
NUMBER_PATTERN = r"^-?(?:0|[1-9][0-9]{0,14})(?:\.[0-9]+)?$"
# json_schema_extra key of a whole-number field that also takes "#3" and "[3]" (a ref, as compact output shows it)
MARKS = "x-webreach-number-marks"
# the keywords of a numeric schema node that belong to its number branch (the rest, description and default,
# describe the argument)
NUMBER_KEYWORDS = ("type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")


def whole_number_text(low: int, high: int | None, *, marks: bool = False) -> str:
    """The pattern of the strings a whole-number argument from `low` to `high` takes."""
    digits = whole_number_pattern(low, high)[1:-1]
    return f"^ *[#\\[]? *{digits} *\\]? *$" if marks else f"^ *{digits} *$"


def whole_number(value: Any, low: int, high: int | None, *, marks: bool = False) -> Any:
    """`value` as the whole number it spells when it is a string (ValueError unless the pattern takes it);
    other values unchanged, booleans refused."""
    if isinstance(value, bool):
        raise ValueError("must be an integer, not true or false")
    if not isinstance(value, str):
        return value
    if not schema_pattern_matches(whole_number_text(low, high, marks=marks), value):
        upper = f" to {high}" if high is not None else " or more"
        raise ValueError(
            f'must be a whole number from {low}{upper}, as a number or as its digits in a string (e.g. "{low}")'
        )
    return int(value.strip(" #[]"))


def number(value: Any) -> Any:
    """`value` as the number it spells when it is a string (a JSON number), else unchanged; booleans refused."""
    if isinstance(value, bool):
        raise ValueError("must be a number, not true or false")
    if isinstance(value, str):
        if not schema_pattern_matches(NUMBER_PATTERN, value):
            raise ValueError('must be a number, or a plain decimal in a string (e.g. "0.5")')
        return float(value)
    return value


def with_text_form(node: dict[str, Any]) -> dict[str, Any]:
    """A numeric schema node as `anyOf` its number branch and the string branch the parser takes; other nodes
    (and a whole number with no lower bound of 0 or more, which takes no text) unchanged."""
    marks = bool(node.pop(MARKS, False))
    if node.get("type") == "number":
        text = NUMBER_PATTERN
    elif node.get("type") == "integer" and isinstance(node.get("minimum"), int) and node["minimum"] >= 0:
        text = whole_number_text(node["minimum"], node.get("maximum"), marks=marks)
    else:
        return node
    branch = {key: value for key, value in node.items() if key in NUMBER_KEYWORDS}
    rest = {key: value for key, value in node.items() if key not in NUMBER_KEYWORDS}
    return {"anyOf": [branch, {"type": "string", "pattern": text}], **rest}


def whole_number_pattern(low: int, high: int | None = None) -> str:
    """A pattern matching exactly the decimal spellings of the whole numbers from `low` (>= 0) to `high`."""
    if low < 0 or (high is not None and high < low):
        raise ValueError(f"no text form for the range {low} to {high}")
    last = len(str(high)) if high is not None else len(str(low))
    alternatives: list[str] = []
    full: list[int] = []  # a run of digit counts whose every number is in range: one alternative together
    for length in range(len(str(low)), last + 1):
        first = max(low, 10 ** (length - 1) if length > 1 else 1)
        final = min(high, 10**length - 1) if high is not None else 10**length - 1
        if low == 0 and length == 1:
            alternatives.append("0")
        if first == 10 ** (length - 1) and final == 10**length - 1:
            full.append(length)
            continue
        if full:
            alternatives.append(_lengths(full[0], full[-1]))
            full = []
        if first <= final:
            alternatives += _same_length(str(first), str(final))
    if high is None:  # every longer number too
        alternatives.append(_lengths(full[0] if full else last + 1, None))
    elif full:
        alternatives.append(_lengths(full[0], full[-1]))
    return f"^(?:{'|'.join(alternatives)})$"


def _lengths(shortest: int, longest: int | None) -> str:
    """Every number with `shortest` to `longest` digits (no leading zero); None: no upper bound."""
    if longest == shortest:
        return "[1-9]" + _any_digits(shortest - 1)
    if longest is None:
        return "[1-9][0-9]*" if shortest == 1 else f"[1-9][0-9]{{{shortest - 1},}}"
    return f"[1-9][0-9]{{{shortest - 1},{longest - 1}}}"


def _any_digits(count: int) -> str:
    return "[0-9]" * count if count < 2 else f"[0-9]{{{count}}}"


def _same_length(low: str, high: str) -> list[str]:
    """Alternatives matching exactly the numbers from `low` to `high`, both spelled with the same digit count."""
    if low == high:
        return [low]
    rest = len(low) - 1
    if low[0] == high[0]:
        return [low[0] + alternative for alternative in _same_length(low[1:], high[1:])]
    low_whole, high_whole = low[1:] == "0" * rest, high[1:] == "9" * rest  # first digits whose every tail is in
    start = low[0] if low_whole else chr(ord(low[0]) + 1)
    end = high[0] if high_whole else chr(ord(high[0]) - 1)
    head = [] if low_whole else [low[0] + alternative for alternative in _same_length(low[1:], "9" * rest)]
    middle = [_digits(start, end) + _any_digits(rest)] if start <= end else []
    tail = [] if high_whole else [high[0] + alternative for alternative in _same_length("0" * rest, high[1:])]
    return [*head, *middle, *tail]


def _digits(low: str, high: str) -> str:
    return low if low == high else f"[{low}-{high}]"
