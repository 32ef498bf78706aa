"""Idempotency keys fail fast while the ledger's PostgreSQL pool reconnects (issue 38, Deliver 4): during a restart
each key's transaction used to wait the ledger's whole timeout for a connection on the one ledger worker, and the
metered calls' reserves and settles queued behind them. Now, once a transaction found no connection, a key's waits
at most IMPATIENT_SECONDS (typed AccountingUnavailableError), until a transaction gets through again."""

from __future__ import annotations

import pytest

from webreach.accounts.idempotency import Idempotency
from webreach.accounts.postgres import IMPATIENT_SECONDS, PostgresDatabase
from webreach.errors import AccountingUnavailableError
from webreach.testing.postgres import Cluster, fresh_database

pytestmark = [pytest.mark.network, pytest.mark.slow]  # a cluster of its own, stopped mid-test
T0 = 1_800_000_000.0
TIMEOUT = 2.0  # the ledger's timeout: what a patient transaction waits for a connection


def waited(error: AccountingUnavailableError) -> str:
    """How long the pool said it waited for a connection (psycopg_pool's PoolTimeout, in the typed error)."""
    return error.message.rsplit("after ", 1)[-1]


def test_a_key_fails_fast_while_the_pool_reconnects_and_not_once_it_is_back(own_cluster: Cluster) -> None:
    database = PostgresDatabase(fresh_database(own_cluster.url), timeout=TIMEOUT)
    keys = Idempotency(database)
    try:
        assert keys.begin("bot", "k1", "f", now=T0, lease=60) is None  # up: a key's transaction as before
        own_cluster.stop()
        # the first finds no connection in `timeout`
        with pytest.raises(AccountingUnavailableError) as patient, database.transaction() as tx:
            tx.one("SELECT 1")
        assert waited(patient.value).startswith(f"{TIMEOUT:.2f} sec")
        for key in ("k2", "k3", "k4"):  # then keys wait IMPATIENT_SECONDS, not `timeout`, each
            with pytest.raises(AccountingUnavailableError) as impatient:
                keys.begin("bot", key, "f", now=T0, lease=60)
            assert waited(impatient.value).startswith(f"{IMPATIENT_SECONDS:.2f} sec")
        own_cluster.start()
        with database.transaction() as tx:  # a patient transaction waits for the pool's new connection
            assert tx.one("SELECT 1") == (1,)
        assert keys.begin("bot", "k5", "f", now=T0, lease=60) is None  # back: keys run as before
        assert keys.forget("bot", "k5") is None
        with database.transaction(write=False) as tx:  # nothing the failed keys tried was written
            rows = tx.rows("SELECT key FROM accounts_idempotency_v1 ORDER BY key")
        assert rows == [("k1",)]
    finally:
        database.close()
