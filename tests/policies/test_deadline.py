"""Deadline: an attempt that outlives the engine timeout is cancelled and reported as EngineTimeoutError."""

from __future__ import annotations

import pytest

from webreach.errors import EngineTimeoutError
from webreach.models import SearchRequest
from webreach.policies.deadline import Deadline

from .fakes import ScriptedSearch, make_hits


async def test_a_hanging_attempt_becomes_a_retryable_timeout(search_request: SearchRequest) -> None:
    inner = ScriptedSearch(make_hits(), hang_first=True)
    with pytest.raises(EngineTimeoutError) as info:
        await Deadline(inner, engine="mojeek", timeout=0.05)(search_request)
    assert info.value.engine == "mojeek"
    assert info.value.retryable
    assert inner.cancelled == 1


async def test_a_prompt_answer_passes_through(search_request: SearchRequest) -> None:
    result = await Deadline(ScriptedSearch(make_hits()), engine="mojeek", timeout=5)(search_request)
    assert result.hits == make_hits()


def test_the_timeout_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        Deadline(ScriptedSearch(), engine="mojeek", timeout=0)
