"""A serving process freezes its start-up heap once its app is ready and collects its young objects less often
(frontends/_heap.py), so collections stop walking what start-up built; garbage made while serving is still
collected, and only the first worker announces."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from webreach.frontends._heap import YOUNG_THRESHOLD
from webreach.frontends.http import ready_hook


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """The test process's collector as it was: whatever a test froze goes back to it, its thresholds restored."""
    thresholds = gc.get_threshold()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def tracked(thing: object) -> bool:
    """Whether the collector still walks `thing` (frozen objects are in no generation)."""
    return any(each is thing for each in gc.get_objects())


@pytest.mark.usefixtures("unfrozen")
@pytest.mark.parametrize("index", [0, 1])
def test_a_ready_worker_freezes_its_start_up_heap_and_only_the_first_announces(index: int) -> None:
    started = [_Node()]  # built before the app is ready: start-up's
    assert tracked(started)
    announced: list[int] = []
    before = gc.get_threshold()
    ready_hook(index, lambda: announced.append(index))()
    assert not tracked(started) and gc.get_freeze_count() > 0
    assert gc.get_threshold() == (YOUNG_THRESHOLD, *before[1:])  # the older generations as they were
    assert announced == ([0] if index == 0 else [])


@pytest.mark.usefixtures("unfrozen")
def test_cycles_made_while_serving_are_still_collected() -> None:
    ready_hook(1, lambda: None)()
    first, second = _Node(), _Node()
    first.other, second.other = second, first
    gone = weakref.ref(first)
    del first, second
    assert gc.isenabled()
    gc.collect()
    assert gone() is None
