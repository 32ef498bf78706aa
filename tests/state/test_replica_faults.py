"""The fleet's money under faults (issue 37): 3 replicas behind HAProxy take 3,000 concurrent metered calls while
one replica is SIGKILLed mid-burst, Redis is restarted and PostgreSQL is restarted. Each call carries its own
Idempotency-Key and the client retries what it is told is retryable, as a well-behaved agent does. Afterwards the
ledger is exact: nothing served uncharged, nothing charged twice, the quota never exceeded, and the fleet serves
again without restarting webreach."""

from __future__ import annotations

import asyncio
import os
import signal
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from webreach.accounts.database import open_database
from webreach.testing import FakeWeb
from webreach.testing.environment import FAST_OUTAGES as FAST

from .fleet import Fleet, fleet

pytestmark = [pytest.mark.network, pytest.mark.slow, pytest.mark.redis, pytest.mark.postgres]

CALLS = 3000
IN_FLIGHT = 150
QUOTA = 2400  # calls an hour: fewer than the calls made, so the quota's edge is part of the run
CREDITS = 1_000_000
PER_KEY = 180.0  # seconds one call may take, retries included, on a loaded 2-core machine
QUERIES = [{"query": f"fleet fault {n}", "engine": "mojeek", "limit": 2} for n in range(5)]


@pytest.fixture
def web() -> Iterator[FakeWeb]:
    with FakeWeb.in_thread() as server:
        yield server


@dataclass
class Outcomes:
    """What the client saw: each key's final answer, every answer on the way, the charges and quota counts."""

    served: dict[str, int] = field(default_factory=dict)  # key -> credits its first charged answer said
    refused: Counter[str] = field(default_factory=Counter)  # final refusals by code
    seen: Counter[str] = field(default_factory=Counter)  # every answer: "<status> <code>"
    untyped: list[str] = field(default_factory=list)  # webreach answers without a typed, retryable code
    calls_left: list[int] = field(default_factory=list)

    @property
    def done(self) -> int:
        return len(self.served) + sum(self.refused.values())


async def _call(http: httpx.AsyncClient, key: str, outcomes: Outcomes) -> None:
    """One metered call to the end: retried with the same key while the answer says it may be."""
    deadline = asyncio.get_running_loop().time() + PER_KEY
    arguments = QUERIES[int(key[1:]) % len(QUERIES)]
    while asyncio.get_running_loop().time() < deadline:
        try:
            answer = await http.post("/v1/search", json=arguments, headers={"Idempotency-Key": key})
        except httpx.TransportError as failed:  # the replica died with the call, or the balancer dropped it
            outcomes.seen[f"transport {type(failed).__name__}"] += 1
            await asyncio.sleep(0.2)
            continue
        if "x-webreach-replica" not in answer.headers:  # the balancer's own refusal: no replica ready
            outcomes.seen[f"{answer.status_code} balancer"] += 1
            await asyncio.sleep(0.2)
            continue
        body = answer.json()
        outcomes.seen[f"{answer.status_code} {body.get('code', 'ok')}"] += 1
        if answer.status_code == 200:
            cost = body["cost"]  # a replay (the first answer was lost on the way) says what the call was charged
            outcomes.served[key] = cost["original_charged"] if cost.get("replayed") else cost["charged"]
            if cost["calls_left"] is not None:
                outcomes.calls_left.append(cost["calls_left"])
            return
        if body["code"] in ("agent_quota_exhausted", "insufficient_credits"):
            outcomes.refused[body["code"]] += 1
            return
        if not body.get("retryable") and answer.status_code not in (409, 503):
            outcomes.untyped.append(answer.text)
            return
        await asyncio.sleep(min(float(answer.headers.get("retry-after") or 0.2), 2.0))
    outcomes.refused["gave up"] += 1


