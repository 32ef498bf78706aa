"""Memos: compute once per key (or object), keep at most N answers (oldest out first), never keep a failure."""

from __future__ import annotations

import pytest

from webreach.state.memo import IdentityMemo, Memo


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

    def double(n: int) -> int:
        calls.append(n)
        return n * 2

    memo: Memo[int, int] = Memo(double, entries=3)
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


def test_identity_memo_answers_the_same_object_only() -> None:
    calls: list[object] = []

    def size(items: list[int]) -> int:
        calls.append(items)
        return len(items)

    memo: IdentityMemo[list[int], int] = IdentityMemo(size, entries=2)
    first, equal = [1, 2], [1, 2]  # unhashable, and equal without being the same object
    assert memo(first) == 2 and memo(first) == 2
    assert memo(equal) == 2
    assert calls == [first, equal]
    memo([3])  # a third object: the oldest entry (first) goes
    assert len(memo) == 2
    memo(first)
    assert len(calls) == 4


def test_identity_memo_keeps_its_objects_alive_so_ids_are_not_reused() -> None:
    memo: IdentityMemo[object, int] = IdentityMemo(id, entries=64)
    answers = {memo(object()) for _ in range(64)}  # each object is dropped by the caller at once
    assert len(answers) == 64  # had the memo not held them, CPython would have handed out the same id again
