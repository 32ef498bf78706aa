"""Benchmark: the ledger's own cost per metered call, in process, no HTTP: CPU time per reserve-and-settle pair.

Run: python -m bench.ledger_calls [--callers 8] [--pairs 150] [--rounds 5]

--callers coroutines each make --pairs calls through Accounts.queued (the group commit the metering policy uses):
reserve a price of 1, then commit it, as a cached web_search does. Reported per database (SQLite in a temporary
file, PostgreSQL on a throwaway loopback cluster): this process's CPU time (every thread: the event loop and the
ledger's worker) per pair, the median and range over rounds, and the SQL statements each pair sent. The agent has
an hourly quota, so the quota count is part of every call, as in production. Compare two trees by running this
with each on PYTHONPATH, in turns (CPU time stays comparable on a busy machine; wall time does not).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from webreach.accounts.database import Transaction
from webreach.accounts.service import Accounts
from webreach.clock import SystemClock
from webreach.config import AccountsSettings
from webreach.testing.postgres import fresh_database, throwaway_cluster


async def _round(accounts: Accounts, callers: int, pairs: int) -> float:
    """CPU seconds of this process for callers x pairs reserve-and-settle pairs."""

    async def caller() -> None:
        for _ in range(pairs):
            held = await accounts.queued("bench", accounts.reserving("bench", "web_search", lambda _: 1))
            await accounts.queued("bench", accounts.settling(held, charged=1))

    started = time.process_time()
    await asyncio.gather(*(caller() for _ in range(callers)))
    return time.process_time() - started


def _statements(accounts: Accounts) -> int:
    """SQL statements one reserve-and-settle pair sends (counted on a transaction of its own)."""
    sent: list[str] = []

    class Counting(Transaction):
        def _execute(self, sql: str, params: Any) -> Any:
            sent.append(sql)
            return super()._execute(sql, params)

    with accounts.ledger.database.transaction() as tx:
        counting = Counting(tx.cursor, tx.postgres)
        held = accounts.reserving("bench", "web_search", lambda _: 1)(counting)
        accounts.settling(held, charged=1)(counting)
    return len(sent)


@contextlib.contextmanager
def _databases(postgres: bool) -> Iterator[dict[str, str]]:
    with tempfile.TemporaryDirectory() as directory:
        urls = {"sqlite": str(Path(directory) / "ledger.sqlite3")}
        if not postgres:
            yield urls
            return
        with throwaway_cluster() as cluster:
            yield urls | {"postgresql": fresh_database(cluster)}


async def measure(urls: dict[str, str], callers: int, pairs: int, rounds: int) -> dict[str, dict[str, Any]]:
    opened = {}
    for mode, url in urls.items():
        accounts = Accounts(AccountsSettings(enabled=True, database=url), SystemClock())
        accounts.add("bench", credits=10**12, per_hour=1_000_000)
        opened[mode] = accounts
    samples: dict[str, list[float]] = {mode: [] for mode in opened}
    try:
        for _ in range(rounds):
            for mode, accounts in opened.items():
                seconds = await _round(accounts, callers, pairs)
                samples[mode].append(seconds / (callers * pairs) * 1e6)
        return {
            mode: {
                "us_per_pair": round(statistics.median(values)),
                "range": [round(min(values)), round(max(values))],
                "statements": _statements(opened[mode]),
            }
            for mode, values in samples.items()
        }
    finally:
        for accounts in opened.values():
            accounts.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--callers", type=int, default=8)
    parser.add_argument("--pairs", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()
    with _databases(not args.no_postgres) as urls:
        found = asyncio.run(measure(urls, args.callers, args.pairs, args.rounds))
    print("| ledger | CPU us per reserve+settle (median) | range | statements per pair |")
    print("|---|---|---|---|")
    for mode, row in found.items():
        print(f"| {mode} | {row['us_per_pair']} | {row['range'][0]}-{row['range'][1]} | {row['statements']} |")


if __name__ == "__main__":
    main()
