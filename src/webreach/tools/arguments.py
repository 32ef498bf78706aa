"""The tools' argument models: what an agent may pass, from which every dialect's JSON schema is generated.

Fields are inherited from SearchRequest and ReadRequest (type constraints, limits, description) with `inherit`, so
a limit lives in models.py only. The schema enum of engine names is filled in at generation time from the
registry (ENGINE_NAMES marks the fields that get it).

Forgiving where it is safe: numbers as their digits in a string ("5"; exactly the strings the schemas' pattern
takes, tools/number_text.py), null for "use the default" (OpenAI strict mode sends every key), case and spaces in
enum-like values ("EN", " Week "), a comma string or a JSON-encoded list where a list is expected, "[3]" or "#3"
for a ref. Strict where it is not: unknown argument names and unknown engines are
errors that list the valid choices, and limits are never clamped silently.

Hostile input is refused before it costs anything (every limit is an InvalidInputError naming it):
- JSON nested deeper than MAX_JSON_DEPTH is refused by a linear scan of the text (check_json_depth) before any
  decoder recurses into it; decoded arguments (MCP hands them over as objects) get the same bound (check_depth).
- A JSON-encoded list inside a string argument is decoded only when it is short enough to be a valid list
  (MAX_LIST_TEXT_CHARS) and flat (depth 1); anything else stays a string and fails validation as one.
- Lengths are checked on the text as sent, before whitespace is stripped, so the schemas' maxLength is exact.

The checks of one value (depth, lists sent as strings, lengths as sent) are tools/argument_values.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from types import MappingProxyType
from typing import Annotated, Any, ClassVar, Self

from annotated_types import Ge, Le
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo

from webreach.defaults import MAX_JSON_DEPTH as MAX_JSON_DEPTH
from webreach.errors import InvalidInputError
from webreach.models import (
    MAX_LANGUAGE_CHARS,
    MAX_QUERY_CHARS,
    MAX_SITE_CHARS,
    TOOL_LIMITS,
    Freshness,
    ReadFormat,
    ReadRequest,
    SearchRequest,
    describe_validation_error,
)
from webreach.schema_patterns import LANGUAGE_PATTERN, QUERY_PATTERN, SITE_PATTERN, check_query_not_blank
from webreach.state.sessions import MAX_REF
from webreach.tools.argument_values import as_list, as_sent, check_exactly_one, check_query_length, lowered
from webreach.tools.argument_values import check_depth as check_depth  # the pipeline's and the tests' import
from webreach.tools.argument_values import check_json_depth as check_json_depth
from webreach.tools.number_text import MARKS, number, whole_number

MAX_QUERIES = 5
# a question-focused read returns at most this many tokens however large a budget is asked for
MAX_QUESTION_TOKENS = 20_000
# web_search reads at most this many of its top results for a question (each read is priced as a web_fetch), and
# this many when a question comes without read_top
MAX_READ_TOP = 5
DEFAULT_READ_TOP = 3
# results an agent's web_search gets by default (models.TOOL_LIMITS, the one definition): fewer than
# models.DEFAULT_LIMIT for people, because each result costs context tokens and agents read on with page=2
DEFAULT_TOOL_LIMIT = TOOL_LIMITS["web_search"].default
# engines asked together in web_search_multi: more than the registry could hold is never meant, and each name is
# echoed in an "unknown engine" error, so names are short
MAX_ENGINES = 32
MAX_ENGINE_NAME_CHARS = 64
# a string holding a JSON list is decoded only up to this length (MAX_QUERIES queries of MAX_QUERY_CHARS, quoted)
MAX_LIST_TEXT_CHARS = MAX_QUERIES * (MAX_QUERY_CHARS + 8) + 8
# json_schema_extra key: the schema generator puts the engine names (plus these extra choices) in the enum
ENGINE_NAMES = "x-webreach-engine-names"
# json_schema_extra key: an argument the model-facing schemas leave out to keep the definitions short (taken all
# the same; the OpenAPI document lists it): tools/schemas.py
UNLISTED = "x-webreach-unlisted"

_FRESHNESS_ALIASES = {"d": "day", "24h": "day", "w": "week", "m": "month", "y": "year"}
_FORMAT_ALIASES = {"md": "markdown", "txt": "text", "plain": "text"}


def inherit(model: type[BaseModel], name: str, **changes: Any) -> Any:
    """A copy of `model`'s field `name` (constraints, description, default) with `changes` applied."""
    return FieldInfo.merge_field_infos(model.model_fields[name], **changes)


