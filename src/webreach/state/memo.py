"""Memos: the last N answers of a pure, deterministic computation, kept in process memory.

For work the serving hot path would otherwise repeat on every identical call (parsing the same argument text,
hashing the same request into a cache key). Only successful answers are kept: a computation that raised is
simply done again next time. The oldest entry goes first when the memo is full; a hit does not reorder (a
repeated call stays cheap however old its entry, and reordering would cost every hit to spare a rare miss).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

DEFAULT_ENTRIES = 512


class Memo(Generic[K, V]):
    """At most `entries` answers of `compute`, by key; `compute` must give equal answers for equal keys."""

    def __init__(self, compute: Callable[[K], V], *, entries: int = DEFAULT_ENTRIES) -> None:
        _check_entries(entries)
        self._compute = compute
        self._entries = entries
        self._answers: dict[K, V] = {}

    def __call__(self, key: K) -> V:
        try:
            return self._answers[key]
        except KeyError:
            pass
        answer = self._compute(key)
        _keep(self._answers, key, answer, self._entries)
        return answer

    def __len__(self) -> int:
        return len(self._answers)


def _check_entries(entries: int) -> None:
    if entries < 1:
        raise ValueError("a memo keeps at least one entry")


def _keep(answers: dict[Any, Any], key: Hashable, answer: object, entries: int) -> None:
    """Store an answer, first dropping the oldest one when `entries` are kept already."""
    if len(answers) >= entries:
        del answers[next(iter(answers))]
    answers[key] = answer
