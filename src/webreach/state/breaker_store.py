"""Circuit-breaker stores: the BreakerStore protocol and its memory and SQLite backends.

A BreakerRecord is one engine's breaker as data: wall-clock `open_until` (epoch seconds), the error code that
tripped it (None while closed), how many consecutive openings it has had and how many consecutive failures it
has counted while closed, and `fingerprint`, a short hash of the engine configuration (API key, base URL,
options) the record was written under, never the key itself: a suspension for bad credentials or a spent
quota belongs to one configuration (policies/breaker.py drops it when the configuration changes). Stores never
read a clock and never interpret records; policies/breaker.py does.

The table is breaker_state_v2 (v1 had no fingerprint). Records in a v1 table are not carried over: the first
run of this version starts with every breaker closed, which costs at most one request per suspended engine.

Writes are last-writer-wins per engine. Two processes can race (both count a failure, one count is lost; both
probe a half-open engine once each), which costs at most a request or two, never a suspension: every trip is
written, and a process that sees its breaker closed re-reads the record before each call (see BreakerState).

Other processes' changes: every write (save, delete, clear) also bumps a generation counter in the same
transaction (breaker_generation_v1, one row). `changes()` compares it with the generation this store last took
in and returns every record when it moved, else None; a change this store made itself does not count when
nothing else wrote in between. `changes()` also notices the file being deleted or replaced (one stat, see
SqliteFile.moved): deleted means no records ({}), every breaker closed; a new file is read afresh. Measured on
this machine (SQLite 3.40, a 20-record file, timeit): 8.8 us when nothing changed (the per-call primary-key
read it replaces cost 13.5 us), 120 us for a 20-record reload after a change. PolicyState.sync calls it at
most every SYNC_INTERVAL (0.5 s), never per search: between looks a call pays 0.37 us (a clock read).

The SQLite backend never fails a search. Reads of a file that does not exist yet return nothing without
creating it; the first save creates it. When the file cannot be opened or used it logs one warning and keeps
records in memory, so this process still honours its own suspensions.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from webreach.config import StateSettings
from webreach.state.sqlite_file import SqliteFile, SqliteStore, default_state_path

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS breaker_state_v2 ("
    " engine TEXT PRIMARY KEY, open_until REAL NOT NULL, reason TEXT,"
    " openings INTEGER NOT NULL, failures INTEGER NOT NULL, fingerprint TEXT)",
    "CREATE TABLE IF NOT EXISTS breaker_generation_v1 (id INTEGER PRIMARY KEY CHECK (id = 1),"
    " generation INTEGER NOT NULL)",
)
_BUMP = (
    "INSERT INTO breaker_generation_v1 (id, generation) VALUES (1, 1)"
    " ON CONFLICT (id) DO UPDATE SET generation = generation + 1 RETURNING generation"
)
_COLUMNS = "engine, open_until, reason, openings, failures, fingerprint"


@dataclass(frozen=True)
class BreakerRecord:
    """One engine's breaker: open (resting, or half-open once `open_until` has passed) when `reason` is set."""

    engine: str
    open_until: float = 0.0
    reason: str | None = None
    openings: int = 0
    failures: int = 0
    fingerprint: str | None = None


class BreakerStore(Protocol):
    """Where breaker records live. No method raises for backend trouble."""

    def load_all(self) -> dict[str, BreakerRecord]:
        """Every stored record, by engine."""
        ...

    def load(self, engine: str) -> BreakerRecord | None:
        """One engine's record, None when it has none."""
        ...

    def save(self, record: BreakerRecord) -> None:
        """Store `record`, replacing the engine's previous one."""
        ...

    def delete(self, engine: str) -> None:
        """Forget one engine's record (that engine closed)."""
        ...

    def clear(self) -> None:
        """Forget every record (every engine closed)."""
        ...

    def changes(self) -> dict[str, BreakerRecord] | None:
        """Every record when another process changed them (or deleted the file: {}) since the last look, else None."""
        ...

    @property
    def generation(self) -> int:
        """The generation this store last took in or wrote (0: none yet); see `changes`."""
        ...

    def close(self) -> None:
        """Release files or connections."""
        ...


class MemoryBreakerStore:
    """Records for this process only: a new process starts with every breaker closed."""

    def __init__(self, records: Mapping[str, BreakerRecord] | None = None) -> None:
        self._records: dict[str, BreakerRecord] = dict(records or {})

    def load_all(self) -> dict[str, BreakerRecord]:
        return dict(self._records)

    def load(self, engine: str) -> BreakerRecord | None:
        return self._records.get(engine)

    def save(self, record: BreakerRecord) -> None:
        self._records[record.engine] = record

    def delete(self, engine: str) -> None:
        self._records.pop(engine, None)

    def clear(self) -> None:
        self._records.clear()

    def changes(self) -> dict[str, BreakerRecord] | None:
        return None  # no other process sees this store

    @property
    def generation(self) -> int:
        return 0

    def close(self) -> None:
        return None