# one query's constraints without its description (the query argument describes itself)
QueryText = Annotated[str, inherit(SearchRequest, "query", description=None)]
# an empty or blank code is refused, not read as "any language"; lengths and pattern are checked as sent
# (`as_sent`), so the schema states them and pydantic does not check them again after stripping
LanguageCode = Annotated[
    str, Field(json_schema_extra={"minLength": 2, "maxLength": MAX_LANGUAGE_CHARS, "pattern": LANGUAGE_PATTERN})
]
# an empty or blank url is no target at all: refused here, before a reader is asked
UrlText = Annotated[str, Field(min_length=1, json_schema_extra={"pattern": QUERY_PATTERN})]
EngineName = Annotated[str, Field(min_length=1, max_length=MAX_ENGINE_NAME_CHARS)]
QueryList = Annotated[list[QueryText], Field(min_length=1, max_length=MAX_QUERIES)]
# a coordinate: a finite number, or a JSON number in a string (tools/number_text.py)
Coordinate = Annotated[float, BeforeValidator(number), Field(allow_inf_nan=False)]


class ToolArguments(BaseModel):
    """Base of every tool's arguments: unknown names are refused, null means the default."""

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)
    # arguments of which exactly one must be given (and not null): checked by check_exactly_one, the one check every
    # door's call meets; documents that can say so do (the OpenAPI one)
    exactly_one_of: ClassVar[tuple[str, ...]] = ()
    # (argument, other, values): `argument` may be given (non-empty) only while `other` is one of `values`, its
    # default included; checked here, and said in the documents that can say it (the OpenAPI one)
    only_when: ClassVar[tuple[tuple[str, str, tuple[str, ...]], ...]] = ()

    @model_validator(mode="before")
    @classmethod
    def _exactly_one(cls, data: Any) -> Any:
        if cls.exactly_one_of and isinstance(data, Mapping):
            check_exactly_one(cls.exactly_one_of, data)
        return data

    @model_validator(mode="after")
    def _only_when(self) -> Self:
        for name, other, values in self.only_when:
            if getattr(self, name) and getattr(self, other) not in values:
                choices = " or ".join(repr(value) for value in values)
                raise ValueError(f"{name} applies to {other}={choices} only; drop one of them")
        return self

    @field_validator("*", mode="before")
    @classmethod
    def _whole_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        # a count, a page or a ref: a number, or its digits in a string as the schemas' pattern says; never a
        # boolean (pydantic reads true as 1)
        rule = _number_rules(cls).get(info.field_name or "")
        if rule is None:
            return value
        low, high, marks = rule
        if low is None:  # no text form without a lower bound: numbers only
            return whole_number(value, 0, None) if isinstance(value, bool) else value
        return whole_number(value, low, high, marks=marks)

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Self:
        """Validate an agent's arguments; every problem becomes one InvalidInputError naming the arguments."""
        unknown = sorted(set(raw) - set(cls.model_fields))
        if unknown:
            raise InvalidInputError(
                f"unknown argument{'s' if len(unknown) > 1 else ''}: {', '.join(map(repr, unknown))}",
                hint=f"Valid arguments: {', '.join(cls.model_fields)}.",
            )
        try:
            return cls.model_validate({name: value for name, value in raw.items() if value is not None})
        except ValidationError as exc:
            raise InvalidInputError(describe_validation_error(exc)) from None


