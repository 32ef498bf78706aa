"""A fleet on loopback, for the replica tests and bench/replicas.py: three `webreach serve` processes sharing a
real Redis (state, cache) and a real PostgreSQL (ledger), behind HAProxy running the deploy example's own file.

    with fleet(web.url, home) as running:       # web: a FakeWeb counting upstream requests
        with running.client() as http:          # calls the balancer as the fleet's metered agent
            http.post("/v1/search", json={...})

Every process is a child this module started: replicas are stopped (SIGTERM, then SIGKILL if they linger), the
balancer, Redis and the PostgreSQL cluster too, whatever happened inside. A replica keeps its stderr (`output()`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from webreach.accounts.service import Accounts
from webreach.clock import SystemClock
from webreach.config import AccountsSettings
from webreach.testing.balancer import load_balancer
from webreach.testing.environment import process_env
from webreach.testing.postgres import Cluster, fresh_database, restartable_cluster
from webreach.testing.redis import RedisServer, restartable_redis
from webreach.testing.server_process import ServerProcess, serve_process

CONFIG = Path(__file__).resolve().parents[3] / "deploy" / "haproxy.cfg"
REPLICAS = 3
AGENT = "fleet"
LIMIT = 60.0


@dataclass
class Fleet:
    """The balancer's URL, the replicas behind it, the agent's key and the backends (stoppable: outages)."""

    url: str
    replicas: list[ServerProcess]
    key: str
    database: str
    redis: RedisServer
    cluster: Cluster

    def client(self, session: str | None = None) -> httpx.Client:
        """An HTTP client of the balancer that calls as the fleet's agent (in `session`, if given)."""
        headers = {"Authorization": f"Bearer {self.key}"}
        if session is not None:
            headers["X-Webreach-Session"] = session
        return httpx.Client(base_url=self.url, headers=headers, timeout=LIMIT, trust_env=False)

    def balance(self) -> tuple[int, int]:
        """The agent's balance and its journal's sum (equal when the ledger is exact)."""
        with _operator(self.database) as accounts:
            return accounts.ledger.agent(AGENT).balance, accounts.ledger.journal_sum(AGENT)


@contextlib.contextmanager
def fleet(
    fake_web: str,
    home: Path,
    *,
    credits: int = 10**9,
    per_hour: int | None = None,
    env: Mapping[str, str] | None = None,
) -> Iterator[Fleet]:
    """Redis, PostgreSQL, REPLICAS replicas on them and HAProxy in front; `env` adds settings to every replica.

    Raises RedisUnavailable, PostgresUnavailable or BalancerUnavailable when a binary is missing."""
    with contextlib.ExitStack() as stack:
        redis = stack.enter_context(restartable_redis())
        cluster = stack.enter_context(restartable_cluster(max_connections=120))
        database = fresh_database(cluster.url)
        with _operator(database) as accounts:
            _, key = accounts.add(AGENT, credits=credits)
            accounts.set_limits(AGENT, per_hour=per_hour)
        replicas = []
        for n in range(1, REPLICAS + 1):
            directory = home / f"replica{n}"
            directory.mkdir(parents=True, exist_ok=True)
            settings = replica_env(fake_web, directory, redis.url, database) | dict(env or {})
            replicas.append(stack.enter_context(serve_process(settings, directory)))
        addresses = [urlsplit(running.url).netloc for running in replicas]
        url = stack.enter_context(load_balancer(CONFIG, addresses))
        yield Fleet(url, replicas, key, database, redis, cluster)


def replica_env(fake_web: str, home: Path, redis: str, database: str) -> dict[str, str]:
    """A replica's whole environment: the fake web, Redis state and cache, the PostgreSQL ledger, no config file."""
    return process_env(
        home,
        WEBREACH_FAKE_WEB=fake_web,
        WEBREACH_STATE__BACKEND="redis",
        WEBREACH_STATE__URL=redis,
        WEBREACH_CACHE__BACKEND="redis",
        WEBREACH_ACCOUNTS__ENABLED="true",
        WEBREACH_ACCOUNTS__DATABASE=database,
        WEBREACH_READ__ALLOW_CIDRS='["127.0.0.1/32"]',  # the fake web's own pages
        # the names clients and health checks use for the balancer, as a deployment lists its public name
        WEBREACH_SERVER__ALLOWED_HOSTS='["127.0.0.1:*", "127.0.0.1"]',
    )


@contextlib.contextmanager
def _operator(database: str) -> Iterator[Accounts]:
    """The operator's view of the ledger (what `webreach agents` uses)."""
    accounts = Accounts(AccountsSettings(enabled=True, database=database), SystemClock())
    try:
        yield accounts
    finally:
        accounts.close()