class SqliteBreakerStore(SqliteStore):
    """Records in the state file, shared by every process of the user (WAL; one short transaction per write).

    It mirrors the last records it read or wrote in memory and answers from the mirror whenever the file
    cannot be used, so a broken file degrades to per-process breakers instead of forgetting a trip.
    """

    def __init__(self, path: Path, *, busy_timeout: float = 0.5) -> None:
        super().__init__(
            SqliteFile(
                path,
                _SCHEMA,
                what="breaker state",
                fallback="suspensions are remembered by this process only",
                busy_timeout=busy_timeout,
            )
        )
        self._mirror = MemoryBreakerStore()
        self._seen: int | None = None  # the generation last taken in; None: no file seen yet

    @property
    def generation(self) -> int:
        return self._seen or 0

    def changes(self) -> dict[str, BreakerRecord] | None:
        moved = self._file.moved()
        if moved:  # deleted or replaced: what this store remembers of it is gone with it
            self._mirror = MemoryBreakerStore()
        if not moved and self._current_generation() == self._seen:
            return None
        return self.load_all()

    def _current_generation(self) -> int | None:
        """The file's generation (0 before the first write), None when there is no usable file."""
        rows = self._read("SELECT generation FROM breaker_generation_v1", ())
        if rows is None:
            return None
        return int(rows[0][0]) if rows else 0

    def load_all(self) -> dict[str, BreakerRecord]:
        # the generation first: a write landing between the two reads makes the next look reload, never miss it
        self._seen = self._current_generation()
        rows = self._read(f"SELECT {_COLUMNS} FROM breaker_state_v2", ())
        if rows is None:
            return self._mirror.load_all()
        records = {record.engine: record for record in map(_decode, rows) if record is not None}
        self._mirror = MemoryBreakerStore(records)
        return dict(records)

    def load(self, engine: str) -> BreakerRecord | None:
        rows = self._read(f"SELECT {_COLUMNS} FROM breaker_state_v2 WHERE engine = ?", (engine,))
        if rows is None:
            return self._mirror.load(engine)
        record = _decode(rows[0]) if rows else None
        if record is not None:
            self._mirror.save(record)
        return record

    def save(self, record: BreakerRecord) -> None:
        self._mirror.save(record)
        conn = self._file.connection(create=True)
        if conn is None:
            return
        statement = f"INSERT OR REPLACE INTO breaker_state_v2 ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)"
        values = (
            record.engine,
            record.open_until,
            record.reason,
            record.openings,
            record.failures,
            record.fingerprint,
        )
        self._write(conn, statement, values)

    def delete(self, engine: str) -> None:
        self._mirror.delete(engine)
        self._delete("DELETE FROM breaker_state_v2 WHERE engine = ?", (engine,))

    def clear(self) -> None:
        self._mirror.clear()
        self._delete("DELETE FROM breaker_state_v2", ())

    def _delete(self, sql: str, params: tuple[str, ...]) -> None:
        """Run one deleting statement; a file that does not exist yet has nothing to delete."""
        conn = self._file.connection(create=False)
        if conn is not None:
            self._write(conn, sql, params)

    def _write(self, conn: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> None:
        """Run one writing statement and bump the generation, in one transaction."""
        try:
            with conn:
                conn.execute(sql, params)
                generation = int(conn.execute(_BUMP).fetchone()[0])
        except sqlite3.Error as exc:
            self._file.report("write to", exc)
            return
        # our own write is no news to us, unless another process wrote since we last looked
        if (self._seen or 0) == generation - 1:
            self._seen = generation

    def _read(self, sql: str, params: tuple[str, ...]) -> list[Any] | None:
        """Rows of a query; None when the file is missing or unusable (the caller answers from the mirror)."""
        conn = self._file.connection(create=False)
        if conn is None:
            return None
        try:
            return conn.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            self._file.report("read from", exc)
            return None


def _decode(row: Any) -> BreakerRecord | None:
    """A record from a row, or None when the row is not one (written by hand or by an incompatible version)."""
    engine, open_until, reason, openings, failures, fingerprint = row
    if not (
        isinstance(engine, str)
        and (fingerprint is None or isinstance(fingerprint, str))
        and isinstance(open_until, int | float)
        and (reason is None or isinstance(reason, str))
        and isinstance(openings, int)
        and isinstance(failures, int)
        and openings >= 0
        and failures >= 0
    ):
        return None
    return BreakerRecord(engine, float(open_until), reason, openings, failures, fingerprint)


def open_breaker_store(settings: StateSettings, *, environ: Mapping[str, str] | None = None) -> BreakerStore:
    """The store `settings.backend` names; the SQLite file is only created when a record is first saved."""
    if settings.backend == "memory":
        return MemoryBreakerStore()
    return SqliteBreakerStore(settings.path or default_state_path(environ))
