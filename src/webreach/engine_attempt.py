"""EngineAttempt: what happened when routing asked one engine (models.py re-exports it).

It lives below both models.py and errors.py, so AllEnginesFailedError can carry attempts without errors.py
importing models.py, which imports errors.py (the one circle between them, even under TYPE_CHECKING, is gone).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

AttemptStatus = Literal["ok", "empty", "error", "skipped", "cancelled"]
# which parser read a scraped page: the engine's own selectors, or the generic structural fallback
ParsedBy = Literal["engine", "generic"]


class EngineAttempt(BaseModel):
    """What happened when routing asked one engine."""

    model_config = ConfigDict(frozen=True)

    engine: str
    status: AttemptStatus
    code: str | None = None
    message: str | None = None
    latency_ms: float = 0.0
    count: int = 0
    cached: bool = False
    stale: bool = False
    retry_after: float | None = None
    hedged: bool = Field(False, description="Started early because the previous engine was slow.")
    unsupported: tuple[str, ...] = Field((), description="Requested parameters this engine ignores.")
    parsed_by: ParsedBy | None = Field(
        None,
        description="Which parser read the engine's answer: 'engine' (its own selectors) or 'generic' (the "
        "structural fallback: results are likely right but the engine's parser needs attention). Left out when "
        "nothing was parsed (an error, or an answer from the cache).",
        exclude_if=lambda value: value is None,
    )
