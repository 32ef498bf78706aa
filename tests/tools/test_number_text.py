"""The text forms of numbers: each pattern takes exactly the decimal spellings of its range, checked exhaustively
on small ranges and at every boundary of the large ones."""

from __future__ import annotations

import pytest

from webreach.schema_patterns import schema_pattern_matches
from webreach.tools.number_text import NUMBER_PATTERN, whole_number, whole_number_pattern, whole_number_text

RANGES = [(1, 50), (0, None), (100, 200_000), (1, 2**31 - 1), (0, 0), (7, 123), (13, None), (9, 10), (99, 100)]


def _edges(low: int, high: int | None) -> set[int]:
    """Every number within 3 of a power of ten, of a bound, or of a digit change of the bounds, up to 10**12."""
    marks = {10**k for k in range(13)} | {low, high or 0}
    for bound in (low, high or 0):
        text = str(bound)
        marks |= {int(text[:i] + "0" * (len(text) - i)) for i in range(len(text))}
        marks |= {int(text[:i] + "9" * (len(text) - i)) for i in range(len(text))}
    return {n + d for n in marks for d in range(-3, 4) if n + d >= 0}


@pytest.mark.parametrize(("low", "high"), RANGES)
def test_a_whole_number_pattern_takes_exactly_its_range(low: int, high: int | None) -> None:
    pattern = whole_number_pattern(low, high)
    tried = set(range(2_500)) | _edges(low, high)
    for n in tried:
        assert schema_pattern_matches(pattern, str(n)) == (low <= n and (high is None or n <= high)), (pattern, n)
    for text in ("", "05", "+5", "-1", "5.0", "1e1", "0x5", "٥", "1_0", "5\n"):
        assert not schema_pattern_matches(pattern, text), (pattern, text)


def test_text_is_parsed_only_where_the_pattern_takes_it() -> None:
    assert whole_number(" 7 ", 1, 50) == 7 and whole_number("[3]", 1, 9, marks=True) == 3
    assert whole_number(7, 1, 50) == 7  # numbers pass through: pydantic checks their range
    for refused in ("51", "5.0", "07", "[3]", True):
        with pytest.raises(ValueError):
            whole_number(refused, 1, 50)
    assert schema_pattern_matches(whole_number_text(1, 9, marks=True), "#3")
    assert [schema_pattern_matches(NUMBER_PATTERN, t) for t in ("-0.5", "12", "1e3", "inf", "1" * 16)] == [
        True, True, False, False, False,
    ]  # fmt: skip


def test_an_empty_or_negative_range_has_no_text_form() -> None:
    with pytest.raises(ValueError):
        whole_number_pattern(-1, 5)
    with pytest.raises(ValueError):
        whole_number_pattern(5, 4)
