"""Value types shared by the core and every front door: requests, hits, responses and attempts.

All models are frozen pydantic v2 models. `SearchRequest` is the single place search input is validated;
doors build it with `SearchRequest.create(...)`, which turns validation failures into InvalidInputError.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from webreach.defaults import DEFAULT_LIMIT as DEFAULT_LIMIT
from webreach.defaults import DEFAULT_MAX_CHARS as DEFAULT_MAX_CHARS
from webreach.defaults import MAX_LIMIT as MAX_LIMIT
from webreach.defaults import MAX_PAGE as MAX_PAGE
from webreach.defaults import TOOL_LIMITS as TOOL_LIMITS
from webreach.defaults import ResultLimit as ResultLimit
from webreach.engine_attempt import AttemptStatus as AttemptStatus
from webreach.engine_attempt import EngineAttempt as EngineAttempt
from webreach.engine_attempt import ParsedBy as ParsedBy
from webreach.errors import InvalidInputError
from webreach.schema_patterns import (
    LANGUAGE_PATTERN,
    QUERY_PATTERN,
    SITE_PATTERN,
    check_query_not_blank,
    schema_pattern_matches,
)

Freshness = Literal["day", "week", "month", "year"]
SafeSearch = Literal["off", "moderate", "strict"]

MAX_QUERY_CHARS = 500
# a host name is at most 253 characters (RFC 1035); measured as sent, before a scheme or slash is removed
MAX_SITE_CHARS = 253
# language and region codes: 'en', 'zh-hans', 'pt-br' (the longest accepted after cleaning)
MAX_LANGUAGE_CHARS = 8
# request fields an engine may or may not honour; Engine.supports lists the ones it does (the last four are
# image-search filters: only image engines honour them, web engines report them as ignored)
OPTIONAL_PARAMETERS = (
    "page",
    "site",
    "freshness",
    "language",
    "region",
    "safesearch",
    "size",
    "type",
    "colour",
    "licence",
)
ImageSize = Literal["small", "medium", "large", "wallpaper"]
ImageType = Literal["photo", "clipart", "line", "gif", "transparent"]
ImageColour = Literal[
    "color", "monochrome", "red", "orange", "yellow", "green", "teal", "blue", "purple", "pink", "white", "gray",
    "black", "brown",
]  # fmt: skip
ImageLicence = Literal["public", "share", "share_commercially", "modify", "modify_commercially"]


def _unset(value: object) -> bool:
    return value is None


class CallerInput(BaseModel):
    """A model built from a caller's input: constructing it with bad fields raises InvalidInputError naming them
    (a WebreachError, as every error of the public API), not pydantic's ValidationError."""

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise InvalidInputError(describe_validation_error(exc)) from None


