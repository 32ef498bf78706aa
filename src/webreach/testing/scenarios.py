"""What the fake web answers for one engine: the Scenario model, the safety limits, and the reply it plans.

A scenario picks the recording to serve (`case`), can override its status, delay the response head
(`latency`), and inject one fault. Rules, decided here once:

- No case and no status: the engine's `results` recording.
- `status` with an explicit `case`: that recording's headers and body under the new status.
  `status` alone: a small generic body for that status (a results page under a 503 would be nonsense).
- fault `captcha`: the engine's `captcha*` recording, else its `blocked*` one (the engine's own bot wall), else
  a generic Cloudflare-style challenge page (403, `server: cloudflare`, `cf-mitigated: challenge`) carrying
  the markers engines look for.
- fault `retry_after`: 429 with `retry-after: <retry_after>` (seconds or an HTTP-date), the body of the
  engine's `rate_limited*` recording when it has one.
- `times`: serve the scenario to the next N requests only, then fall back to the default, which is what
  retry and circuit-breaker tests want ("fail twice, then succeed").
- `key`: the one API key the fake provider accepts; a request that does not carry it (in an auth header or a
  key parameter) gets the engine's `auth_failed` recording, else a generic 401, as a real provider refuses a
  wrong key (the console's "test connection" is tested this way).

Every fault that keeps a connection open is bounded by `Limits`, so a forgotten test stops by itself.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import httpx

from webreach.testing.recordings import Recording, load_recording

# names travel in URL paths and become file names: keep them to plain identifiers (no traversal)
ENGINE_NAME = re.compile(r"[a-z0-9][a-z0-9_]*")
CASE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
MAX_LATENCY = 60.0


class Fault(StrEnum):
    """How the response (or the connection) goes wrong."""

    NONE = "none"
    RESET = "reset"  # read the request, then close with SO_LINGER 0 (TCP RST)
    TRUNCATE = "truncate"  # Content-Length larger than the bytes sent, then close
    ENDLESS = "endless"  # chunked body that never ends (until Limits.stream_bytes / stream_seconds)
    DRIP = "drip"  # Limits.drip_bytes every Limits.drip_interval (until the body or Limits.stream_seconds ends)
    HANG = "hang"  # never answer (until the server stops or Limits.hang_seconds)
    CAPTCHA = "captcha"  # the engine's captcha (else blocked) recording, or a generic challenge page
    RETRY_AFTER = "retry_after"  # 429 with a Retry-After header


@dataclass(frozen=True)
class Limits:
    """Server-side safety caps: every fault ends by itself even if no client ever gives up."""

    stream_bytes: int = 64 * 1024 * 1024
    stream_seconds: float = 60.0
    hang_seconds: float = 60.0
    drip_interval: float = 0.5
    drip_bytes: int = 16
    idle_seconds: float = 30.0  # an idle keep-alive connection is closed after this


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class Scenario:
    """What one engine's route answers. The default serves the `results` recording as recorded."""

    case: str | None = None
    status: int | None = None
    latency: float = 0.0
    fault: Fault = Fault.NONE
    retry_after: str = "120"
    times: int | None = None
    key: str | None = None

    def __post_init__(self) -> None:
        if self.case is not None and not CASE_NAME.fullmatch(self.case):
            raise ValueError(f"case must be a recording name like 'captcha' or 'rate_limited-2', not {self.case!r}")
        if self.status is not None and not 100 <= self.status <= 599:
            raise ValueError(f"status must be between 100 and 599, not {self.status}")
        if not 0.0 <= self.latency <= MAX_LATENCY:
            raise ValueError(f"latency must be between 0 and {MAX_LATENCY:g} seconds, not {self.latency}")
        if self.times is not None and self.times < 1:
            raise ValueError(f"times must be at least 1 (or None for every request), not {self.times}")
        if not self.retry_after.strip() or "\n" in self.retry_after or "\r" in self.retry_after:
            raise ValueError("retry_after must be seconds or an HTTP-date on one line")

    @classmethod
    def from_fields(cls, fields: dict[str, Any]) -> Scenario:
        """Build from keyword fields or a decoded JSON object, with clear errors for bad input."""
        unknown = set(fields) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            raise ValueError(f"unknown scenario field(s): {', '.join(sorted(unknown))}")
        values = dict(fields)
        try:
            if "fault" in values:
                values["fault"] = Fault(values["fault"] or "none")
            if "retry_after" in values:
                values["retry_after"] = str(values["retry_after"])
            for name, types in (("status", (int,)), ("times", (int,)), ("latency", (int, float))):
                value = values.get(name)
                if value is not None and (isinstance(value, bool) or not isinstance(value, types)):
                    raise TypeError(f"{name} must be a number, not {value!r}")
            if values.get("latency") is not None:
                values["latency"] = float(values["latency"])
            return cls(**values)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"invalid scenario: {exc}") from None

    def to_json(self) -> dict[str, Any]:
        """The scenario as a JSON object (the control API's view)."""
        return {**dataclasses.asdict(self), "fault": self.fault.value}


