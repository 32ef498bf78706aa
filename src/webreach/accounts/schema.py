"""The ledger's schema: MIGRATIONS, one list of statements per version (a new version appends a list).

The schema is created and migrated on open (accounts/transaction.py `migrate`): `accounts_schema` holds the version,
and each step in MIGRATIONS runs once, in order, under a lock (SQLite's write lock, a PostgreSQL advisory lock), so
replicas starting together migrate once.
"""

from __future__ import annotations

# one list per schema version; a new version appends a list (never edits an old one)
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE IF NOT EXISTS accounts_agents_v1 (
            name TEXT PRIMARY KEY,
            key_hash TEXT NOT NULL UNIQUE,
            disabled INTEGER NOT NULL DEFAULT 0,
            balance BIGINT NOT NULL CHECK (balance >= 0),
            per_hour INTEGER,
            per_day INTEGER,
            options TEXT NOT NULL DEFAULT '{}',
            created DOUBLE PRECISION NOT NULL)""",
        """CREATE TABLE IF NOT EXISTS accounts_journal_v1 (
            id {serial},
            agent TEXT NOT NULL,
            call_id TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('grant', 'reserve', 'commit', 'release')),
            amount BIGINT NOT NULL,
            at DOUBLE PRECISION NOT NULL,
            tool TEXT NOT NULL DEFAULT '',
            note TEXT NOT NULL DEFAULT '')""",
        "CREATE UNIQUE INDEX IF NOT EXISTS accounts_journal_once ON accounts_journal_v1 (agent, call_id, kind)",
        # a reservation is settled once: committed or released, never both
        """CREATE UNIQUE INDEX IF NOT EXISTS accounts_journal_settled ON accounts_journal_v1 (agent, call_id)
            WHERE kind IN ('commit', 'release')""",
        "CREATE INDEX IF NOT EXISTS accounts_journal_window ON accounts_journal_v1 (agent, kind, at)",
        # reservations not yet settled, with the time after which recovery releases them
        """CREATE TABLE IF NOT EXISTS accounts_open_v1 (
            agent TEXT NOT NULL,
            call_id TEXT NOT NULL,
            amount BIGINT NOT NULL,
            expires DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (agent, call_id))""",
        # the calls a quota counts (reserved, not released), pruned past a day: counting them is one index range
        """CREATE TABLE IF NOT EXISTS accounts_calls_v1 (
            agent TEXT NOT NULL,
            call_id TEXT NOT NULL,
            at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (agent, call_id))""",
        "CREATE INDEX IF NOT EXISTS accounts_calls_window ON accounts_calls_v1 (agent, at)",
        """CREATE TABLE IF NOT EXISTS accounts_idempotency_v1 (
            agent TEXT NOT NULL,
            key TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            state TEXT NOT NULL,
            result TEXT,
            expires DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (agent, key))""",
    ),
    # quota counters kept under the agent's lock, so a reservation reads its use instead of counting the window:
    # `*_used` counts the calls in (`*_from`, now]; NULL `*_from` (an agent from version 1): count once
    (
        "ALTER TABLE accounts_agents_v1 ADD COLUMN hour_used BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE accounts_agents_v1 ADD COLUMN hour_from DOUBLE PRECISION",
        "ALTER TABLE accounts_agents_v1 ADD COLUMN day_used BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE accounts_agents_v1 ADD COLUMN day_from DOUBLE PRECISION",
    ),
    # counters written back stale by reservations that ran lease recovery after reading them (issue 35) kept
    # released calls in the windows for good: every agent's are counted afresh from the calls table once
    ("UPDATE accounts_agents_v1 SET hour_used = 0, hour_from = NULL, day_used = 0, day_from = NULL",),
    # the audit log of admin changes (accounts/audit.py), written in the transaction of each change
    (
        """CREATE TABLE IF NOT EXISTS accounts_audit_v1 (
            id {serial},
            at DOUBLE PRECISION NOT NULL,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            target TEXT NOT NULL,
            detail TEXT NOT NULL DEFAULT '{}')""",
        "CREATE INDEX IF NOT EXISTS accounts_audit_target ON accounts_audit_v1 (target, id)",
    ),
    # an optional expiry of the agent's key (epoch seconds; NULL: never), cleared when a new key is made
    ("ALTER TABLE accounts_agents_v1 ADD COLUMN key_expires DOUBLE PRECISION",),
    # a deleted agent's journal rows, moved here by the delete (accounts/archive.py): money history is never deleted
    (
        """CREATE TABLE IF NOT EXISTS accounts_journal_archive_v1 (
            id BIGINT NOT NULL,
            agent TEXT NOT NULL,
            call_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            amount BIGINT NOT NULL,
            at DOUBLE PRECISION NOT NULL,
            tool TEXT NOT NULL DEFAULT '',
            note TEXT NOT NULL DEFAULT '',
            deleted DOUBLE PRECISION NOT NULL)""",
        "CREATE INDEX IF NOT EXISTS accounts_journal_archive_agent ON accounts_journal_archive_v1 (agent, deleted)",
    ),
    # quotas count the journal's reserve rows not released (accounts/quotas.py), so a call writes no row of its own
    # for them: the calls table goes, and every agent's counters are counted afresh from the journal once (the
    # calls table held the same calls, but was pruned past a day)
    (
        "DROP TABLE IF EXISTS accounts_calls_v1",
        "UPDATE accounts_agents_v1 SET hour_used = 0, hour_from = NULL, day_used = 0, day_from = NULL",
    ),
)
