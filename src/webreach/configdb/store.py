"""The console's settings as rows in the ledger's database (SQLite by default, PostgreSQL when `[accounts]
database` names one), so every server sharing that database shares them.

    config_values_v1   (scope, field) -> value: JSON text, or a Fernet token when `secret` (secret_box.py)
    config_version_v1  one row: a counter every write bumps in the same transaction
    console_sessions_v1  the console's sessions: SHA-256 of the cookie's id, the CSRF token, the expiry
    console_forms_v1   one-time form tokens already used (SHA-256), so a replayed POST does nothing

A server compares the version (one indexed one-row read) at most once a second, off the event loop, and reloads
the values only when it moved (service.py). Tables are created on first use under a lock (SQLite's write lock,
a PostgreSQL advisory lock), so servers starting together create them once.
"""

from __future__ import annotations

from dataclasses import dataclass

from webreach.accounts.audit import Change as Audited
from webreach.accounts.audit import write as write_audit
from webreach.accounts.database import Database, Transaction

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS config_values_v1 (
        scope TEXT NOT NULL,
        field TEXT NOT NULL,
        value TEXT NOT NULL,
        secret INTEGER NOT NULL DEFAULT 0,
        updated DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (scope, field))""",
    "CREATE TABLE IF NOT EXISTS config_version_v1 (id INTEGER PRIMARY KEY, version BIGINT NOT NULL)",
    "INSERT INTO config_version_v1 (id, version) SELECT 1, 0 WHERE NOT EXISTS (SELECT 1 FROM config_version_v1)",
    # the console's logged-in browsers: a restart (or another replica behind a balancer) keeps them
    """CREATE TABLE IF NOT EXISTS console_sessions_v1 (
        id_hash TEXT PRIMARY KEY,
        csrf TEXT NOT NULL,
        expires DOUBLE PRECISION NOT NULL)""",
    # one-time form tokens already used (a credit grant, an order move): kept as long as a session lives
    """CREATE TABLE IF NOT EXISTS console_forms_v1 (
        token_hash TEXT PRIMARY KEY,
        expires DOUBLE PRECISION NOT NULL)""",
)
_SCHEMA_LOCK = 0x77636667  # "wcfg": the advisory lock replicas take while creating the tables


@dataclass(frozen=True)
class StoredValue:
    """One stored field: its JSON text (or Fernet token when secret) and when it was written."""

    scope: str  # "engine:<name>" or "routing"
    field: str
    value: str
    secret: bool
    updated: float


class ConfigStore:
    """Reads and writes of the console's settings on one Database (see the module docstring)."""

    def __init__(self, database: Database) -> None:
        self.database = database
        with database.transaction() as tx:
            if tx.postgres:
                tx.one("SELECT pg_advisory_xact_lock(?)", _SCHEMA_LOCK)
            for statement in _SCHEMA:
                tx.run(statement)

    def version(self) -> int:
        """The configuration's version: it moves with every write, on any server."""
        with self.database.transaction(write=False) as tx:
            return _version(tx)

    def load(self) -> tuple[int, list[StoredValue]]:
        """The version and every stored value, read together."""
        with self.database.transaction(write=False) as tx:
            version = _version(tx)
            rows = tx.rows("SELECT scope, field, value, secret, updated FROM config_values_v1 ORDER BY scope, field")
        return version, [StoredValue(s, f, v, bool(secret), float(u)) for s, f, v, secret, u in rows]

    def write(
        self, changes: dict[tuple[str, str], tuple[str, bool] | None], *, now: float, audit: Audited | None = None
    ) -> int:
        """Set (value, secret) or delete (None) each (scope, field), bumping the version once, with the change's
        audit entry in the same transaction; the new version."""
        with self.database.transaction() as tx:
            if audit is not None:
                write_audit(tx, audit, "settings")
            for (scope, field), change in sorted(changes.items()):
                if change is None:
                    tx.run("DELETE FROM config_values_v1 WHERE scope = ? AND field = ?", scope, field)
                    continue
                value, secret = change
                tx.run(
                    "INSERT INTO config_values_v1 (scope, field, value, secret, updated) VALUES (?, ?, ?, ?, ?)"
                    " ON CONFLICT (scope, field) DO UPDATE SET value = excluded.value, secret = excluded.secret,"
                    " updated = excluded.updated",
                    scope, field, value, int(secret), now,
                )  # fmt: skip
            tx.run("UPDATE config_version_v1 SET version = version + 1 WHERE id = 1")
            return _version(tx)

    def open_session(self, id_hash: str, csrf: str, expires: float, *, now: float) -> None:
        """Keep a console session (and forget the expired ones)."""
        with self.database.transaction() as tx:
            tx.run("DELETE FROM console_sessions_v1 WHERE expires <= ?", now)
            tx.run("INSERT INTO console_sessions_v1 (id_hash, csrf, expires) VALUES (?, ?, ?)", id_hash, csrf, expires)

    def session(self, id_hash: str, *, now: float) -> tuple[str, float] | None:
        """A live session's CSRF token and expiry."""
        with self.database.transaction(write=False) as tx:
            row = tx.one(
                "SELECT csrf, expires FROM console_sessions_v1 WHERE id_hash = ? AND expires > ?", id_hash, now
            )
        return None if row is None else (str(row[0]), float(row[1]))

    def claim_form(self, token_hash: str, expires: float, *, now: float) -> bool:
        """Mark a one-time form token used; False when it was already (the POST is a replay)."""
        with self.database.transaction() as tx:
            tx.run("DELETE FROM console_forms_v1 WHERE expires <= ?", now)
            return tx.changed(
                "INSERT INTO console_forms_v1 (token_hash, expires) VALUES (?, ?) ON CONFLICT (token_hash) DO NOTHING",
                token_hash, expires,
            ) == 1  # fmt: skip

    def close_session(self, id_hash: str) -> None:
        with self.database.transaction() as tx:
            tx.run("DELETE FROM console_sessions_v1 WHERE id_hash = ?", id_hash)


def _version(tx: Transaction) -> int:
    row = tx.one("SELECT version FROM config_version_v1 WHERE id = 1")
    return int(row[0]) if row is not None else 0
