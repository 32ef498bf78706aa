"""What a metered call cost, in its answer: the cost member a JSON answer carries (spliced in, and taken off again
for a replay), the one line a compact answer ends with, and the figures themselves (tools/accounting.py charges)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from webreach.accounts.ledger import Reservation
from webreach.accounts.quotas import iso
from webreach.accounts.service import Held
from webreach.tools.backend import ToolResult

INDENTED_COST = ',\n  "cost": '  # the cost member of an answer indented 2 (with_cost)


def cost_line(cost: dict[str, Any]) -> str:
    """The one compact line saying what a call cost."""
    left = "" if cost["calls_left"] is None else f"; {cost['calls_left']} calls left until {cost['resets_at']}"
    replay = f" (a replay of a call charged {cost['original_charged']})" if cost.get("replayed") else ""
    return f"[cost: {cost['charged']} credits{replay}; balance {cost['balance']}{left}]"


def cost_of(held: Held, charged: int | None, balance: int | None) -> dict[str, Any]:
    """What the agent sees: charged credits, balance, calls left and when the window frees one (`charged` None:
    released; `balance` None: recovery released it first)."""
    reservation: Reservation = held.reservation
    usage = reservation.usage
    if balance is None:
        charged, balance = None, reservation.balance + reservation.price
    if charged is None:  # a released call does not count against the quota either
        usage = replace(usage, hour_used=usage.hour_used - 1, day_used=usage.day_used - 1)
    return {
        "charged": charged or 0,
        "balance": balance,
        "calls_left": usage.remaining(),
        "resets_at": None if usage.hour_resets_at is None else iso(usage.hour_resets_at),
    }


def with_cost(result: ToolResult, cost: dict[str, Any], *, output: str) -> ToolResult:
    """The result with its cost: a "cost" member in JSON (spliced, not re-encoded: the body is an object), one
    line after compact text."""
    if result.is_json:
        text = result.text.rstrip()
        if text.endswith("\n}"):  # indented 2 (a drop-in contract's answer): the member indented as its siblings
            member = json.dumps(cost, indent=2).replace("\n", "\n  ")
            return replace(result, text=f"{text[:-2]}{INDENTED_COST}{member}\n}}", cost=cost)
        spliced = f'{text[:-1]}, "cost": {json.dumps(cost)}}}' if text.endswith("}") else text
        return replace(result, text=spliced, cost=cost)
    return replace(result, text=f"{result.text}\n{cost_line(cost)}", cost=cost)


def without_cost(result: ToolResult) -> tuple[ToolResult, int | None]:
    """A result with the cost `with_cost` added taken off again, and what it said was charged (None: none)."""
    text = result.text.rstrip()
    if result.is_json and text.endswith("\n}") and INDENTED_COST in text:
        at = text.rfind(INDENTED_COST)
        try:
            cost = json.loads(text[at + len(INDENTED_COST) : -2])
        except ValueError:
            return result, None
        return replace(result, text=text[:at] + "\n}"), int(cost.get("charged", 0))
    if result.is_json:
        at = text.rfind(', "cost": ')  # with_cost appends it last
        if at < 0 or not text.endswith("}"):
            return result, None
        try:
            cost = json.loads(text[at + len(', "cost": ') : -1])
        except ValueError:
            return result, None
        return replace(result, text=text[:at] + "}"), int(cost.get("charged", 0))
    head, _, last = text.rpartition("\n")
    found = re.match(r"\[cost: (\d+) credits", last)
    return (replace(result, text=head), int(found.group(1))) if found else (result, None)
