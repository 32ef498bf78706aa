"""How the console words things for an operator: errors and probe results as sentences, times in one format.

Errors carry a message and a hint whose next steps are written per door (errors.py); the console writes them
for a person at a settings page (`console_syntax`: "the auto mode", not `engine='auto'`). A provider's refusal
quotes its error body; the console shows the provider's own message from it, never the raw JSON. Every time on
a page is shown as `when` writes it: UTC, to the second (a ledger's rows are often seconds apart).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from webreach.errors import Arg, Step, WebreachError
from webreach.gateway import CanaryResult, EngineStatus

# the fields providers put their human message in, most telling first (Brave: error.detail, Google: error.message,
# Serper/Bocha: message, Tavily: detail.error, SerpApi/Exa: error)
_MESSAGE_FIELDS = ("message", "detail", "error_description", "error", "msg")
# a field's text up to its closing quote, or to the end where the excerpt was cut inside it
_QUOTED = re.compile(r'"(' + "|".join(_MESSAGE_FIELDS) + r')"\s*:\s*"((?:[^"\\]|\\.)*)("|$)')
# ledger rows in words: a call holds its price, then settles (gives back what it did not spend) or is released
ENTRY_WORDS = {"grant": "grant", "reserve": "charged for a call", "commit": "settled", "release": "released"}
STATUS_WORDS = {
    "ok": "Connected",
    "generic": "Connected, but only the generic parser read the page",
    "parse_error": "Connected, but nothing could read the answer",
    "blocked": "Blocked",
    "error": "Failed",
}


def console_syntax(step: Step) -> str:
    """A next step as an operator reads it in the console: "the auto mode", "the browser reader"."""
    if isinstance(step, Arg):
        if step.name == "engine" and step.value in ("auto", "multi"):
            return f"the {step.value} mode"
        if step.value is None:
            return f"the {step.name} setting"
        return f"the {step.value} {step.name}"
    return f"{step.tool}"


def sentence(text: str, *, capital: bool = True) -> str:
    """`text` with a capital first letter (unless it starts with a name) and a full stop at the end."""
    text = text.strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:] if capital else text
    return text if text.endswith((".", "!", "?", "…")) else f"{text}."


def said(error: WebreachError) -> str:
    """The error as the console shows it: its message, then what to do, each a sentence, in operator words."""
    parts = [sentence(error.message), sentence(error.next_hint.render(console_syntax))]
    return " ".join(part for part in parts if part)


def provider_says(text: str) -> str | None:
    """The provider's own message inside the (possibly truncated) error body quoted in `text`, if any."""
    start = text.find("{")
    if start < 0:
        return None
    try:
        found = _message_in(json.loads(text[start:]))
    except ValueError:  # cut at the message's length limit: take the first message-like field
        match = _QUOTED.search(text[start:])
        found = _unescaped(match.group(2)) if match else None
        if match and not match.group(3) and found and not found.endswith((".", "!", "?")):
            found += "…"  # the excerpt ends inside the provider's message
    return found.strip() or None if found else None


def _message_in(body: Any) -> str | None:
    if isinstance(body, str):
        return body
    if isinstance(body, list):
        return next((m for m in map(_message_in, body) if m), None)
    if isinstance(body, dict):
        for name in _MESSAGE_FIELDS:
            found = _message_in(body.get(name))
            if found:
                return found
        return next((m for m in map(_message_in, body.get("errors", [])) if m), None)
    return None


def _unescaped(quoted: str) -> str:
    try:
        return str(json.loads(f'"{quoted}"'))
    except ValueError:
        return quoted


def probe_view(result: CanaryResult) -> dict[str, Any]:
    """A "Test connection" result as the console shows it: a headline, the provider's message, what to do."""
    view: dict[str, Any] = {
        "engine": result.engine,
        "status": result.status,
        "hits": result.hits,
        "code": result.code or "",
        "latency_ms": result.latency_ms,
        "headline": f"{STATUS_WORDS[result.status]} in {result.latency_ms:.0f} ms",
        "message": "",
        "advice": "",
    }
    if result.status in ("ok", "generic"):
        view["message"] = f"{result.engine} answered the test query with {result.hits} results."
        return view
    error = result.error
    raw = error.message if error is not None else (result.message or "")
    quoted = provider_says(raw)
    head = re.split(r":\s*[{\[]", raw, maxsplit=1)[0]  # the quoted body never shows as JSON, message or not
    named = error is not None and bool(error.engine)
    view["message"] = sentence(f"{result.engine} {head}" if named else head, capital=not named)
    if quoted:
        view["message"] += f" The provider says: “{sentence(quoted)}”"
    if error is not None:
        view["advice"] = sentence(error.next_hint.render(console_syntax))
    return view


def engine_row(status: EngineStatus, *, testable: bool) -> dict[str, Any]:
    """One engine's status as the console shows it: its breaker in words, with the rest's time left, and whether
    it has a "Test connection" (web and image engines do, reverse-image backends do not)."""
    row = status.model_dump()
    rest = left(status.retry_after) if status.breaker != "closed" else ""
    failures = f" ({status.failures} failures)" if status.failures else ""
    row["breaker_text"] = f"{status.breaker.replace('_', '-')}{f' · {rest} left' if rest else ''}{failures}"
    row["testable"] = testable
    return row


def left(seconds: float | None) -> str:
    """A wait as "4 min 10 s" (or "" when there is none)."""
    if seconds is None or seconds <= 0:
        return ""
    whole = max(1, round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours} h" if hours else "", f"{minutes} min" if minutes else "", f"{secs} s" if secs else ""]
    return " ".join(part for part in parts if part)


def when(moment: float | str | None) -> str:
    """Every time the console shows, in one format: "2026-11-29 02:45:07 UTC" (epoch seconds or ISO 8601 in)."""
    if moment is None or moment == "":
        return "—"
    if isinstance(moment, str):
        parsed = datetime.fromisoformat(moment.replace("Z", "+00:00"))
        stamp = parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    else:
        stamp = datetime.fromtimestamp(moment, UTC)
    return stamp.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
