"""Value types shared by the core and every front door: requests, hits, responses and attempts.

All models are frozen pydantic v2 models. `SearchRequest` is the single place search input is validated;
doors build it with `SearchRequest.create(...)`, which turns validation failures into InvalidInputError.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from webreach.errors import InvalidInputError

Freshness = Literal["day", "week", "month", "year"]
SafeSearch = Literal["off", "moderate", "strict"]
AttemptStatus = Literal["ok", "empty", "error", "skipped", "cancelled"]

MAX_QUERY_CHARS = 500
MAX_LIMIT = 50
MAX_PAGE = 10

# request fields an engine may or may not honour; Engine.supports lists the ones it does
OPTIONAL_PARAMETERS = ("page", "site", "freshness", "language", "region", "safesearch")


class SearchRequest(BaseModel):
    """What to search for, engine-independent. Routing (which engines) is passed beside it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, description="What to search for.")
    limit: int = Field(10, ge=1, le=MAX_LIMIT, description="Maximum number of results.")
    page: int = Field(1, ge=1, le=MAX_PAGE, description="Result page, 1-based.")
    site: str | None = Field(None, description="Restrict results to this domain, e.g. 'python.org'.")
    freshness: Freshness | None = Field(None, description="Only results from the last day/week/month/year.")
    language: str | None = Field(None, description="Result language as ISO 639-1, e.g. 'en', 'zh'.")
    region: str | None = Field(None, description="Region as ISO 3166-1 alpha-2, e.g. 'us', 'cn'.")
    safesearch: SafeSearch = Field("moderate", description="Adult-content filter.")

    @field_validator("query")
    @classmethod
    def _strip_query(cls, value: str) -> str:
        stripped = " ".join(value.split())
        if not stripped:
            raise ValueError("query is empty or only whitespace")
        return stripped

    @field_validator("site")
    @classmethod
    def _clean_site(cls, value: str | None) -> str | None:
        if value is None:
            return None
        site = value.strip().lower().removeprefix("https://").removeprefix("http://").strip("/")
        if not site or " " in site or "/" in site:
            raise ValueError("site must be a bare domain such as 'python.org'")
        return site

    @field_validator("language", "region")
    @classmethod
    def _clean_code(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        code = value.strip().lower().replace("_", "-")
        if not code.replace("-", "").isalpha() or len(code) > 8:
            raise ValueError("use a short code such as 'en', 'zh', 'us' or 'cn'")
        return code

    @classmethod
    def create(cls, **fields: Any) -> SearchRequest:
        """Validate caller input; every problem becomes one InvalidInputError naming the fields."""
        try:
            return cls.model_validate({k: v for k, v in fields.items() if v is not None})
        except ValidationError as exc:
            raise InvalidInputError(describe_validation_error(exc)) from None

    def set_parameters(self) -> tuple[str, ...]:
        """Optional parameters the caller actually asked for (defaults are not requests)."""
        asked = {
            "page": self.page != 1,
            "site": self.site is not None,
            "freshness": self.freshness is not None,
            "language": self.language is not None,
            "region": self.region is not None,
            "safesearch": self.safesearch != "moderate",
        }
        return tuple(name for name in OPTIONAL_PARAMETERS if asked[name])


def describe_validation_error(exc: ValidationError) -> str:
    """One readable line per invalid field, e.g. "limit: must be <= 50 (got 80)"."""
    parts = []
    for err in exc.errors():
        field = ".".join(str(p) for p in err["loc"]) or "input"
        message = str(err["msg"]).removeprefix("Value error, ")
        got = err.get("input")
        shown = f" (got {got!r:.60})" if got is not None and not isinstance(got, dict) else ""
        parts.append(f"{field}: {message}{shown}")
    return "; ".join(parts)


class Hit(BaseModel):
    """One search result as every engine reports it."""

    model_config = ConfigDict(frozen=True)

    rank: int = Field(description="1-based position in the list it came from.")
    title: str
    url: str = Field(description="Absolute target URL, tracking redirects decoded where possible.")
    display_url: str | None = None
    snippet: str = ""
    date: str | None = Field(None, description="Publication date, ISO 8601 where known, else as shown.")
    source: str | None = Field(None, description="Site or publisher name.")
    engine: str = Field(description="Engine that produced this hit (the first one, when merged).")
    engines: tuple[str, ...] = Field((), description="Every engine that found it (multi mode).")
    score: float | None = None


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


class SearchMeta(BaseModel):
    """How a response came about."""

    model_config = ConfigDict(frozen=True)

    mode: str = Field(description="'auto', 'multi' or 'engine'.")
    engines_used: tuple[str, ...] = ()
    attempts: tuple[EngineAttempt, ...] = ()
    elapsed_ms: float = 0.0
    stale: bool = Field(False, description="Served from an expired cache entry because every engine failed.")


class SearchResponse(BaseModel):
    """Results plus the story of every engine attempt."""

    model_config = ConfigDict(frozen=True)

    query: str
    results: tuple[Hit, ...]
    meta: SearchMeta
