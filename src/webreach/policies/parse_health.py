"""Parse health: which parser read each engine's answers lately, recorded below every policy, shown per engine.

ParseHealthRecorder wraps an engine's caller (inside the deadline, retry and breaker layers, so it sees every
answer actually parsed and none served from the cache) and adds each one to the store: "engine" when the
engine's own parser read it, "generic" when the structural fallback had to (engines/_generic.py), "parse_error"
when neither found results on a page that said nothing of having none. Blocks, timeouts and other failures are
no parse and are left to the breaker.

ParseHealth is the view `webreach engines`, `webreach canary` and the admin endpoint show: the last mode and when,
and of the last RECENT answers how many needed the generic parser and how many failed to parse.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from webreach.clock import Clock
from webreach.errors import ParseError
from webreach.models import SearchRequest
from webreach.policies.contract import EngineResult, Search
from webreach.state.parse_health_store import LETTERS, ParseHealthStore, ParseRecord


class ParseHealth(BaseModel):
    """One engine's parse health."""

    model_config = ConfigDict(frozen=True)

    engine: str
    last_mode: str | None = Field(None, description="engine, generic or parse_error; None before any parse.")
    last_at: float | None = Field(None, description="When the last answer was parsed (epoch seconds).")
    answers: int = Field(0, description="Parsed answers remembered (the most recent, at most 20).")
    generic: int = Field(0, description="How many of them needed the generic parser.")
    parse_errors: int = Field(0, description="How many of them no parser could read.")

    @classmethod
    def of(cls, engine: str, record: ParseRecord | None) -> ParseHealth:
        if record is None:
            return cls(engine=engine)
        return cls(
            engine=engine,
            last_mode=record.last_mode,
            last_at=record.last_at,
            answers=len(record.recent),
            generic=record.recent.count(LETTERS["generic"]),
            parse_errors=record.recent.count(LETTERS["parse_error"]),
        )

    def summary(self) -> str:
        """One short cell: the last mode, then how many of the recent answers needed the fallback."""
        if self.last_mode is None:
            return "-"
        trouble = f", {self.parse_errors} failed" if self.parse_errors else ""
        return f"{self.last_mode} ({self.generic}/{self.answers} generic{trouble})"


class ParseHealthRecorder:
    """A Search that records which parser read each answer of `inner` (an engine's caller)."""

    def __init__(self, inner: Search, *, engine: str, store: ParseHealthStore, clock: Clock) -> None:
        self.inner = inner
        self.engine = engine
        self.store = store
        self.clock = clock

    async def __call__(self, request: SearchRequest) -> EngineResult:
        try:
            result = await self.inner(request)
        except ParseError:
            self.store.record(self.engine, "parse_error", self.clock.now())
            raise
        if result.parsed_by is not None:
            self.store.record(self.engine, result.parsed_by, self.clock.now())
        return result
