"""Every error webreach raises, as one typed tree. Catch WebreachError for all of them.

WebreachError                        .code .retryable .retry_after .engine .hint
├── InvalidInputError                invalid_input        the caller's arguments are wrong
├── NotConfiguredError               not_configured       engine disabled or missing its API key
├── EngineError                      one engine failed; policies read the attributes, never the message
│   ├── AuthFailedError              auth_failed          key rejected (401, 403 on an API)
│   ├── QuotaExhaustedError          quota_exhausted      the provider's credits are spent
│   ├── RateLimitedError             rate_limited         429 or "slow down"; retryable; .retry_after
│   ├── BlockedError                 captcha | blocked    bot wall; .kind picks the code
│   ├── EngineTimeoutError           timeout              no answer inside the engine timeout; retryable
│   ├── UnavailableError             unavailable          connection failure or 5xx; retryable
│   ├── ParseError                   parse_error          the page no longer matches the parser
│   └── SuspendedError               suspended            circuit breaker open or local rate limit; .retry_after
└── AllEnginesFailedError            all_engines_failed   routing got nothing; .errors holds each engine's error

Messages are written for an agent: they say what happened and, through `hint`, what to try next.
Nothing in webreach inspects a message string; behaviour hangs off `code`, `retryable` and `retry_after`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal

if TYPE_CHECKING:
    from webreach.models import EngineAttempt

BlockKind = Literal["captcha", "blocked"]


class WebreachError(Exception):
    """Base of every webreach error."""

    code: ClassVar[str] = "error"
    retryable: ClassVar[bool] = False
    default_hint: ClassVar[str] = ""

    def __init__(
        self,
        message: str,
        *,
        engine: str | None = None,
        retry_after: float | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.engine = engine
        self.retry_after = retry_after
        self.hint = self.default_hint if hint is None else hint

    @property
    def error_code(self) -> str:
        """The stable code of this instance (BlockedError varies it by kind)."""
        return self.code

    def __str__(self) -> str:
        prefix = f"{self.engine}: " if self.engine else ""
        return f"{prefix}{self.message}" + (f" {self.hint}" if self.hint else "")

    def to_dict(self) -> dict[str, Any]:
        """The agent-facing error body (front doors add the tool name)."""
        return {
            "status": "error",
            "code": self.error_code,
            "message": str(self),
            "retry_after": self.retry_after,
            "engine": self.engine,
        }


class InvalidInputError(WebreachError):
    """The caller's arguments cannot be used as given."""

    code = "invalid_input"
    default_hint = "Fix the argument and call again."


class NotConfiguredError(WebreachError):
    """An engine is disabled or lacks the API key it needs."""

    code = "not_configured"
    default_hint = "Configure it (webreach.toml or WEBREACH_* environment) or use engine='auto'."


class EngineError(WebreachError):
    """One engine failed to answer."""

    code = "engine_error"
    default_hint = "Try another engine or engine='auto'."


class AuthFailedError(EngineError):
    """The provider rejected the configured credentials."""

    code = "auth_failed"
    default_hint = "Check the engine's API key; meanwhile use another engine or engine='auto'."


class QuotaExhaustedError(EngineError):
    """The provider says the account's credits or daily quota are spent."""

    code = "quota_exhausted"
    default_hint = "Top up the account or use another engine; engine='auto' skips it."


class RateLimitedError(EngineError):
    """The provider asked us to slow down."""

    code = "rate_limited"
    retryable = True
    default_hint = "Wait retry_after seconds or use another engine (engine='auto' moves on by itself)."


class BlockedError(EngineError):
    """A CAPTCHA, challenge or bot wall answered instead of results."""

    code = "blocked"
    default_hint = "This engine is refusing us for now; use another engine or engine='auto'."

    def __init__(
        self,
        message: str,
        *,
        kind: BlockKind = "blocked",
        engine: str | None = None,
        retry_after: float | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, engine=engine, retry_after=retry_after, hint=hint)
        self.kind: BlockKind = kind

    @property
    def error_code(self) -> str:
        return self.kind


class EngineTimeoutError(EngineError):
    """The engine did not answer in time."""

    code = "timeout"
    retryable = True
    default_hint = "Retry later, raise the timeout, or use engine='auto' which hedges slow engines."


class UnavailableError(EngineError):
    """The engine could not be reached or failed on its side (5xx, reset, truncated body)."""

    code = "unavailable"
    retryable = True
    default_hint = "Retry shortly or use another engine."


class ParseError(EngineError):
    """The response no longer matches what the engine's parser expects."""

    code = "parse_error"
    default_hint = "The engine's markup may have changed; use another engine and check it with `webreach parse`."


class SuspendedError(EngineError):
    """The engine is skipped for now by our own circuit breaker or rate limit."""

    code = "suspended"
    default_hint = "It is resting after earlier failures; use another engine or wait retry_after seconds."


class AllEnginesFailedError(WebreachError):
    """Routing tried every candidate engine and none answered."""

    code = "all_engines_failed"
    default_hint = "See each engine's reason in errors; retry later or configure an API engine."

    def __init__(
        self,
        message: str,
        *,
        errors: Sequence[WebreachError],
        attempts: Sequence[EngineAttempt] = (),
        hint: str | None = None,
    ) -> None:
        waits = [e.retry_after for e in errors if e.retry_after is not None]
        super().__init__(message, retry_after=min(waits) if waits else None, hint=hint)
        self.errors = tuple(errors)
        self.attempts = tuple(attempts)

    def to_dict(self) -> dict[str, Any]:
        body = super().to_dict()
        body["errors"] = [e.to_dict() for e in self.errors]
        body["attempts"] = [a.model_dump(mode="json") for a in self.attempts]
        return body