@cache
def _number_rules(model: type[BaseModel]) -> Mapping[str, tuple[int | None, int | None, bool]]:
    """The whole-number fields of `model` (int or int | None): lower bound (None: none at 0 or above, so numbers
    only), upper bound, and whether marks (#3, [3]) are taken. Read once per model class: reading the field
    metadata for every field of every call was a tenth of argument parsing."""
    rules: dict[str, tuple[int | None, int | None, bool]] = {}
    for name, field in model.model_fields.items():
        if field.annotation not in (int, int | None):
            continue
        low = next((item.ge for item in field.metadata if isinstance(item, Ge)), None)
        high = next((item.le for item in field.metadata if isinstance(item, Le)), None)
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        floor = low if isinstance(low, int) and low >= 0 else None
        rules[name] = (floor, high if isinstance(high, int) else None, bool(extra.get(MARKS)))
    return MappingProxyType(rules)


# web_search and web_search_multi read their top results for a question alike (tools/search_reading.py): the same
# three arguments, made here once


def reading_question() -> Any:
    """The `question` argument of a search that reads its top results."""
    return inherit(
        ReadRequest,
        "question",
        description="Also read the top results for this question and return their best passages.",
    )


def reading_read_top(*, listed: bool = True) -> Any:
    """The `read_top` argument of a search that reads its top results (unlisted: left out of the model-facing
    schemas)."""
    return Field(
        None,
        ge=0,
        le=MAX_READ_TOP,
        description=f"Results read for the question (default {DEFAULT_READ_TOP}); each costs a web_fetch.",
        json_schema_extra=None if listed else {UNLISTED: True},
    )


def reading_max_tokens() -> Any:
    """The `max_tokens` argument of a search that reads its top results."""
    return Field(
        None,
        ge=10,
        le=MAX_QUESTION_TOKENS,
        description="Token budget of those passages, shared by the pages (default 1000).",
        json_schema_extra={UNLISTED: True},  # the default suits a model; REST and the CLI set it
    )


def pages_to_read(question: str | None, read_top: int | None) -> int:
    """How many top results a search reads: read_top, DEFAULT_READ_TOP when a question comes without it, none
    without a question."""
    if question is None:
        return 0
    return DEFAULT_READ_TOP if read_top is None else read_top


