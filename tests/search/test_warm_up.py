"""Warm-up tokens: kept for their ttl on the injected clock, bounded, and expired entries dropped."""

from __future__ import annotations

from webreach.search.warm_up import WarmUpTokens
from webreach.testing import FakeClock


def test_tokens_are_kept_until_their_ttl_passes() -> None:
    clock = FakeClock()
    tokens = WarmUpTokens(clock)
    tokens.put("duckduckgo", "python", {"vqd": "4-123"}, ttl=600)
    clock.advance(599)
    assert tokens.get("duckduckgo", "python") == {"vqd": "4-123"}
    clock.advance(1)
    assert tokens.get("duckduckgo", "python") is None
    assert tokens.get("so360", "so360") is None


def test_expired_entries_are_dropped_when_new_ones_arrive() -> None:
    clock = FakeClock()
    tokens = WarmUpTokens(clock)
    for page in range(50):
        tokens.put("duckduckgo", f"query {page}", {"vqd": str(page)}, ttl=60)
    assert len(tokens) == 50
    clock.advance(60)
    tokens.put("duckduckgo", "a new query", {"vqd": "new"}, ttl=60)
    assert len(tokens) == 1


def test_the_store_is_bounded_and_drops_the_least_recently_used() -> None:
    clock = FakeClock()
    tokens = WarmUpTokens(clock, max_entries=8)
    tokens.put("so360", "so360", {"cookie": "kept"}, ttl=3600)
    for page in range(100):
        tokens.get("so360", "so360")  # the engine's session token stays in use
        tokens.put("duckduckgo", f"query {page}", {"vqd": str(page)}, ttl=3600)
    assert len(tokens) == 8
    assert tokens.get("so360", "so360") == {"cookie": "kept"}
    assert tokens.get("duckduckgo", "query 0") is None
    assert tokens.get("duckduckgo", "query 99") == {"vqd": "99"}


def test_a_ttl_of_zero_keeps_nothing() -> None:
    tokens = WarmUpTokens(FakeClock())
    tokens.put("startpage", "startpage", {"sc": "x"}, ttl=0)
    assert tokens.get("startpage", "startpage") is None and len(tokens) == 0
