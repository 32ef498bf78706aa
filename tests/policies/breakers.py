"""Helpers for circuit-breaker tests: a breaker over one process's policy state, and the failures it raises."""

from __future__ import annotations

import pytest

from webreach.errors import SuspendedError, WebreachError
from webreach.models import SearchRequest
from webreach.policies import PolicyState
from webreach.policies.breaker import CircuitBreaker

from .fakes import ScriptedSearch, make_hits


def guarded(state: PolicyState, inner: ScriptedSearch, engine: str = "duckduckgo") -> CircuitBreaker:
    """`inner` behind engine `engine`'s breaker in `state` (one process's view of the shared store)."""
    return CircuitBreaker(inner, engine=engine, state=state.breaker_for(engine), clock=state.clock)


async def fail(breaker: CircuitBreaker, request: SearchRequest, expected: type[WebreachError]) -> WebreachError:
    with pytest.raises(expected) as info:
        await breaker(request)
    return info.value


async def refused_without_a_call(
    state: PolicyState, request: SearchRequest, engine: str = "duckduckgo"
) -> SuspendedError:
    """The SuspendedError `state` answers with for `engine`, after checking the engine itself was not asked."""
    inner = ScriptedSearch(make_hits())
    suspended = await fail(guarded(state, inner, engine), request, SuspendedError)
    assert inner.calls == 0
    assert isinstance(suspended, SuspendedError)
    return suspended
