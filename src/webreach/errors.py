"""Every error webreach raises, as one typed tree. Catch WebreachError for all of them.

WebreachError                        .code .retryable .retry_after .engine .hint .next_hint
├── InvalidInputError                invalid_input        the caller's arguments are wrong
│   ├── UnknownPassageError          unknown_passage      no passage of that number on the page read
│   └── UnknownEngineError           invalid_input        a name that is not an engine; .names, .valid
├── NotConfiguredError               not_configured       engine disabled or missing its API key
├── EngineError                      one engine failed; policies read the attributes, never the message
│   ├── AuthFailedError              auth_failed          key rejected (401, 403 on an API)
│   ├── QuotaExhaustedError          quota_exhausted      the provider's credits are spent
│   ├── RateLimitedError             rate_limited         429 or "slow down"; retryable; .retry_after
│   ├── BlockedError                 captcha | blocked    bot wall; .kind picks the code
│   ├── EngineTimeoutError           timeout              no answer inside the engine timeout; retryable
│   ├── UnavailableError             unavailable          connection failure or 5xx; retryable
│   ├── BadRequestError              bad_request          the provider refused our request as malformed (400, 422)
│   ├── ParseError                   parse_error          the page no longer matches the parser
│   ├── UnreachableError             unreachable          our side: no DNS, no route, refused; .cause; never trips
│   └── SuspendedError               suspended            circuit breaker open after the engine failed; .retry_after
│       └── ThrottledError           throttled            our own rate limit for the engine; .retry_after
├── SessionStoreError                session_store_unavailable  refs cannot be stored now; output falls back to URLs
│   └── ImageStoreError              session_store_unavailable  image tokens cannot be stored or read now
├── ConfigStoreError                 config_store_unavailable   the console's settings database cannot be used now
├── StateBackendError                state_backend_unavailable  [state] backend unusable (Redis down, extra missing)
├── AccountingUnavailableError       accounting_unavailable     the ledger's database cannot be used now; retryable
├── RequestRefused                   <its own>            the HTTP server's own refusal (unknown path, too large)
├── AccountError                     the calling agent may not make this call now (accounts/)
│   ├── AgentAuthError               agent_auth_failed    no valid API key (or the agent is disabled)
│   ├── ToolNotAllowedError          tool_not_allowed     the tool is outside the agent's profile; .tool
│   ├── InsufficientCreditsError     insufficient_credits the balance is below the price; .balance .price
│   ├── AgentQuotaError              agent_quota_exhausted  calls per hour/day used up; .resets_at .retry_after
│   ├── IdempotencyMismatchError     idempotency_mismatch the key was used with other arguments
│   └── InProgressError              in_progress          the key's first call is still running; .retry_after
├── AllEnginesFailedError            all_engines_failed   routing got nothing; .errors holds each engine's error
└── FetchError                       reading a page failed                                   .url
    ├── UrlNotAllowedError           url_not_allowed      the SSRF guard refused it; .rule names the rule
    ├── HostResolutionError          unavailable          DNS failed; retryable; .host .reason
    ├── FetchUnavailableError        unavailable          connection failure, reset, truncated body; retryable
    ├── FetchTimeoutError            timeout              the total read deadline passed; retryable
    ├── HttpStatusError              http_error           the page answered 4xx/5xx; .status (5xx retryable)
    ├── TooManyRedirectsError        too_many_redirects   redirect loop or chain over the cap
    ├── ResponseTooLargeError        too_large            raw or decoded body over its budget
    ├── UnsupportedContentError      unsupported_content  images and other binaries; .content_type .size
    ├── PageBlockedError             captcha | blocked    a challenge or bot wall instead of content; .kind
    │   └── RobotsDisallowedError    robots_disallowed    robots.txt says no (retryable when it could not be read)
    ├── NeedsBrowserError            needs_browser        a JavaScript-only shell; read it with reader='browser'
    ├── BrowserUnavailableError      not_configured       Chromium or Playwright missing; reader='auto' skips it
    ├── ExtractionError              extraction_failed    nothing readable came out of the page
    │   └── RenderedEmptyError       rendered_empty       the browser rendered it and still found no text
    └── UnknownRefError              unknown_ref          the ref is not in this session

`code` is the instance's one code (a BlockedError of kind captcha has code "captcha"). `retryable` follows one
rule: True when asking again, unchanged, may succeed because the failure was transient upstream (timeouts,
unavailable, rate limits, 5xx and 429, a locked session store, a robots.txt that could not be read); False when
the same call fails the same way (invalid input, not configured, auth, quota, captcha and blocked walls, parse
errors, our own suspensions, refusals by the guard). AllEnginesFailedError is retryable when any engine's was.

Messages say what happened and, through the hint, what to try next. A hint is structured (`Hint`): a sentence
whose slots are next steps (`Arg("reader", "browser")`, `Call("web_fetch", ref=1, start=588)`), so each door
writes them in its own syntax: `str(error)`, `hint` and `to_dict()` use the agents' tool syntax (`tool_syntax`,
`reader='browser'`), the CLI renders `next_hint` with its own (frontends/_cli_hints.py: `--reader browser`).
Nothing in webreach inspects a message string; behaviour hangs off `code`, `retryable` and `retry_after`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

if TYPE_CHECKING:  # pydantic loads with the models, not with the errors (the CLI's start-up)
    from webreach.engine_attempt import EngineAttempt

BlockKind = Literal["captcha", "blocked"]
UnreachableCause = Literal["dns", "no_route", "refused", "proxy"]


@dataclass(frozen=True, slots=True)
class Arg:
    """One argument to change in the next call: Arg("reader", "browser"); without a value, the argument itself."""

    name: str
    value: str | int | None = None


@dataclass(frozen=True, slots=True)
class Call:
    """A whole call to make next: Call("web_fetch", (("ref", 1), ("start", 588)))."""

    tool: str
    args: tuple[tuple[str, str | int], ...] = ()


Step = Arg | Call
Syntax = Callable[[Step], str]


def tool_syntax(step: Step) -> str:
    """A next step as agents write it: reader='browser', web_fetch(ref=1, start=588)."""
    if isinstance(step, Arg):
        return step.name if step.value is None else f"{step.name}={step.value!r}"
    args = ", ".join(f"{name}={json.dumps(value, ensure_ascii=False)}" for name, value in step.args)
    return f"{step.tool}({args})"


@dataclass(frozen=True, slots=True)
class Hint:
    """What to try next: `text` with one `{}` slot per step, each written in the reader's syntax by `render`."""

    text: str
    steps: tuple[Step, ...] = ()

    def render(self, syntax: Syntax = tool_syntax) -> str:
        return self.text.format(*(syntax(step) for step in self.steps))


