"""The contract every policy keeps: a Search is an async callable from SearchRequest to EngineResult."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from webreach.models import Hit, ParsedBy, SearchRequest


@dataclass(frozen=True)
class EngineResult:
    """What one engine call produced."""

    hits: tuple[Hit, ...]
    cached: bool = False
    stale: bool = False
    parsed_by: ParsedBy | None = None  # which parser read the page; None when nothing was parsed (cache)
    answer: str | None = None  # the provider's AI answer beside its hits (ParsedPage.answer), cached with them


class Search(Protocol):
    """One engine's search, possibly wrapped in policies."""

    async def __call__(self, request: SearchRequest) -> EngineResult: ...