async def _faults(replicas: Fleet, outcomes: Outcomes) -> list[str]:
    """SIGKILL a replica, restart Redis, restart PostgreSQL, each at its point of the burst."""
    done: list[str] = []

    async def at(share: float) -> None:
        while outcomes.done < share * CALLS:
            await asyncio.sleep(0.05)

    await at(0.15)
    os.kill(replicas.replicas[2].process.pid, signal.SIGKILL)
    done.append(f"replica3 SIGKILLed after {outcomes.done} calls")
    await at(0.35)
    await asyncio.to_thread(replicas.redis.stop)
    await asyncio.sleep(2)
    await asyncio.to_thread(replicas.redis.start)
    done.append(f"Redis restarted after {outcomes.done} calls")
    await at(0.55)
    await asyncio.to_thread(replicas.cluster.stop)
    await asyncio.sleep(2)
    await asyncio.to_thread(replicas.cluster.start)
    done.append(f"PostgreSQL restarted after {outcomes.done} calls")
    return done


async def _burst(replicas: Fleet) -> tuple[Outcomes, list[str]]:
    outcomes = Outcomes()
    headers = {"Authorization": f"Bearer {replicas.key}"}
    limits = httpx.Limits(max_connections=IN_FLIGHT, max_keepalive_connections=0)
    timeout = httpx.Timeout(30.0, pool=None)
    async with httpx.AsyncClient(
        base_url=replicas.url, headers=headers, limits=limits, timeout=timeout, trust_env=False
    ) as http:
        gate = asyncio.Semaphore(IN_FLIGHT)

        async def one(n: int) -> None:
            async with gate:
                await _call(http, f"k{n}", outcomes)

        faults = asyncio.create_task(_faults(replicas, outcomes))
        await asyncio.gather(*(one(n) for n in range(CALLS)))
        return outcomes, await asyncio.wait_for(faults, 5)


def _ledger_counts(database: str) -> dict[str, object]:
    """What the ledger holds after the burst, said beside a short served count: the journal's rows by kind, the holds
    still open, the calls the quota counts (reserve rows not released) and the idempotency keys by state."""
    ledger = open_database(database)
    try:
        with ledger.transaction(write=False) as tx:
            kinds = dict(tx.rows("SELECT kind, count(*) FROM accounts_journal_v1 GROUP BY kind"))
            keys = dict(tx.rows("SELECT state, count(*) FROM accounts_idempotency_v1 GROUP BY state"))
            held = tx.one("SELECT count(*) FROM accounts_open_v1")
            counted = tx.one(
                "SELECT count(*) FROM accounts_journal_v1 r WHERE r.kind = 'reserve' AND NOT EXISTS (SELECT 1 FROM"
                " accounts_journal_v1 s WHERE s.agent = r.agent AND s.call_id = r.call_id AND s.kind = 'release')"
            )
    finally:
        ledger.close()
    return {"journal": kinds, "open": held and held[0], "quota_counted": counted and counted[0], "keys": keys}


def test_the_ledger_stays_exact_through_a_killed_replica_and_restarted_backends(web: FakeWeb, tmp_path: Path) -> None:
    with fleet(web, tmp_path, credits=CREDITS, per_hour=QUOTA, **FAST) as replicas:
        outcomes, faults = asyncio.run(_burst(replicas))
        balance, journal = replicas.balance()
        counts = _ledger_counts(replicas.database)
        with replicas.client() as http:  # the fleet serves again, no restart (the quota is spent: a typed 429)
            after = http.post("/v1/search", json=QUERIES[0])
    print("faults:", faults, "answers:", dict(outcomes.seen), "refused:", dict(outcomes.refused))
    assert len(faults) == 3, faults
    price = max(outcomes.served.values())
    assert price > 0 and set(outcomes.served.values()) == {price}, "each served key's answer says what it cost"
    assert not outcomes.untyped, outcomes.untyped[:3]
    assert outcomes.refused.keys() <= {"agent_quota_exhausted"}, outcomes.refused
    charges = (CREDITS - balance) / price  # said beside the served count: a key charged twice shows here
    if len(outcomes.served) != QUOTA:
        pytest.fail(f"served {len(outcomes.served)} of the quota {QUOTA}, charged {charges}; ledger: {counts}")
    assert min(outcomes.calls_left) == 0
    assert balance == journal == CREDITS - price * QUOTA, "charged once per served call, nothing uncharged"
    assert after.status_code == 429 and after.json()["code"] == "agent_quota_exhausted", after.text