def hint(text: str, *steps: Step) -> Hint:
    """Hint(text, steps) with the steps as arguments: hint("Use {} instead.", Arg("engine", "auto"))."""
    return Hint(text, steps)


def _as_hint(value: str | Hint) -> Hint:
    # a plain string hint has no slots; braces in it are text, not slots
    return value if isinstance(value, Hint) else Hint(value.replace("{", "{{").replace("}", "}}"))


AUTO = Arg("engine", "auto")
READ_WITH_BROWSER = Arg("reader", "browser")
READ_WITH_JINA = Arg("reader", "jina")


class WebreachError(Exception):
    """Base of every webreach error."""

    # instance attributes with class defaults: a subclass sets its own, an instance may refine it (a wall's kind,
    # a status that is or is not transient); `code` is the one code an error has
    code: str = "error"
    retryable: bool = False
    default_hint: ClassVar[str | Hint] = ""

    def __init__(
        self,
        message: str,
        *,
        engine: str | None = None,
        retry_after: float | None = None,
        hint: str | Hint | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.engine = engine
        # an upstream can announce a wait no number holds (a 400-digit Retry-After, NaN in a JSON body): JSON has no
        # spelling for it and no schedule can use it, so it counts as not given
        self.retry_after = retry_after if retry_after is None or math.isfinite(retry_after) else None
        self.next_hint: Hint = _as_hint(self.default_hint if hint is None else hint)

    @property
    def hint(self) -> str:
        """The hint in the agents' tool syntax ("" when there is none)."""
        return self.next_hint.render(tool_syntax)

    def describe(self, syntax: Syntax = tool_syntax) -> str:
        """The message and the hint, the hint's next steps written in `syntax`."""
        prefix = f"{self.engine}: " if self.engine else ""
        text = f"{prefix}{self.message}"
        advice = self.next_hint.render(syntax)
        if not advice:
            return text
        # the hint is a sentence of its own: end the message first so the two never run together
        return f"{text} {advice}" if text.endswith((".", "!", "?", ":")) else f"{text}. {advice}"

    def __str__(self) -> str:
        return self.describe(tool_syntax)

    def details(self) -> dict[str, Any]:
        """The fields the error body carries after code, message and retry_after (None: left out of the body)."""
        return {"engine": self.engine}

    def to_dict(self) -> dict[str, Any]:
        """The agent error body of this error outside any tool call (error_body, the one renderer)."""
        return error_body(self)


def error_body(error: WebreachError, *, tool: str | None = None, detail: bool = True) -> dict[str, Any]:
    """The one error body every door sends: status, tool (only when a tool was called), code, message,
    retry_after, then the error's details that have a value. Doors wrap it in their own envelope (HTTP status and
    Retry-After, exit code, JSON-RPC); none builds the body itself.

    detail=False drops the per-attempt log of all_engines_failed (each engine's error stays): the compact output
    keeps what the agent can act on.
    """
    body: dict[str, Any] = {"status": "error"}
    if tool is not None:
        body["tool"] = tool
    body.update(code=error.code, message=str(error), retry_after=error.retry_after)
    details = error.details()
    if not detail:
        details.pop("attempts", None)
    body.update({key: value for key, value in details.items() if value is not None})
    return body


class InvalidInputError(WebreachError):
    """The caller's arguments cannot be used as given."""

    code = "invalid_input"
    default_hint: ClassVar[str | Hint] = "Fix the argument and call again."


class UnknownEngineError(InvalidInputError):
    """Names that are not engines: the one engine-name check (`check`) and its error, for every door and layer.

    The message names the unknown ones; the hint lists the valid names after `modes` (auto, multi where the caller
    may name them), with `advice` before them and `also` after (", or all"). The code stays invalid_input.
    """

    def __init__(
        self,
        names: Sequence[str],
        valid: Sequence[str],
        *,
        modes: Sequence[str] = (),
        advice: str = "",
        also: str = "",
    ) -> None:
        self.names = tuple(names)
        self.valid = tuple(valid)
        plural = "s" if len(self.names) > 1 else ""
        choices = ", ".join([*modes, *self.valid])
        super().__init__(
            f"unknown engine{plural} {', '.join(map(repr, self.names))}",
            hint=f"{advice}Valid engines: {choices}{also}.",
        )

    @classmethod
    def check(cls, name: str, valid: Collection[str], *, modes: Sequence[str] = (), advice: str = "") -> str:
        """`name` when it is one of `valid` or of `modes`, else this error."""
        if name in valid or name in modes:
            return name
        raise cls([name], sorted(valid) if not isinstance(valid, Sequence) else valid, modes=modes, advice=advice)


class UnknownPassageError(InvalidInputError):
    """A passage number past the last passage of the page read (read/question_read.py)."""

    code = "unknown_passage"
    default_hint: ClassVar[str | Hint] = "Pass a passage number the page has, or a question."


class NotConfiguredError(WebreachError):
    """An engine is disabled or lacks the API key it needs."""

    code = "not_configured"
    default_hint: ClassVar[str | Hint] = hint("Configure it (webreach.toml or WEBREACH_* environment) or use {}.", AUTO)


class EngineError(WebreachError):
    """One engine failed to answer."""

    code = "engine_error"
    default_hint: ClassVar[str | Hint] = hint("Try another engine or {}.", AUTO)


class AuthFailedError(EngineError):
    """The provider rejected the configured credentials."""

    code = "auth_failed"
    default_hint: ClassVar[str | Hint] = hint("Check the engine's API key; meanwhile use another engine or {}.", AUTO)


class QuotaExhaustedError(EngineError):
    """The provider says the account's credits or daily quota are spent."""

    code = "quota_exhausted"
    default_hint: ClassVar[str | Hint] = hint("Top up the account or use another engine; {} skips it.", AUTO)


class RateLimitedError(EngineError):
    """The provider asked us to slow down."""

    code = "rate_limited"
    retryable = True
    default_hint: ClassVar[str | Hint] = hint(
        "Wait retry_after seconds or use another engine ({} moves on by itself).", AUTO
    )


class BlockedError(EngineError):
    """A CAPTCHA, challenge or bot wall answered instead of results."""

    code = "blocked"
    default_hint: ClassVar[str | Hint] = hint("This engine is refusing us for now; use another engine or {}.", AUTO)

    def __init__(
        self,
        message: str,
        *,
        kind: BlockKind = "blocked",
        engine: str | None = None,
        retry_after: float | None = None,
        hint: str | Hint | None = None,
    ) -> None:
        super().__init__(message, engine=engine, retry_after=retry_after, hint=hint)
        self.kind: BlockKind = kind
        self.code = kind


class EngineTimeoutError(EngineError):
    """The engine did not answer in time."""

    code = "timeout"
    retryable = True
    default_hint: ClassVar[str | Hint] = hint(
        "Retry later, raise the timeout, or use {} which hedges slow engines.", AUTO
    )


class UnavailableError(EngineError):
    """The engine could not be reached or failed on its side (5xx, reset, truncated body)."""

    code = "unavailable"
    retryable = True
    default_hint: ClassVar[str | Hint] = "Retry shortly or use another engine."


class BadRequestError(EngineError):
    """The provider refused the request itself (HTTP 400 or 422 from an API): the same request fails again."""

    code = "bad_request"
    default_hint: ClassVar[str | Hint] = (
        "Retrying it unchanged will not help: change or drop a parameter (site, freshness, language, region) "
        "or use another engine."
    )


class ParseError(EngineError):
    """The response no longer matches what the engine's parser expects."""

    code = "parse_error"
    default_hint: ClassVar[str | Hint] = (
        "The engine's markup may have changed; use another engine and check it with `webreach parse`."
    )


class UnreachableError(EngineError):
    """The engine could not be reached from here: its name did not resolve, no route, or the connection was refused.

    These are about this machine's network, not about what the engine did, so breakers never count them and the
    rate limit gives back the slot. `cause` is dns, no_route, refused or proxy (the
    operator's outbound proxy failed or refused us: [network] proxy). Retryable (the network may come back),
    but not within one search (policies/retry.py).
    """

    code = "unreachable"
    retryable = True
    default_hint: ClassVar[str | Hint] = (
        "Check this machine's network connection (DNS, routes, proxy, firewall); or use another engine."
    )

    def __init__(
        self,
        message: str,
        *,
        cause: UnreachableCause,
        engine: str | None = None,
        hint: str | Hint | None = None,
        fake_web: str | None = None,
    ) -> None:
        super().__init__(message, engine=engine, hint=hint)
        self.cause: UnreachableCause = cause
        # offline mode: the fake web (WEBREACH_FAKE_WEB) is what could not be reached, not the network
        self.fake_web = fake_web

    def details(self) -> dict[str, Any]:
        return {**super().details(), "cause": self.cause}


class SuspendedError(EngineError):
    """The engine is skipped for now: its circuit breaker is open after failures it answered with."""

    code = "suspended"
    default_hint: ClassVar[str | Hint] = (
        "It is resting after earlier failures; use another engine or wait retry_after seconds."
    )


class ThrottledError(SuspendedError):
    """Skipped by our own rate limit for the engine (it did nothing wrong): the next slot is retry_after away."""

    code = "throttled"
    default_hint: ClassVar[str | Hint] = hint(
        "webreach paces its requests to this engine; wait retry_after seconds, or use another engine or {}.", AUTO
    )


class AdminRequiredError(WebreachError):
    """An admin endpoint was called without the admin token (or, when none is configured, from off the machine)."""

    code = "admin_required"


class AdminThrottledError(AdminRequiredError):
    """Too many wrong admin tokens from one client address lately; .retry_after says when it may try again."""

    code = "admin_throttled"
    retryable = True


class RequestRefused(WebreachError):
    """A request the HTTP server refuses itself, before any tool (an unknown path, a body over the cap, a Host not
    served, a bug): its code is the instance's, one of the server's own (frontends/_errors.py gives each a status)."""

    def __init__(self, code: str, message: str, *, hint: str = "", retry_after: float | None = None) -> None:
        super().__init__(message, retry_after=retry_after, hint=hint)
        self.code = code


class AccountError(WebreachError):
    """The calling agent may not make this call now (its key, credits, quota or idempotency key)."""

    code = "account_error"

    def __init__(self, message: str, *, retry_after: float | None = None, hint: str | None = None, **fields: Any):
        super().__init__(message, retry_after=retry_after, hint=hint)
        self.fields = fields

    def details(self) -> dict[str, Any]:
        return {**super().details(), **self.fields}


class AgentAuthError(AccountError):
    """No valid API key came with the call, or its agent is disabled (the engine-side twin is AuthFailedError)."""

    code = "agent_auth_failed"
    default_hint = "Send 'Authorization: Bearer <your agent key>'; an operator can rotate it (webreach agents)."


class ToolNotAllowedError(AccountError):
    """The tool is not in the calling agent's profile (its `tools` list): the agent may not call it at all."""

    code = "tool_not_allowed"
    default_hint = "Call one of the agent's tools; an operator can change its profile (webreach agents)."

    def __init__(self, message: str, *, tool: str, allowed: Sequence[str], hint: str | None = None) -> None:
        super().__init__(message, hint=hint, allowed_tools=list(allowed))
        self.tool = tool


class InsufficientCreditsError(AccountError):
    """The agent's balance is below the call's price; .fields has balance and price."""

    code = "insufficient_credits"
    default_hint = "Ask an operator for credits (webreach agents grant NAME N); nothing was charged."


class AgentQuotaError(AccountError):
    """The agent used its calls per hour (or day); .fields has resets_at, retry_after says when one frees up."""

    code = "agent_quota_exhausted"
    default_hint = "Wait until resets_at; nothing was charged."


class IdempotencyMismatchError(AccountError):
    """An idempotency key came back with different arguments."""

    code = "idempotency_mismatch"
    default_hint = "Use a new idempotency key for a different call."


class InProgressError(AccountError):
    """A call with this idempotency key is still running."""

    code = "in_progress"
    retryable = True
    default_hint = "Retry after retry_after seconds with the same key to get its result."


class SessionStoreError(WebreachError):
    """The session store cannot be used right now (file unwritable, database locked or corrupt)."""

    code = "session_store_unavailable"
    retryable = True
    default_hint: ClassVar[str | Hint] = hint(
        "Numbered refs are unavailable for now; read the result by its {} instead.", Arg("url")
    )


class ImageStoreError(SessionStoreError):
    """The image store (image tokens and their bytes: state/image_store.py, redis_image_store.py) cannot be used
    right now; the same code as refs', its own advice."""

    default_hint: ClassVar[str | Hint] = (
        "Image tokens are unavailable for now: pass the image itself (its URL or bytes) instead, or retry shortly."
    )


class ConfigStoreError(WebreachError):
    """The database holding the console's settings cannot be read or written right now (configdb/)."""

    code = "config_store_unavailable"
    retryable = True
    default_hint: ClassVar[str | Hint] = (
        "Check [accounts] database (the file's permissions, or that PostgreSQL is up), then try again."
    )


class StateBackendError(WebreachError):
    """The configured [state] backend cannot be used: at start-up, the redis extra is not installed or the Redis
    server does not answer at [state] url. Raised when the Gateway opens its stores, never on a search (the stores
    then miss, or pace in memory, and log it)."""

    code = "state_backend_unavailable"
    retryable = True
    default_hint: ClassVar[str | Hint] = (
        "Check [state] url (is Redis up and reachable from here?) and that the redis extra is installed "
        "(pip install 'webreach[redis]'), or set [state] backend = \"sqlite\" for one machine."
    )

    def __init__(self, message: str, *, retry_after: float | None = 5.0, hint: str | Hint | None = None) -> None:
        super().__init__(message, retry_after=retry_after, hint=hint)


class AccountingUnavailableError(WebreachError):
    """The credits ledger's database cannot be used right now (PostgreSQL down or restarting, a SQLite file on a
    full disk or a read-only file system): a metered call is refused before it runs, never served uncharged."""

    code = "accounting_unavailable"
    retryable = True
    default_hint: ClassVar[str | Hint] = (
        "Retry after retry_after seconds; an operator should check [accounts] database (PostgreSQL up, disk space, "
        "the file system writable)."
    )

    def __init__(self, message: str, *, retry_after: float | None = 5.0, hint: str | Hint | None = None) -> None:
        super().__init__(message, retry_after=retry_after, hint=hint)


OFFLINE_HINT = (
    "Check the network connection (DNS, routes, proxy, firewall). To work offline, run the fake web: "
    "`webreach fakeweb --port 8765 &`, then set WEBREACH_FAKE_WEB=http://127.0.0.1:8765 for webreach."
)


def fake_web_down(url: str, port: int) -> tuple[str, Hint]:
    """The message and hint when WEBREACH_FAKE_WEB is set and nothing listens there (one owner for both doors)."""
    message = f"nothing listens at {url} (WEBREACH_FAKE_WEB): the fake web is not running"
    return message, Hint(f"Start it (`webreach fakeweb --port {port} &`) or unset WEBREACH_FAKE_WEB.")


class AllEnginesFailedError(WebreachError):
    """Routing tried every candidate engine and none answered.

    When every engine that was asked failed with UnreachableError (no DNS, no route, refused), the machine looks
    offline: `offline` is True and the message and hint say so and name the fake web, since no engine choice
    can help then.
    """

    code = "all_engines_failed"
    default_hint: ClassVar[str | Hint] = "Each engine's reason is listed with it; retry later, or use another engine."

    def __init__(
        self,
        message: str,
        *,
        errors: Sequence[WebreachError],
        attempts: Sequence[EngineAttempt] = (),
        hint: str | Hint | None = None,
    ) -> None:
        waits = [e.retry_after for e in errors if e.retry_after is not None]
        asked = [e for e in errors if not isinstance(e, SuspendedError | NotConfiguredError)]
        self.offline = bool(asked) and all(isinstance(e, UnreachableError) for e in asked)
        down = {e.fake_web for e in asked if isinstance(e, UnreachableError)}
        if self.offline and len(down) == 1 and None not in down:
            (url,) = down
            assert url is not None
            message, fake_hint = fake_web_down(url, _port_of(url))
            hint = fake_hint if hint is None else hint
        elif self.offline:
            causes = sorted({e.cause for e in asked if isinstance(e, UnreachableError)})
            # each engine's reason is in `errors`: the message says what they add up to
            count = f"{len(asked)} engines" if len(asked) > 1 else "the engine"
            message = f"this machine looks offline: {count} asked could not be reached ({', '.join(causes)})"
            hint = OFFLINE_HINT if hint is None else hint
        super().__init__(message, retry_after=min(waits) if waits else None, hint=hint)
        self.errors = tuple(errors)
        self.attempts = tuple(attempts)
        self.retryable = any(error.retryable for error in self.errors)

    def details(self) -> dict[str, Any]:
        errors = [error_body(error) for error in self.errors]
        return {**super().details(), "errors": errors, "attempts": [a.model_dump(mode="json") for a in self.attempts]}


def _port_of(url: str) -> int:
    """The port of an http(s) URL (its scheme's default when it names none)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        return parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return 8765


class FetchError(WebreachError):
    """Reading a page failed before or while talking to its server."""

    code = "fetch_error"
    default_hint: ClassVar[str | Hint] = "Try another URL or a search result instead."

    def __init__(
        self, message: str, *, url: str | None = None, retry_after: float | None = None, hint: str | Hint | None = None
    ):
        super().__init__(message, retry_after=retry_after, hint=hint)
        self.url = url


class UrlNotAllowedError(FetchError):
    """The guard refused the URL or an address it resolves to; `rule` names the rule that refused. `malformed` is
    True when the URL itself is not a well-formed absolute http(s) URL (a typo: no scheme, a bad host or port), so
    doors treat it as bad input (CLI exit 2) rather than as a refusal by policy."""

    code = "url_not_allowed"
    default_hint: ClassVar[str | Hint] = "Only public http(s) addresses can be read; use a public URL instead."

    def __init__(
        self,
        message: str,
        *,
        rule: str,
        url: str | None = None,
        address: str | None = None,
        hint: str | Hint | None = None,
        malformed: bool = False,
    ) -> None:
        super().__init__(message, url=url, hint=hint)
        self.rule = rule
        self.address = address
        self.malformed = malformed

    def details(self) -> dict[str, Any]:
        return {**super().details(), "rule": self.rule}


class HostResolutionError(FetchError):
    """The host name did not resolve; `reason` is not_found, timeout, no_addresses, offline (fake-web mode),
    machine_offline (no name resolves on this machine, not even a well-known one) or failed."""

    code = "unavailable"
    hints: ClassVar[dict[str, str]] = {
        "not_found": "The name does not exist in DNS; check the host name for typos.",
        "timeout": "DNS did not answer in time; retry shortly.",
        "no_addresses": "The name has no address records; check the host name.",
        "machine_offline": OFFLINE_HINT,
    }

    def __init__(self, message: str, *, host: str, reason: str, hint: str | Hint | None = None) -> None:
        fallback = "DNS lookup failed (is this machine offline?); retry shortly or try another URL."
        super().__init__(message, hint=self.hints.get(reason, fallback) if hint is None else hint)
        self.host = host
        self.reason = reason
        # offline mode resolves no public name: asking again cannot help
        self.retryable = reason != "offline"


class FetchUnavailableError(FetchError):
    """The server could not be reached or broke off (reset, truncated body)."""

    code = "unavailable"
    retryable = True
    default_hint: ClassVar[str | Hint] = "Retry shortly, or read another result."


class FetchTimeoutError(FetchError):
    """The read did not finish inside its total deadline."""

    code = "timeout"
    retryable = True
    default_hint: ClassVar[str | Hint] = "The site is slow; retry later, raise the timeout, or read another result."


class HttpStatusError(FetchError):
    """The page answered with an HTTP error status."""

    code = "http_error"
    default_hint: ClassVar[str | Hint] = "The page is not available at this URL; search again or read another result."

    def __init__(self, message: str, *, status: int, url: str | None = None, retry_after: float | None = None):
        super().__init__(message, url=url, retry_after=retry_after)
        self.status = status
        self.retryable = status >= 500 or status == 429

    def details(self) -> dict[str, Any]:
        return {**super().details(), "http_status": self.status}


class TooManyRedirectsError(FetchError):
    """A redirect loop, or a chain longer than the cap."""

    code = "too_many_redirects"


class ResponseTooLargeError(FetchError):
    """The raw or decoded body went over its budget."""

    code = "too_large"
    default_hint: ClassVar[str | Hint] = (
        "The page is too large to read whole; read another result or a more specific URL."
    )


class UnsupportedContentError(FetchError):
    """Images, video, archives and other content that has no text to read."""

    code = "unsupported_content"
    default_hint: ClassVar[str | Hint] = "Only HTML, PDF, text, JSON and XML can be read; pick a page URL instead."

    def __init__(self, message: str, *, content_type: str, size: int | None = None, url: str | None = None):
        super().__init__(message, url=url)
        self.content_type = content_type
        self.size = size


class PageBlockedError(FetchError):
    """A CAPTCHA, challenge or bot wall answered instead of the page."""

    code = "blocked"
    default_hint: ClassVar[str | Hint] = hint(
        "The site refuses automated reading; try {} or another result.", Arg("reader", "jina")
    )

    def __init__(
        self, message: str, *, kind: BlockKind = "blocked", url: str | None = None, hint: str | Hint | None = None
    ):
        super().__init__(message, url=url, hint=hint)
        self.kind: BlockKind = kind
        self.code = kind


class RobotsDisallowedError(PageBlockedError):
    """The site's robots.txt disallows this URL for webreach (or could not be read, which means no for now)."""

    code = "robots_disallowed"

    def __init__(self, message: str, *, url: str, robots_url: str, temporary: bool) -> None:
        hint = (
            "The site's robots.txt could not be read just now; retry later or read another result."
            if temporary
            else "The site asks automated readers not to fetch this page; read another result."
        )
        super().__init__(message, kind="blocked", url=url, hint=hint)
        self.robots_url = robots_url
        self.temporary = temporary
        self.code = RobotsDisallowedError.code  # robots.txt has its own code, not the wall kind PageBlockedError set
        self.retryable = temporary


class NeedsBrowserError(FetchError):
    """The page is a JavaScript shell: its content only exists after scripts run."""

    code = "needs_browser"
    default_hint: ClassVar[str | Hint] = hint(
        "Read it again with {} (or {}, which does that when available).",
        Arg("reader", "browser"),
        Arg("reader", "auto"),
    )


class BrowserUnavailableError(FetchError):
    """The browser reader cannot run here: Chromium or Playwright is missing, or Chromium would not start."""

    code = "not_configured"
    default_hint: ClassVar[str | Hint] = hint(
        "Install Chromium (Debian: apt-get install chromium) and the browser extra (pip install 'webreach[browser]'), "
        "or read with {} or {}.",
        Arg("reader", "direct"),
        Arg("reader", "jina"),
    )


class ExtractionError(FetchError):
    """Nothing readable came out of the page."""

    code = "extraction_failed"


class RenderedEmptyError(ExtractionError):
    """The browser ran the page's scripts and the rendered page still held no readable text."""

    code = "rendered_empty"
    default_hint: ClassVar[str | Hint] = hint(
        "The page may need a login, a click or more time to show its content; try {} or another result.",
        Arg("reader", "jina"),
    )


class UnknownRefError(FetchError):
    """The ref is not (or no longer) in this session's results."""

    code = "unknown_ref"
    default_hint: ClassVar[str | Hint] = hint(
        "Refs come from web_search in the same session and expire after 24 h; search again or pass {}.", Arg("url")
    )


class ImageError(WebreachError):
    """An image cannot be used as given (issue 14: decoding is bounded, only common raster formats are read)."""

    code = "invalid_image"
    default_hint: ClassVar[str | Hint] = "Pass a JPEG, PNG, WebP, GIF or BMP image within the size limits."


class UnsupportedImageError(ImageError):
    """The bytes are not a JPEG, PNG, WebP, GIF or BMP image (an SVG, a PDF, an HTML error page)."""

    code = "unsupported_image"


class ImageTooLargeError(ImageError):
    """The image's bytes, pixel count or a side exceed the configured limits (a decompression bomb ends here)."""

    code = "image_too_large"
    default_hint: ClassVar[str | Hint] = "Pass a smaller image, or crop or downscale it first."


class CorruptImageError(ImageError):
    """The image's header was read but its data cannot be decoded (truncated or damaged)."""

    code = "corrupt_image"
    default_hint: ClassVar[str | Hint] = "Pass the complete image file again."


class UnknownImageTokenError(ImageError):
    """The token names no image of this session (never registered, or expired)."""

    code = "unknown_image"
    default_hint: ClassVar[str | Hint] = (
        "Use a token from this conversation (<image_1>, <obs_2>): pass the messages again, or the image itself."
    )
