"""A fleet for the replica tests: three `webreach serve` processes sharing a real Redis (state, cache) and a real
PostgreSQL (ledger), behind HAProxy running the deploy example's own configuration (deploy/haproxy.cfg), with the
fake web counting upstream requests. Everything is started on free loopback ports and stopped on exit."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from accounts.servers import operator
from frontends.serving import ServerProcess, http_server
from webreach.testing import FakeWeb
from webreach.testing.balancer import BalancerUnavailable, load_balancer
from webreach.testing.postgres import Cluster, PostgresUnavailable, fresh_database, restartable_cluster
from webreach.testing.redis import RedisServer, RedisUnavailable, restartable_redis

CONFIG = Path(__file__).resolve().parents[2] / "deploy" / "haproxy.cfg"
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
        with operator(self.database) as accounts:
            return accounts.ledger.agent(AGENT).balance, accounts.ledger.journal_sum(AGENT)


@contextlib.contextmanager
def fleet(
    web: FakeWeb, home: Path, *, credits: int = 10**9, per_hour: int | None = None, **env: str
) -> Iterator[Fleet]:
    """Redis, PostgreSQL, three replicas on them and HAProxy in front; `env` adds settings to every replica."""
    with contextlib.ExitStack() as stack:
        redis = _enter(stack, restartable_redis(), RedisUnavailable)
        cluster = _enter(stack, restartable_cluster(max_connections=120), PostgresUnavailable)
        assert isinstance(redis, RedisServer) and isinstance(cluster, Cluster)
        database = fresh_database(cluster.url)
        with operator(database) as accounts:
            _, key = accounts.add(AGENT, credits=credits)
            accounts.set_limits(AGENT, per_hour=per_hour)
        settings = {
            "WEBREACH_STATE__BACKEND": "redis",
            "WEBREACH_STATE__URL": redis.url,
            "WEBREACH_CACHE__BACKEND": "redis",
            "WEBREACH_ACCOUNTS__ENABLED": "true",
            "WEBREACH_ACCOUNTS__DATABASE": database,
            "WEBREACH_READ__ALLOW_CIDRS": '["127.0.0.1/32"]',  # the fake web's own pages
            # the names clients and health checks use for the balancer, as a deployment lists its public name
            "WEBREACH_SERVER__ALLOWED_HOSTS": '["127.0.0.1:*", "127.0.0.1"]',
            **env,
        }
        replicas = []
        for n in range(1, REPLICAS + 1):
            directory = home / f"replica{n}"
            directory.mkdir(parents=True, exist_ok=True)
            replicas.append(stack.enter_context(http_server(web, directory, **settings)))
        addresses = [urlsplit(replica.url).netloc for replica in replicas]
        url = _enter(stack, load_balancer(CONFIG, addresses), BalancerUnavailable)
        assert isinstance(url, str)
        yield Fleet(url, replicas, key, database, redis, cluster)


def _enter(
    stack: contextlib.ExitStack, factory: contextlib.AbstractContextManager[object], missing: type[Exception]
) -> object:
    try:
        return stack.enter_context(factory)
    except missing as absent:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"{absent} (scripts/setup-tests installs it)")


def replica_of(response: httpx.Response) -> str:
    """Which replica answered (the balancer's X-Webreach-Replica header)."""
    return response.headers["x-webreach-replica"]


def eventually(check: Callable[[], bool], *, within: float = LIMIT) -> None:
    """Wait until `check()` is true (polled every 0.1 s), failing after `within` seconds."""
    deadline = time.monotonic() + within
    while not check():
        assert time.monotonic() < deadline, "the fleet never got there"
        time.sleep(0.1)