class SearchRequest(CallerInput):
    """What to search for, engine-independent. Routing (which engines) is passed beside it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    query: str = Field(
        min_length=1,
        max_length=MAX_QUERY_CHARS,
        description="What to search for.",
        json_schema_extra={"pattern": QUERY_PATTERN},
    )
    limit: int = ResultLimit(DEFAULT_LIMIT, MAX_LIMIT).field("Maximum number of results.")
    page: int = Field(1, ge=1, le=MAX_PAGE, description="Result page, 1-based.")
    site: str | None = Field(
        None,
        max_length=MAX_SITE_CHARS,
        description="Restrict results to this domain, e.g. 'python.org'.",
        json_schema_extra={"pattern": SITE_PATTERN},
    )
    freshness: Freshness | None = Field(None, description="Only results from the last day/week/month/year.")
    language: str | None = Field(None, description="Result language as ISO 639-1, e.g. 'en', 'zh'.")
    region: str | None = Field(None, description="Region as ISO 3166-1 alpha-2, e.g. 'us', 'cn'.")
    safesearch: SafeSearch = Field("moderate", description="Adult-content filter.")
    # image-search filters (issue 14); left out of the serialized request when unset, so web cache keys keep
    # the shape they had
    size: ImageSize | None = Field(None, description="Image size.", exclude_if=_unset)
    type: ImageType | None = Field(None, description="Image type.", exclude_if=_unset)
    colour: ImageColour | None = Field(None, description="Dominant colour, or color / monochrome.", exclude_if=_unset)
    licence: ImageLicence | None = Field(None, description="Usage rights.", exclude_if=_unset)

    @field_validator("query", mode="before")
    @classmethod
    def _blank_query(cls, value: Any) -> Any:
        check_query_not_blank(value)
        return value

    @field_validator("query")
    @classmethod
    def _strip_query(cls, value: str) -> str:
        return " ".join(value.split())

    @field_validator("site")
    @classmethod
    def _clean_site(cls, value: str | None) -> str | None:
        if value is None:
            return None
        # the pattern admits no space, control character or lone surrogate (invalid UTF-8 on a command line): none
        # belongs in a host name, and a lone surrogate cannot even become a cache key
        site = value.strip().lower().removeprefix("https://").removeprefix("http://").strip("/")
        if not schema_pattern_matches(SITE_PATTERN, value) or not site:
            raise ValueError("site must be a bare domain such as 'python.org'")
        return site

    @field_validator("language", "region")
    @classmethod
    def _clean_code(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        code = value.strip().lower().replace("_", "-")
        if not schema_pattern_matches(LANGUAGE_PATTERN, value.strip()) or len(code) > MAX_LANGUAGE_CHARS:
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
        asked = (  # in OPTIONAL_PARAMETERS order
            self.page != 1,
            self.site is not None,
            self.freshness is not None,
            self.language is not None,
            self.region is not None,
            self.safesearch != "moderate",
            self.size is not None,
            self.type is not None,
            self.colour is not None,
            self.licence is not None,
        )
        if not any(asked):  # the usual request, looked at once per engine asked
            return ()
        return tuple(name for name, set_ in zip(OPTIONAL_PARAMETERS, asked, strict=True) if set_)


def describe_validation_error(exc: ValidationError) -> str:
    """One readable line per invalid field, e.g. "limit: must be <= 50 (got 80)"."""
    parts = []
    for err in exc.errors():
        field = ".".join(str(p) for p in err["loc"]) or "input"
        message = str(err["msg"]).removeprefix("Value error, ")
        got = err.get("input")
        shown = f" (got {got!r:.60})" if got is not None and not isinstance(got, dict | BaseModel) else ""
        parts.append(f"{field}: {message}{shown}")
    return "; ".join(parts)


class ImageFields(BaseModel):
    """What an image-search hit adds to a Hit (whose url is then the page the image sits on)."""

    model_config = ConfigDict(frozen=True)

    image_url: str = Field(description="The full-size image.")
    thumbnail_url: str | None = None
    width: int | None = None
    height: int | None = None


# an ISO date with a midnight time that says nothing more (no zone, or UTC): the day only
MIDNIGHT = re.compile(r"(\d{4}-\d{2}-\d{2})[T ]00:00(?::00(?:\.0+)?)?(?:Z|[+-]00:?00)?")


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
    engines: tuple[str, ...] = Field(
        (), description="Every engine that found it: several when merged (multi), else its one engine.",
        validate_default=True,
    )  # fmt: skip
    score: float | None = None
    image: ImageFields | None = Field(None, description="Image hits only: the image itself.", exclude_if=_unset)

    @field_validator("date")
    @classmethod
    def _day_only_at_midnight(cls, value: str | None) -> str | None:
        """A date with a midnight time and no other zone than UTC ("2024-07-30T00:00:00", what SearXNG and some
        APIs send for a day) is the day itself, as every other engine gives it: one form, YYYY-MM-DD."""
        if value is None:
            return None
        found = MIDNIGHT.fullmatch(value.strip())
        return found[1] if found else value

    @field_validator("engines")
    @classmethod
    def _at_least_its_engine(cls, value: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        """`engines` is never empty (issue 41: auto and single-engine answers said `engines: []`)."""
        engine = info.data.get("engine")
        return value or ((engine,) if isinstance(engine, str) else value)

    @cached_property
    def derived(self) -> dict[str, Any]:
        """Scratch space for views derived from this hit, kept with the object (tools/render.py keeps its compact
        lines here, so a cached hit is rendered once). Not a field: never dumped, validated or compared. model_copy
        carries it over, so a reader checks what an entry was derived from."""
        return {}


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
    answer: str | None = Field(
        None, description="The provider's AI answer, when it wrote one (Tavily with include_answer).", exclude_if=_unset
    )

    @cached_property
    def derived(self) -> dict[str, Any]:
        """Scratch space for views derived from this response (tools/output.py keeps its JSON template here). Not a
        field: never dumped, validated or compared. model_copy carries it over (routing/kept.py relies on that for a
        cached answer's per-call copies), so a reader checks what an entry was derived from."""
        return {}


ReadFormat = Literal["markdown", "text", "html", "json"]
ReaderName = Literal["auto", "direct", "browser", "jina"]
MAX_URL_CHARS = 4096
MAX_WINDOW_CHARS = 200_000
# a read for a question answers with passages within this many tokens unless max_tokens says otherwise
QUESTION_MAX_TOKENS = 1000


class ReadRequest(CallerInput):
    """What to read: a URL (the tools resolve a session's refs to URLs before asking), and the window wanted."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    url: str = Field(max_length=MAX_URL_CHARS, description="http(s) URL to read.")
    start: int = Field(0, ge=0, description="Character offset to start the window at (from next_start).")
    max_chars: int = Field(DEFAULT_MAX_CHARS, ge=100, le=MAX_WINDOW_CHARS, description="Window size in characters.")
    max_tokens: int | None = Field(None, ge=10, description="Also cap the window at this many tokens.")
    format: ReadFormat = Field("markdown", description="markdown, text, html (cleaned) or json (structured).")
    reader: ReaderName = Field("auto", description="auto, direct, browser (JavaScript pages) or jina.")
    question: str | None = Field(
        None,
        min_length=1,
        max_length=MAX_QUERY_CHARS,
        pattern=QUERY_PATTERN,
        description="Read for this question: the page's most relevant passages, in page order, within max_tokens "
        f"(default {QUESTION_MAX_TOKENS}), each with an anchor to quote or read on from.",
    )
    passage: int | None = Field(None, ge=1, description="Read one passage by its number (the n of an anchor [ref§n]).")

    @field_validator("url")
    @classmethod
    def _strip_url(cls, value: str) -> str:
        return value.strip()

    @classmethod
    def create(cls, **fields: Any) -> ReadRequest:
        """Validate caller input; problems become one InvalidInputError."""
        try:
            return cls.model_validate({k: v for k, v in fields.items() if v is not None})
        except (ValidationError, ValueError) as exc:
            message = describe_validation_error(exc) if isinstance(exc, ValidationError) else str(exc)
            raise InvalidInputError(message) from None


TRIM_MARK = "\u2026"  # where a trimmed passage's text was cut (extract/packing.py cuts, tools/ say what it means)


class PagePassage(BaseModel):
    """One passage of a page read for a question (or by its number): its number, heading path and text."""

    model_config = ConfigDict(frozen=True)

    index: int = Field(description="The passage's number on the page (from 1; the n of an anchor [ref§n]).")
    headings: list[str] = Field(default_factory=list, description="The headings it sits under, outermost first.")
    kind: str = Field("text", description="text, list, table or code.")
    text: str
    trimmed: bool = Field(
        False,
        description="Only the passage's best sentences are shown, the cut marked with an ellipsis; reading the "
        "passage by its number (passage=n) returns it whole.",
        exclude_if=lambda trimmed: not trimmed,
    )


class PageMetadata(BaseModel):
    """What a page says about itself, as the extractor read it (extract/metadata.py); None where it says nothing
    usable. Declared once: the extractor's result carries these fields and a read Page returns them."""

    model_config = ConfigDict(frozen=True)

    title: str | None = None
    author: str | None = None
    date: str | None = Field(None, description="Publication date, ISO 8601 (YYYY-MM-DD or a full timestamp).")
    language: str | None = None
    canonical_url: str | None = None
    sitename: str | None = Field(None, description="The site's name as the page declares it (og:site_name ...).")


METADATA_FIELDS = tuple(PageMetadata.model_fields)


class PageSource(BaseModel):
    """Where a read page came from."""

    model_config = ConfigDict(frozen=True)

    url: str = Field(description="The URL asked for.")
    final_url: str = Field(description="Where redirects ended.")
    status: int
    content_type: str


class Page(PageMetadata, PageSource):  # the fields of PageSource, then PageMetadata's, then its own
    """A read page: metadata plus one window of its extracted content (or, read for a question, passages)."""

    model_config = ConfigDict(frozen=True)

    page_type: str | None = Field(
        None,
        description="The HTML page's kind when the extractor was sure of it: article, forum, product, listing, "
        "collection, documentation or service.",
    )
    format: ReadFormat = "markdown"
    content: str = Field(description="The window [start, start + len(content)) of the extracted content.")
    start: int = 0
    total_chars: int = Field(description="Length of the whole extracted content.")
    next_start: int | None = Field(None, description="Where the next window starts; None at the end.")
    truncated: bool = Field(
        False,
        description="A size budget cut the document itself short (its end is missing); a window that merely ends "
        "before the document does says so with next_start instead.",
    )
    tokens: int | None = Field(None, description="Tokens in the window (when max_tokens was asked for).")
    tokens_estimated: bool = Field(False, description="True when no tokenizer was installed and tokens is an estimate.")
    reader: str = Field("direct", description="Reader that produced the page.")
    cached: bool = False
    question: str | None = Field(None, description="The question the passages were chosen for.")
    passages: list[PagePassage] | None = Field(
        None, description="Read for a question or by passage: the passages returned, in page order (None: a window)."
    )
    total_passages: int | None = Field(None, description="How many passages the whole page has.")
    total_tokens: int | None = Field(
        None, description="Tokens of all the page's passages with their labels (to weigh what was left out)."
    )