@dataclass(frozen=True)
class Reply:
    """A planned HTTP response, before any fault bends it."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes


def find_case(folder: Path, prefixes: tuple[str, ...]) -> Path | None:
    """The first recording whose case starts with one of `prefixes`, in that order (`captcha` before `captcha-2`)."""
    for prefix in prefixes:
        found = sorted(folder.glob(f"{prefix}*.http"), key=lambda p: (len(p.stem), p.stem))
        if found:
            return found[0]
    return None


def key_refused(scenario: Scenario, sent: list[str], folder: Path) -> Scenario:
    """`scenario`, or the refusal of a wrong key when it names the key to accept and none of `sent` (the request's
    auth header values and key parameters) carries it."""
    if scenario.key is None or any(scenario.key in value for value in sent):
        return scenario
    if (folder / "auth_failed.http").is_file():
        return Scenario(case="auth_failed")
    return Scenario(status=401)


def plan_reply(scenario: Scenario, folder: Path, *, warm_up: bool = False) -> Reply:
    """The response an engine's route gives under `scenario` (recordings are read fresh: others may be editing).

    `warm_up`: the request asked the engine's root (`/<engine>/`, where engines that need a token or cookie first
    send their warm-up): an engine with a `warm_up` recording gets it there unless the scenario sets a fault or a
    status, which reach both steps; a scenario's case picks the answer to the search itself.
    """
    if warm_up and scenario.fault is Fault.NONE and scenario.status is None and (folder / "warm_up.http").is_file():
        return from_recording(load_recording(folder / "warm_up.http"))
    if scenario.fault is Fault.CAPTCHA:
        path = find_case(folder, ("captcha", "blocked"))
        reply = from_recording(load_recording(path)) if path else challenge_page()
    elif scenario.fault is Fault.RETRY_AFTER:
        path = find_case(folder, ("rate_limited",))
        base = from_recording(load_recording(path)) if path else generic_page(429)
        headers = (*(h for h in base.headers if h[0] != "retry-after"), ("retry-after", scenario.retry_after))
        reply = Reply(429, headers, base.body)
    elif scenario.case is None and scenario.status is not None:
        reply = generic_page(scenario.status)
    else:
        reply = from_recording(load_recording(folder / f"{scenario.case or 'results'}.http"))
    if scenario.status is not None:
        reply = dataclasses.replace(reply, status=scenario.status)
    return reply


# framing headers are the server's business, and bodies are stored decoded
_DROPPED_HEADERS = frozenset({"content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive"})


def from_recording(recording: Recording) -> Reply:
    """A recording as a reply, without its stale framing headers."""
    headers = tuple((k, v) for k, v in recording.headers if k.lower() not in _DROPPED_HEADERS)
    return Reply(recording.status, headers, recording.body)


def generic_page(status: int) -> Reply:
    """A minimal HTML page for a status that has no recording."""
    title = f"{status} {httpx.codes.get_reason_phrase(status)}".strip()
    body = f"<html><head><title>{title}</title></head><body><h1>{title}</h1><p>webreach fake web</p></body></html>"
    return Reply(status, (("content-type", "text/html; charset=utf-8"),), body.encode())


def challenge_page() -> Reply:
    """A generic bot-wall interstitial in the shape of Cloudflare's managed challenge (written for webreach)."""
    body = (
        '<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>'
        '<meta name="robots" content="noindex,nofollow"></head><body>'
        "<h1>Verify you are human by completing the action below.</h1>"
        '<form id="challenge-form" action="/?__cf_chl_captcha_tk__=webreach-fake" method="POST">'
        '<div class="cf-turnstile" data-sitekey="webreach-fake"></div></form>'
        "<script>window._cf_chl_opt = {cType: 'managed', cRay: 'fakeweb'};</script>"
        '<script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1"></script>'
        "</body></html>"
    )
    headers = (
        ("content-type", "text/html; charset=UTF-8"),
        ("server", "cloudflare"),
        ("cf-mitigated", "challenge"),
        ("cache-control", "private, max-age=0, no-store, no-cache, must-revalidate"),
    )
    return Reply(403, headers, body.encode())
