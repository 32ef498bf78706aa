"""The rules an agent's names, keys, amounts, quotas and options follow (accounts/service.py checks every change
against them): each raises InvalidInputError saying what is allowed."""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Mapping
from typing import Any

from webreach.accounts.quotas import Usage, iso
from webreach.defaults import TOOL_PROFILES
from webreach.errors import InvalidInputError

KEY_PREFIX = "wr_"
# the largest credit amount (a grant, a balance, a price): 2**53 - 1, exact in every JSON client's numbers
MAX_CREDITS = 2**53 - 1
MAX_CALLS = 2**31 - 1  # a quota (the column is a 32-bit INTEGER in PostgreSQL)
MAX_KEY_DAYS = 3650  # a key valid for ten years at most: for longer, give none
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", errors="surrogateescape")).hexdigest()


def check_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise InvalidInputError(
            f"invalid agent name {name[:80]!r}", hint="Use 1-64 letters, digits, '_', '.' or '-', starting alnum."
        )
    return name


def check_amount(value: int, what: str, *, most: int, least: int = 0) -> int:
    """`value` when within [least, most], else InvalidInputError saying the range (never a database overflow)."""
    if not least <= value <= most:
        digits = str(value)
        shown = digits if len(digits) <= 24 else f"{digits[:12]}... ({len(digits.lstrip('-'))} digits)"
        raise InvalidInputError(f"{what} {shown} is out of range", hint=f"Give a whole number from {least} to {most}.")
    return value


def new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def usage_json(usage: Usage) -> dict[str, Any]:
    return {
        "hour_used": usage.hour_used,
        "per_hour": usage.hour_limit,
        "day_used": usage.day_used,
        "per_day": usage.day_limit,
        "remaining": usage.remaining(),
        "resets_at": None if usage.hour_resets_at is None else iso(usage.hour_resets_at),
    }


def merged(current: Mapping[str, Any], change: Mapping[str, Any]) -> dict[str, Any]:
    """`current` with `change` applied per key: a value replaces, None removes."""
    merged = {**current, **change}
    return {key: value for key, value in merged.items() if value is not None}


def checked_limits(**limits: int | None) -> dict[str, int | None]:
    return {key: None if value is None else check_amount(value, key, most=MAX_CALLS) for key, value in limits.items()}


def check_options(options: dict[str, Any]) -> dict[str, Any]:
    """Prices map tools to whole credits; a profile lists tools (InvalidInputError otherwise)."""
    prices = options.get("prices", {})
    if not isinstance(prices, dict) or not all(type(v) is int and 0 <= v <= MAX_CREDITS for v in prices.values()):
        raise InvalidInputError(
            f"prices must map tool names to whole credits from 0 to {MAX_CREDITS}", hint='e.g. {"web_search": 3}.'
        )
    profile = options.get("profile", {})
    if not isinstance(profile, dict):
        raise InvalidInputError("profile must be an object", hint='e.g. {"tools": ["web_search"]}.')
    tools = profile.get("tools")
    if tools is not None and not (isinstance(tools, list) and all(isinstance(t, str) for t in tools)):
        raise InvalidInputError("profile.tools must be a list of tool names", hint='e.g. ["web_search"].')
    surface = profile.get("surface")
    if surface is not None and surface not in TOOL_PROFILES:
        raise InvalidInputError(
            f"profile.surface must name a drop-in tool profile, not {surface!r}",
            hint=f"Valid profiles: {', '.join(TOOL_PROFILES)} (or null for webreach's own tools).",
        )
    for key in ("default_results", "max_results", "default_chars", "max_chars"):
        value = profile.get(key)
        if value is not None and not (type(value) is int and 1 <= value <= MAX_CALLS):
            raise InvalidInputError(f"profile.{key} must be a whole number >= 1", hint=f'e.g. {{"{key}": 5}}.')
    return options
