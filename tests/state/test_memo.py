"""Memo: computes once per key, keeps at most N answers (oldest out first), never keeps a failure."""

from __future__ import annotations

import pytest

from webreach.state.memo import Memo


def test_computes_once_per_key_and_returns_the_same_answer() -> None:
    calls: list[str] = []

    def shout(text: str) -> list[str]:
        calls.append(text)
        return [text.upper()]

    memo: Memo[str, list[str]] = Memo(shout)
    first = memo("a")
    assert memo("a") is first and first == ["A"]
    assert memo("b") == ["B"]
    assert calls == ["a", "b"]


def test_keeps_at_most_entries_dropping_the_oldest() -> None:
    calls: list[int] = []
    memo: Memo[int, int] = Memo(lambda n: calls.append(n) or n * 2, entries=3)
    for n in (1, 2, 3, 1, 4):  # the hit on 1 does not save it: 1 is still the oldest when 4 arrives
        memo(n)
    assert len(memo) == 3
    assert calls == [1, 2, 3, 4]
    memo(2)
    memo(1)
    assert calls == [1, 2, 3, 4, 1]  # 2 was kept, 1 was dropped


def test_a_failure_is_not_kept() -> None:
    attempts: list[int] = []

    def flaky(n: int) -> int:
        attempts.append(n)
        if len(attempts) == 1:
            raise ValueError("first time fails")
        return n

    memo: Memo[int, int] = Memo(flaky)
    with pytest.raises(ValueError):
        memo(7)
    assert len(memo) == 0
    assert memo(7) == 7 and memo(7) == 7
    assert attempts == [7, 7]


def test_at_least_one_entry() -> None:
    with pytest.raises(ValueError, match="at least one"):
        Memo(str, entries=0)
