"""The audit log of admin changes: who changed which agent or setting, how, and when, written in the same
transaction as the change itself (so a change is never without its entry, and an entry never without its change).

Entries name the door that made the change (`cli`, `console`, `admin-api`, or `operator` for library callers),
the action (add, grant, rotate-key, disable, enable, update; `settings` for the console's settings, target
"settings") and its details: amounts, quotas, prices, profiles; for settings the fields set and removed, never
their values. Never a key: a rotation records that it happened, not what the key became. Read with
`webreach agents audit` or GET /v1/admin/audit, newest first.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from webreach.accounts.database import Database, Transaction
from webreach.accounts.quotas import iso

ACTORS = ("cli", "console", "admin-api", "operator")


@dataclass(frozen=True)
class Change:
    """One admin change, to be written with it: by whom (a door's name), what, when, and its details."""

    actor: str
    action: str
    at: float
    detail: Mapping[str, Any] = field(default_factory=dict)


def write(tx: Transaction, change: Change, target: str) -> None:
    """The change's entry, inside the transaction that makes the change."""
    tx.run(
        "INSERT INTO accounts_audit_v1 (at, actor, action, target, detail) VALUES (?, ?, ?, ?, ?)",
        change.at, change.actor, change.action, target, json.dumps(dict(change.detail), sort_keys=True),
    )  # fmt: skip


def entries(database: Database, *, limit: int = 100, target: str | None = None) -> list[dict[str, Any]]:
    """The newest `limit` entries (of one agent, with `target`), newest first."""
    where, args = (" WHERE target = ?", [target]) if target is not None else ("", [])
    with database.transaction(write=False) as tx:
        rows = tx.rows(
            f"SELECT id, at, actor, action, target, detail FROM accounts_audit_v1{where} ORDER BY id DESC LIMIT ?",
            *args,
            limit,
        )
    return [
        {"id": int(row[0]), "at": iso(float(row[1])), "actor": row[2], "action": row[3], "target": row[4]}
        | {"detail": json.loads(row[5])}
        for row in rows
    ]
