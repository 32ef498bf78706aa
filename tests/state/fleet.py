"""The replica tests' fleet (webreach.testing.fleet: three `webreach serve` on Redis and PostgreSQL behind HAProxy
running deploy/haproxy.cfg), skipped outside CI where a backend's binary is missing, its replicas' logs echoed
for the secret-leak scan (conftest.py)."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from webreach.testing import FakeWeb
from webreach.testing.balancer import BalancerUnavailable
from webreach.testing.fleet import LIMIT, REPLICAS, Fleet
from webreach.testing.fleet import fleet as started
from webreach.testing.postgres import PostgresUnavailable
from webreach.testing.redis import RedisUnavailable

__all__ = ["REPLICAS", "Fleet", "eventually", "fleet", "replica_of"]


@contextlib.contextmanager
def fleet(
    web: FakeWeb, home: Path, *, credits: int = 10**9, per_hour: int | None = None, **env: str
) -> Iterator[Fleet]:
    """The fleet on the fake web, `env` added to every replica's settings."""
    try:
        with started(web.url, home, credits=credits, per_hour=per_hour, env=env) as running:
            try:
                yield running
            finally:
                for replica in running.replicas:
                    print(replica.output(), file=sys.stderr)
    except (RedisUnavailable, PostgresUnavailable, BalancerUnavailable) as absent:
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
