"""The contract every policy keeps: a Search is an async callable from SearchRequest to EngineResult."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from webreach.models import Hit, ParsedBy, SearchRequest


# not frozen (never changed once built, by convention): built for every search, cached ones included, and a frozen
# dataclass sets each field through object.__setattr__ (about twice the cost; tools/pipeline.py CallContext)
@dataclass(slots=True)
class EngineResult:
    """What one engine call produced."""

    hits: tuple[Hit, ...]
    cached: bool = False
    stale: bool = False
    parsed_by: ParsedBy | None = None  # which parser read the page; None when nothing was parsed (cache)
    answer: str | None = None  # the provider's AI answer beside its hits (ParsedPage.answer), cached with them
    # an in-process cache entry's scratch (CacheEntry.derived), shared by every call this same answer serves:
    # routing keeps the response it built from it there (routing/kept.py); None for any other answer
    kept: dict[Any, Any] | None = field(default=None, compare=False, repr=False)


class Search(Protocol):
    """One engine's search, possibly wrapped in policies."""

    async def __call__(self, request: SearchRequest) -> EngineResult: ...
