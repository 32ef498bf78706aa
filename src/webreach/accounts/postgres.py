"""The ledger in PostgreSQL (psycopg 3), shared by every replica: a pool of checked connections, write
transactions whose BEGIN is sent before their first statement, or not at all for a statement alone
(transaction.LazyBegin), and idempotency keys that fail fast while the pool reconnects (`patient=False`)."""

from __future__ import annotations

import contextlib
import select
from collections.abc import Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any

from webreach.accounts.transaction import LazyBegin, Transaction, migrate, unavailable


class PostgresDatabase:
    """The ledger in PostgreSQL (psycopg 3), shared by every replica, over a pool of connections that each pass a
    check before they are lent (`_still_connected`): one that a server restart broke is dropped and replaced,
    instead of failing the call it was lent to. A transaction waits at most `timeout` seconds for a connection
    while the pool reconnects (its own bounded retries); past that it is AccountingUnavailableError."""

    lock_row = " FOR UPDATE"

    def __init__(self, url: str, *, timeout: float = 5.0) -> None:
        # the postgres extra; imported only when a postgresql:// URL is configured
        import psycopg
        from psycopg_pool import ConnectionPool, PoolTimeout

        self._timeout = timeout
        try:  # one connection first, for the reason when there is none (the pool would only say it timed out)
            psycopg.connect(url, connect_timeout=max(2, round(timeout))).close()
        except psycopg.OperationalError as exc:
            raise unavailable(exc, "PostgreSQL") from None
        self._pool = ConnectionPool(
            url,
            kwargs={"autocommit": True, "connect_timeout": max(2, round(timeout))},
            min_size=1,
            max_size=4,
            open=False,
            check=_still_connected,
            timeout=timeout,
            # the pool's own retries back off (1 s, 2 s, 4 s, ...) until they give up: giving up after `timeout`
            # makes the next transaction start a fresh attempt at once, so a server back after a long outage is
            # used within about a second, not after the backoff grown meanwhile
            reconnect_timeout=timeout,
            name="webreach-ledger",
        )
        try:
            self._pool.open(wait=True, timeout=timeout)
            migrate(self, postgres=True)
        except PoolTimeout as exc:  # no connection within the timeout: down, unreachable or refusing us
            self._pool.close(timeout=0)
            raise unavailable(exc, "PostgreSQL") from None
        except BaseException:
            self._pool.close(timeout=0)
            raise
        self.worker: Executor | None = ThreadPoolExecutor(1, thread_name_prefix="webreach-ledger")
        self._reconnecting = False  # the last transaction found no connection, or its connection broke

    @contextlib.contextmanager
    def transaction(self, *, write: bool = True, patient: bool = True) -> Iterator[Transaction]:
        """A write runs in BEGIN ... COMMIT, its BEGIN sent before its first statement (LazyBegin); a read
        (write=False) is its statements in autocommit (one round trip each, no BEGIN/COMMIT: the ledger's reads are
        single statements or need no snapshot across them). An impatient one (patient=False: idempotency keys)
        waits at most IMPATIENT_SECONDS for a connection while the pool reconnects (the last transaction found
        none, or its connection broke), so it fails fast instead of queueing on the worker for `timeout`."""
        import psycopg
        from psycopg_pool import PoolTimeout

        wait = self._timeout if patient or not self._reconnecting else min(self._timeout, IMPATIENT_SECONDS)
        try:
            with self._pool.connection(timeout=wait) as conn, conn.cursor() as cursor:
                if not write:
                    yield Transaction(cursor, postgres=True)
                else:
                    yield from _written(conn, cursor)
        except (PoolTimeout, psycopg.OperationalError) as exc:  # no connection in time, or it broke mid-way
            self._reconnecting = True
            raise unavailable(exc, "PostgreSQL") from None
        self._reconnecting = False

    def close(self) -> None:
        if self.worker is not None:
            self.worker.shutdown()
        self._pool.close(timeout=self._timeout)


# the longest an impatient transaction (an idempotency key's) waits for a connection while the pool reconnects:
# during a PostgreSQL restart each waited the whole `timeout` (1 s in the fleet fault run) on the one ledger
# worker, and the metered calls' reserves and settles queued behind them
IMPATIENT_SECONDS = 0.05


def _written(conn: Any, cursor: Any) -> Iterator[Transaction]:
    """A write transaction's body (PostgresDatabase.transaction): COMMIT when it returns, ROLLBACK when it raises."""
    lazy = LazyBegin(conn, cursor)
    try:
        yield Transaction(lazy, postgres=True)
    except BaseException:
        lazy.finish(ok=False)
        raise
    lazy.finish(ok=True)


def _still_connected(conn: Any) -> None:
    """The pool's check before lending a connection, without a round trip in the common case: an idle
    connection's socket has nothing to read unless the server sent something unasked, which is how a restart, a
    shutdown or a killed backend shows (its goodbye, or the end of the stream). Only then is the connection
    checked for real (an empty query; psycopg_pool's check_connection), which raises when it is broken. (A round
    trip on every lending would add three to each metered call, whose transactions are a few round trips each.)"""
    from psycopg_pool import ConnectionPool

    if conn.closed:
        ConnectionPool.check_connection(conn)  # raises
    waiting = select.poll()  # poll, not select: a busy server's descriptors pass FD_SETSIZE
    waiting.register(conn.fileno(), select.POLLIN)
    if waiting.poll(0):
        ConnectionPool.check_connection(conn)
