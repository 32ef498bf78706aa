"""An agent as the ledger stores it (its key only as a hash, never here), and a reserved call: the rows the ledger
(ledger.py) and a reservation's read (admission.py) make of the agents table."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from webreach.accounts.quotas import Usage, iso

AGENT_COLUMNS = "name, balance, disabled, per_hour, per_day, options, created, key_expires"
AGENT_WIDTH = 8  # the columns above: a row read with the quota counters has them after these


@dataclass(frozen=True)
class Agent:
    """One agent as stored (its key only as a hash, never here)."""

    name: str
    balance: int
    disabled: bool
    per_hour: int | None
    per_day: int | None
    options: dict[str, Any] = field(default_factory=dict)  # prices and tool profile overrides
    created: float = 0.0
    key_expires: float | None = None  # epoch seconds after which its key is refused (None: never)

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> Agent:
        name, balance, disabled, per_hour, per_day, options, created, expires = row
        options = json.loads(options)
        expires = None if expires is None else float(expires)
        return cls(name, int(balance), bool(disabled), per_hour, per_day, options, float(created), expires)

    def key_expired(self, now: float) -> bool:
        return self.key_expires is not None and now >= self.key_expires

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "balance": self.balance,
            "disabled": self.disabled,
            "per_hour": self.per_hour,
            "per_day": self.per_day,
            "options": self.options,
            "created": iso(self.created),
            "key_expires": None if self.key_expires is None else iso(self.key_expires),
        }


@dataclass(frozen=True)
class Reservation:
    """A reserved call: its id, the credits held, the balance and quota use once they were held."""

    agent: str
    call_id: str
    price: int
    balance: int
    usage: Usage
    committed: bool = False  # committed whole with its reservation (reserve_in's `whole`): nothing to settle
