"""Group commit: metered calls' reserves and settles, queued from the event loop, run by the ledger's worker thread
in one database transaction per batch.

Under load the calls that queued while the previous batch ran share one BEGIN ... COMMIT: one write lock taken,
one WAL append (SQLite) or one WAL flush (PostgreSQL), one hand-back to the event loop for the whole batch. Alone,
a call is a batch of one (a plain transaction). Measured here (8 callers in one process,
150 reserve-and-settle pairs each, runs alternating, a busy 2-core machine): CPU per pair 442-476 us with a
transaction per call against 260-359 us grouped on SQLite, 2,815-3,316 us against 1,746-2,474 us on PostgreSQL.

- A call's own refusal (a WebreachError: credits, quota, a disabled agent, a tool not allowed, an unknown agent)
  undoes only its own writes; the batch goes on. A batch first runs without savepoints (each is a statement, a
  round trip on PostgreSQL, two per call); when a call refuses, that transaction is rolled back and the batch
  runs again with a savepoint per call, so a refusal costs its batch a second run, never another call's money.
- Anything else (the database down, a full disk, a lock held past the busy timeout, a broken connection, a bug)
  fails the transaction: every call of the batch gets that error (the database layer's AccountingUnavailableError
  for storage failures), as each would have alone; nothing of the batch was written.
- Nothing is answered before its batch committed, so money stays exact across crashes as with one transaction per
  call: a reservation not committed never existed, one committed is recovered after its lease.
- The batches run on the group commit's own thread, woken only when it waits idle (no executor's future and queue
  per turn); the ledger's other work (idempotency keys, the console's reads) keeps the database's worker, and
  SQLite's connection lock or PostgreSQL's pool serialises the two. (No gain measured from the thread alone:
  384 against main's 413 us a cached call in process, within the runs' spread; docs/decisions.md "meter8".)
- One agent's answered calls queued together (accounts/charges.py: cached searches) are charged together: the
  agent read once, its balance and counters written once, the journal rows in one executemany.
- A batch takes its calls in agent-name order, so two PostgreSQL replicas' batches lock agents' rows in one order
  and cannot deadlock.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from webreach.accounts.charges import Charge, charge_together
from webreach.accounts.database import Database, Transaction
from webreach.errors import WebreachError

T = TypeVar("T")
BATCH = 64  # calls per transaction at most: a lock held for ~64 short calls, a few milliseconds
Outcome = tuple[bool, Any]


@dataclass(frozen=True)
class _Queued:
    agent: str
    work: Callable[[Transaction], Any]
    future: asyncio.Future[Any]
    loop: asyncio.AbstractEventLoop
    charge: Charge | None = None  # an answered call, which may be charged with the agent's others (charges.py)


class GroupCommit:
    """Calls queued for the group commit's thread, run in batches (see the module docstring)."""

    def __init__(self, database: Database, *, batch: int = BATCH) -> None:
        self._database, self._batch = database, batch
        self._wake = threading.Condition(threading.Lock())
        self._queued: list[_Queued] = []
        self._idle = False  # the thread waits for work: a submit wakes it
        self._thread: threading.Thread | None = None
        self._closed = False
        self._hold = threading.Lock()  # held(): no batch is taken

    def submit(
        self, agent: str, work: Callable[[Transaction], T], *, charge: Charge | None = None
    ) -> asyncio.Future[T]:
        """Run `work(tx)` for `agent` in the next batch (or `charge` with the agent's others there): the future
        holds its result or what it (or the batch) raised. Cancelling the future does not stop the work (shield it,
        as the metering policy does)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        with self._wake:
            self._queued.append(_Queued(agent, work, future, loop, charge))
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="webreach-group-commit", daemon=True)
                self._thread.start()
            elif self._idle:
                self._wake.notify()
        return future

    def close(self) -> None:
        """Run what is queued, then stop the thread."""
        with self._wake:
            self._closed = True
            self._wake.notify()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """No batch is taken inside: the calls submitted meanwhile form one batch (tests of batches use it)."""
        with self._hold:
            yield

    def _serve(self) -> None:
        while True:
            with self._wake:
                while not self._queued and not self._closed:
                    self._idle = True
                    self._wake.wait()
                self._idle = False
                if not self._queued:
                    return
            with self._hold, self._wake:
                batch, self._queued = self._queued[: self._batch], self._queued[self._batch :]
            batch.sort(key=lambda queued: queued.agent)  # stable: one agent's calls keep their order
            _hand_back(batch, self._run(batch))

    def _run(self, batch: list[_Queued]) -> list[Outcome]:
        """The batch in one transaction, no savepoint per call; when a call refuses (its writes so far would stay
        with the rest), the transaction is rolled back and the batch run again with a savepoint per call."""
        outcomes: list[Outcome] = []
        try:
            with self._database.transaction() as tx:
                tx.sole = len(batch) == 1  # a call alone in its batch: a statement whole by itself may commit alone
                for unit in _units(batch):
                    together = _together(tx, unit)
                    if together is not None:
                        outcomes += together
                        continue
                    for queued in unit:
                        try:
                            outcomes.append((True, queued.work(tx)))
                        except WebreachError as refusal:
                            if len(batch) == 1:  # the transaction is the call's own: rolled back below
                                outcomes.append((False, refusal))
                            raise _Refused from refusal
        except _Refused:
            return outcomes if len(batch) == 1 else self._run_each(batch)
        except Exception as failure:  # the transaction failed: nothing of the batch was written
            return [(False, failure)] * len(batch)
        return outcomes

    def _run_each(self, batch: list[_Queued]) -> list[Outcome]:
        outcomes: list[Outcome] = []
        try:
            with self._database.transaction() as tx:
                for unit in _units(batch):
                    try:
                        with tx.savepoint():
                            together = _together(tx, unit)
                    except WebreachError as refusal:  # the agent's (unknown): each of its calls is refused
                        outcomes += [(False, refusal)] * len(unit)
                        continue
                    if together is not None:
                        outcomes += together
                        continue
                    for queued in unit:
                        try:
                            with tx.savepoint():
                                outcomes.append((True, queued.work(tx)))
                        except WebreachError as refusal:  # the call's own: its savepoint is undone, the batch goes on
                            outcomes.append((False, refusal))
        except Exception as failure:  # the transaction failed: nothing of the batch was written
            return [(False, failure)] * len(batch)
        return outcomes


class _Refused(Exception):
    """A call of a batch run without savepoints refused: the transaction is rolled back (group_commit._run)."""


def _units(batch: list[_Queued]) -> list[list[_Queued]]:
    """The batch (in agent order) as units run in turn: one agent's answered calls next to each other together,
    every other call alone."""
    units: list[list[_Queued]] = []
    for queued in batch:
        last = units[-1] if units else None
        together = last is not None and last[-1].agent == queued.agent
        if together and queued.charge is not None and last[-1].charge is not None:  # type: ignore[index]
            last.append(queued)  # type: ignore[union-attr]
            continue
        units.append([queued])
    return units


def _together(tx: Transaction, unit: list[_Queued]) -> list[Outcome] | None:
    """A unit of answered calls charged together (charges.py); None: run each call's own work."""
    if len(unit) < 2:
        return None
    return charge_together(tx, [queued.charge for queued in unit if queued.charge is not None])


def _hand_back(batch: list[_Queued], outcomes: list[tuple[bool, Any]]) -> None:
    """Each call's outcome to its future, one wake-up per event loop."""
    by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], bool, Any]]] = {}
    for queued, (ok, value) in zip(batch, outcomes, strict=True):
        by_loop.setdefault(queued.loop, []).append((queued.future, ok, value))
    for loop, items in by_loop.items():
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: no one waits any more
            loop.call_soon_threadsafe(_settle_futures, items)


def _settle_futures(items: list[tuple[asyncio.Future[Any], bool, Any]]) -> None:
    for future, ok, value in items:
        if future.done():  # cancelled by its waiter
            continue
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)