class WebSearchArguments(ToolArguments):
    """web_search."""

    query: QueryText | QueryList = Field(description="What to search for, or a list of queries.")
    engine: str = Field(
        "auto",
        description="auto picks engines and falls back; name an engine only when asked to.",
        json_schema_extra={ENGINE_NAMES: ["auto"]},
    )
    limit: int = TOOL_LIMITS["web_search"].field("Results wanted.")
    page: int = inherit(SearchRequest, "page", description="For more results.")
    site: str | None = inherit(SearchRequest, "site", description="Only this domain, e.g. python.org.")
    freshness: Freshness | None = inherit(SearchRequest, "freshness", description="Only recent results.")
    lang: LanguageCode | None = inherit(SearchRequest, "language", description="Language code, e.g. en, zh.")
    question: str | None = reading_question()
    read_top: int | None = reading_read_top()
    max_tokens: int | None = reading_max_tokens()

    def pages_to_read(self) -> int:
        """How many top results to read (pages_to_read)."""
        return pages_to_read(self.question, self.read_top)

    @field_validator("query", mode="before")
    @classmethod
    def _query_list(cls, value: Any) -> Any:
        # a list sent as a JSON string is common; a query that itself looks like a JSON list of strings is not
        if isinstance(value, str) and value.strip().startswith("["):
            decoded = as_list(value, max_chars=MAX_LIST_TEXT_CHARS)
            if isinstance(decoded, list) and all(isinstance(item, str) for item in decoded):
                value = decoded
        for item in value if isinstance(value, list) else [value]:
            check_query_length(item)
        return value

    @field_validator("query", mode="wrap")
    @classmethod
    def _query_message(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        # the union's own errors name pydantic internals ("query.constrained-str: ..."): say it plainly once
        for item in value if isinstance(value, list) else [value]:
            check_query_not_blank(item)  # the same words as every door's empty query
        try:
            return handler(value)
        except ValidationError:
            raise ValueError(
                f"must be a non-empty string (at most {MAX_QUERY_CHARS} characters) "
                f"or a list of up to {MAX_QUERIES} such strings"
            ) from None

    @field_validator("engine", mode="before")
    @classmethod
    def _engine(cls, value: Any) -> Any:
        return lowered(value)

    @field_validator("site", mode="before")
    @classmethod
    def _site(cls, value: Any) -> Any:
        try:
            return as_sent(value, pattern=SITE_PATTERN, max_chars=MAX_SITE_CHARS)
        except ValueError:
            raise ValueError(
                f"must be a bare domain such as 'python.org' (at most {MAX_SITE_CHARS} characters)"
            ) from None

    @field_validator("lang", mode="before")
    @classmethod
    def _lang(cls, value: Any) -> Any:
        try:
            return as_sent(value, pattern=LANGUAGE_PATTERN, min_chars=2, max_chars=MAX_LANGUAGE_CHARS)
        except ValueError:
            raise ValueError("use a short code such as 'en', 'zh', 'us' or 'cn'") from None

    @field_validator("freshness", mode="before")
    @classmethod
    def _freshness(cls, value: Any) -> Any:
        value = lowered(value)
        return _FRESHNESS_ALIASES.get(value, value) if isinstance(value, str) else value

    def queries(self) -> list[str]:
        """The queries to run, duplicates removed."""
        return list(dict.fromkeys([self.query] if isinstance(self.query, str) else self.query))


class WebSearchMultiArguments(ToolArguments):
    """web_search_multi."""

    query: str = inherit(SearchRequest, "query")
    engines: Annotated[list[EngineName], Field(max_length=MAX_ENGINES)] | None = Field(
        None,
        description="Engine names; default: a set with different indexes, chosen for the query.",
        json_schema_extra={ENGINE_NAMES: []},
    )
    limit: int = TOOL_LIMITS["web_search_multi"].field("Results wanted.")
    question: str | None = reading_question()
    read_top: int | None = reading_read_top(listed=False)
    max_tokens: int | None = reading_max_tokens()

    def pages_to_read(self) -> int:
        """How many top results to read (pages_to_read)."""
        return pages_to_read(self.question, self.read_top)

    @field_validator("query", mode="before")
    @classmethod
    def _query_length(cls, value: Any) -> Any:
        check_query_not_blank(value)
        check_query_length(value)
        return value

    @field_validator("engines", mode="before")
    @classmethod
    def _engines(cls, value: Any) -> Any:
        value = as_list(value, max_chars=MAX_LIST_TEXT_CHARS)
        if not isinstance(value, list):
            return value
        return [lowered(item) for item in value] or None  # an empty list means "the default set"


class WebFetchArguments(ToolArguments):
    """web_fetch."""

    exactly_one_of = ("url", "ref")

    url: UrlText | None = inherit(ReadRequest, "url", default=None)
    ref: int | None = Field(
        None,
        ge=1,
        le=MAX_REF,
        description="A search result's number.",
        json_schema_extra={MARKS: True},  # "[3]" as compact output shows it, or "#3"
    )
    start: int = inherit(ReadRequest, "start", description="Where to continue (next_start).")
    max_chars: int = inherit(ReadRequest, "max_chars")
    format: ReadFormat = inherit(ReadRequest, "format", description="Output format.")
    question: str | None = inherit(ReadRequest, "question", description="Return only the passages answering it.")
    max_tokens: int | None = Field(
        None,
        ge=10,
        le=MAX_QUESTION_TOKENS,
        description="Token budget of the passages (default 1000), else a cap on the window.",
        json_schema_extra={UNLISTED: True},  # the default suits a model; REST and the CLI set it
    )
    passage: int | None = inherit(ReadRequest, "passage", description="Read on from passage n of [ref§n].")

    @field_validator("ref", mode="before")
    @classmethod
    def _ref_range(cls, value: Any) -> Any:
        # a whole number out of range is told the range (every door alike), not only the bound it broke
        if isinstance(value, int) and not isinstance(value, bool) and not 1 <= value <= MAX_REF:
            raise ValueError(f"must be a whole number from 1 to {MAX_REF}")
        return value

    @field_validator("format", mode="before")
    @classmethod
    def _format(cls, value: Any) -> Any:
        value = lowered(value)
        return _FORMAT_ALIASES.get(value, value) if isinstance(value, str) else value
