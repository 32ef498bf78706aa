"""Parse-health stores: which parser read each engine's recent answers, in memory or in the SQLite state file.

A ParseRecord is one engine's parse history as data: the mode of its last parsed answer ("engine", "generic" or
"parse_error"), when (epoch seconds, from the caller's clock) and `recent`, one letter per answer for the last
RECENT answers, oldest first (e engine, g generic, x parse_error). Answers served from the cache parsed nothing
and are not recorded. Stores never read a clock; policies/parse_health.py records and views.

Across processes (the SQLite backend, table parse_health_v1 in the state file, beside the breaker state): each
record() appends inside one BEGIN IMMEDIATE transaction, so runs of several CLI processes add up instead of
overwriting each other. Like the other state stores it never fails a search: an unusable file is logged once
and the history is kept in memory for this process.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from webreach.config import StateSettings
from webreach.state.sqlite_file import SqliteFile, SqliteStore, default_state_path

ParseMode = Literal["engine", "generic", "parse_error"]
RECENT = 20
LETTERS: Mapping[str, str] = {"engine": "e", "generic": "g", "parse_error": "x"}
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS parse_health_v1 ("
    " engine TEXT PRIMARY KEY, last_mode TEXT NOT NULL, last_at REAL NOT NULL, recent TEXT NOT NULL)",
)


@dataclass(frozen=True)
class ParseRecord:
    """One engine's parse history: the last mode and when, and the letters of its last RECENT answers."""

    engine: str
    last_mode: str
    last_at: float
    recent: str

    def then(self, mode: ParseMode, at: float) -> ParseRecord:
        """This record with one more answer."""
        return ParseRecord(self.engine, mode, at, (self.recent + LETTERS[mode])[-RECENT:])


def first_record(engine: str, mode: ParseMode, at: float) -> ParseRecord:
    return ParseRecord(engine, mode, at, LETTERS[mode])


class ParseHealthStore(Protocol):
    """Where parse histories live. No method raises for backend trouble."""

    def record(self, engine: str, mode: ParseMode, at: float) -> None:
        """Add one parsed answer to the engine's history."""
        ...

    def load_all(self) -> dict[str, ParseRecord]:
        """Every engine's history, by engine."""
        ...

    def close(self) -> None:
        """Release files or connections."""
        ...


class MemoryParseHealthStore:
    """Histories for this process only."""

    def __init__(self, records: Mapping[str, ParseRecord] | None = None) -> None:
        self._records: dict[str, ParseRecord] = dict(records or {})

    def record(self, engine: str, mode: ParseMode, at: float) -> None:
        old = self._records.get(engine)
        self._records[engine] = old.then(mode, at) if old is not None else first_record(engine, mode, at)

    def load_all(self) -> dict[str, ParseRecord]:
        return dict(self._records)

    def put(self, record: ParseRecord) -> None:
        self._records[record.engine] = record

    def close(self) -> None:
        return None


class SqliteParseHealthStore(SqliteStore):
    """Histories in the state file, shared by every process of the user; mirrored in memory for when it fails."""

    def __init__(self, path: Path, *, busy_timeout: float = 0.5) -> None:
        super().__init__(
            SqliteFile(
                path,
                _SCHEMA,
                what="parse-health state",
                fallback="parse health is kept by this process only",
                busy_timeout=busy_timeout,
            )
        )
        self._mirror = MemoryParseHealthStore()

    def record(self, engine: str, mode: ParseMode, at: float) -> None:
        conn = self._file.connection(create=True)
        if conn is None:
            self._mirror.record(engine, mode, at)
            return
        try:
            with conn:  # commits when the block ends, rolls back when it raises
                conn.execute("BEGIN IMMEDIATE")
                row = conn.execute(
                    "SELECT engine, last_mode, last_at, recent FROM parse_health_v1 WHERE engine = ?", (engine,)
                ).fetchone()
                old = _decode(row) if row is not None else None
                new = old.then(mode, at) if old is not None else first_record(engine, mode, at)
                conn.execute(
                    "INSERT OR REPLACE INTO parse_health_v1 (engine, last_mode, last_at, recent) VALUES (?, ?, ?, ?)",
                    (new.engine, new.last_mode, new.last_at, new.recent),
                )
        except sqlite3.Error as exc:
            self._file.report("update", exc)
            self._mirror.record(engine, mode, at)
            return
        self._mirror.put(new)

    def load_all(self) -> dict[str, ParseRecord]:
        conn = self._file.connection(create=False)
        if conn is None:
            return self._mirror.load_all()
        try:
            rows = conn.execute("SELECT engine, last_mode, last_at, recent FROM parse_health_v1").fetchall()
        except sqlite3.Error as exc:
            self._file.report("read from", exc)
            return self._mirror.load_all()
        records = {record.engine: record for record in map(_decode, rows) if record is not None}
        self._mirror = MemoryParseHealthStore(records)
        return records


def _decode(row: Any) -> ParseRecord | None:
    """A record from a row, or None when the row is not one (written by hand or by another version)."""
    engine, last_mode, last_at, recent = row
    if not (
        isinstance(engine, str)
        and last_mode in LETTERS
        and isinstance(last_at, int | float)
        and isinstance(recent, str)
        and set(recent) <= set(LETTERS.values())
    ):
        return None
    return ParseRecord(engine, last_mode, float(last_at), recent[-RECENT:])


def open_parse_health_store(settings: StateSettings, *, environ: Mapping[str, str] | None = None) -> ParseHealthStore:
    """The store `settings.backend` names; the SQLite file is created at the first parsed answer."""
    if settings.backend == "memory":
        return MemoryParseHealthStore()
    return SqliteParseHealthStore(settings.path or default_state_path(environ))
