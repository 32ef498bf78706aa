"""Idempotency keys: a retried call with the same key gets the first call's result and is charged once.

Per agent and key one row: `running` while the first call is in flight (with a lease, so a crashed process does
not block the key forever), then `done` with the stored result for 24 hours. The same key with other arguments
(another fingerprint) is IdempotencyMismatchError; a duplicate while the first runs is InProgressError with a
retry_after. Only successful results are stored: a failed call forgets its key, so the retry runs again (a failure
was free, or the agent's own and repeatable).

A metered call's result is stored by `keep` in the transaction that commits its charge (tools/accounting.py), so a
charge never stands without its answer: a process killed after the commit, or a commit whose acknowledgement was
lost, is replayed to the retry rather than run and charged again once the lease passes. A metered call notes its
hold on its running row (`note_hold`, in the reservation's transaction): when its key is forgotten after a failure,
or started afresh after its process died, that hold is handed back (`Stale`) to be released at once, so a retry of the
same call does not find its quota slot taken by its own failed attempt until the lease passes.
"""

from __future__ import annotations

from dataclasses import dataclass

from webreach.accounts.database import Database, Transaction
from webreach.errors import IdempotencyMismatchError, InProgressError, InvalidInputError

KEEP_SECONDS = 86_400.0
RETRY_AFTER = 1.0


@dataclass(frozen=True)
class Stale:
    """This call runs, and an earlier attempt with its key left hold `call_id` open (its process died, or its charge
    could not be recorded): release it (Ledger.settle with charged None; a settled hold is left as it is)."""

    call_id: str


@dataclass(frozen=True)
class Replay:
    """The stored result of an earlier call with the same key."""

    text: str
    is_json: bool


def check_key(key: str) -> str:
    if not 1 <= len(key) <= 255 or not key.isprintable():
        raise InvalidInputError("invalid idempotency key", hint="Use 1-255 printable characters, e.g. a UUID.")
    return key


class Idempotency:
    """The idempotency rows of one ledger database."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def begin(self, agent: str, key: str, fingerprint: str, *, now: float, lease: float) -> Replay | Stale | None:
        """None: this call runs (and must `finish` or `forget`); Stale: it runs, and an earlier attempt's hold is to
        be released; a Replay: answer with it; else a typed refusal."""
        with self.database.transaction(patient=False) as tx:
            row = None
            for _ in range(2):  # a row deleted (forgotten) between the two statements: insert again
                if tx.one(_START, agent, key, fingerprint, now + lease) is not None:
                    return None
                row = tx.one(_READ + self.database.lock_row, agent, key)
                if row is not None:
                    break
            assert row is not None  # only its own attempt deletes a row, and that once
            stored, state, result, expires = row
            if float(expires) < now:  # a finished result past 24 h, or a run whose process died: start afresh
                tx.run(_AFRESH, fingerprint, now + lease, agent, key)
                stale = _hold(result) if state == "running" else None
                return None if stale is None else Stale(stale)
            if stored != fingerprint:
                raise IdempotencyMismatchError("this idempotency key was used for a call with other arguments")
            if state == "running":
                raise InProgressError(
                    "a call with this idempotency key is still running", retry_after=min(RETRY_AFTER, expires - now)
                )
            kind, _, text = str(result).partition(":")
            return Replay(text=text, is_json=kind == "json")

    def finish(self, agent: str, key: str, fingerprint: str, text: str, *, is_json: bool, now: float) -> None:
        with self.database.transaction(patient=False) as tx:
            keep(tx, agent, key, fingerprint, text, is_json=is_json, now=now)

    def forget(self, agent: str, key: str) -> str | None:
        """Drop a running call's key (it failed: the retry runs again); the hold it noted, if any (to release)."""
        with self.database.transaction(patient=False) as tx:
            row = tx.one(
                "DELETE FROM accounts_idempotency_v1 WHERE agent = ? AND key = ? AND state = 'running'"
                " RETURNING result",
                agent,
                key,
            )
        return None if row is None else _hold(row[0])


_START = (
    "INSERT INTO accounts_idempotency_v1 (agent, key, fingerprint, state, expires)"
    " VALUES (?, ?, ?, 'running', ?) ON CONFLICT DO NOTHING RETURNING 1"
)
_READ = "SELECT fingerprint, state, result, expires FROM accounts_idempotency_v1 WHERE agent = ? AND key = ?"
_AFRESH = (
    "UPDATE accounts_idempotency_v1 SET fingerprint = ?, state = 'running', result = NULL, expires = ?"
    " WHERE agent = ? AND key = ?"
)
_HOLD = "hold:"  # a running row's result: the hold its metered call reserved (note_hold)


def _hold(result: object) -> str | None:
    text = "" if result is None else str(result)
    return text[len(_HOLD) :] if text.startswith(_HOLD) else None


def note_hold(tx: Transaction, agent: str, key: str, call_id: str) -> None:
    """Note on a running call's key the hold its metering reserved (in `tx`: the reservation's transaction)."""
    tx.run(
        "UPDATE accounts_idempotency_v1 SET result = ? WHERE agent = ? AND key = ? AND state = 'running'",
        _HOLD + call_id,
        agent,
        key,
    )


# written whether the running row is there or not: a cancelled call forgets its key while its charge commits, and
# the charge's transaction writes the answer back; never over another call's row (another fingerprint)
_KEEP = (
    "INSERT INTO accounts_idempotency_v1 (agent, key, fingerprint, state, result, expires)"
    " VALUES (?, ?, ?, 'done', ?, ?) ON CONFLICT (agent, key) DO UPDATE SET state = 'done', result = excluded.result,"
    " expires = excluded.expires WHERE accounts_idempotency_v1.fingerprint = excluded.fingerprint"
)


def keep(tx: Transaction, agent: str, key: str, fingerprint: str, text: str, *, is_json: bool, now: float) -> None:
    """Store a call's result for its key (in `tx`: the caller's transaction, a metered call's settle)."""
    tx.run(_KEEP, agent, key, fingerprint, ("json:" if is_json else "text:") + text, now + KEEP_SECONDS)
