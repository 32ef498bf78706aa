"""Cross-cutting policies. Each wraps a Search and returns a Search with the same signature.

The stack order lives in one place, apply_policies(): cache -> breaker -> rate limit -> retry -> deadline.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from webreach.models import Hit, SearchRequest


@dataclass(frozen=True)
class EngineResult:
    """What one engine call produced."""

    hits: tuple[Hit, ...]
    cached: bool = False
    stale: bool = False


class Search(Protocol):
    """One engine's search, possibly wrapped in policies."""

    async def __call__(self, request: SearchRequest) -> EngineResult: ...
