"""A throwaway PostgreSQL cluster on loopback, for tests and benchmarks of the PostgreSQL ledger.

    with throwaway_cluster() as url:            # postgresql://webreach@127.0.0.1:<port>/postgres
        database = fresh_database(url)          # a new empty database on it

    with restartable_cluster() as cluster:      # the same, stoppable and startable again on its port (outages)
        cluster.stop(); cluster.start()

initdb + pg_ctl in a temporary directory, on a free 127.0.0.1 port, with durability off (fsync) since the data is
thrown away; stopped and removed on exit. The binaries are found in /usr/lib/postgresql/<version>/bin (Debian's
postgresql package) or on PATH. initdb refuses to run as root, so as root the cluster runs as the `postgres` user
(or `nobody`) through runuser, in a directory that user owns.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

from webreach.testing.balancer import free_port

START_TIMEOUT = 60.0


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL binaries here (install Debian's postgresql package), or no user initdb accepts."""


def binaries() -> Path | None:
    """The directory holding initdb and pg_ctl, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _as_user() -> list[str]:
    if os.geteuid() != 0:
        return []
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return ["runuser", "-u", name, "--"]
    raise PostgresUnavailable("running as root and neither a postgres nor a nobody user exists to run initdb")


def _run(command: list[str]) -> None:
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=START_TIMEOUT)


class Cluster:
    """A throwaway cluster that a test can stop and start again (same data, same port): a database outage."""

    def __init__(self, ctl: list[str], options: str, url: str) -> None:
        self._ctl, self._options, self.url = ctl, options, url

    def start(self) -> None:
        _run([*self._ctl, "-o", self._options, "-w", "-t", str(int(START_TIMEOUT)), "start"])

    def stop(self, mode: str = "fast") -> None:
        """Stop it: `fast` disconnects every client, as a restart of a real server does."""
        _run([*self._ctl, "-m", mode, "-w", "-t", str(int(START_TIMEOUT)), "stop"])


@contextlib.contextmanager
def restartable_cluster(*, max_connections: int = 300) -> Iterator[Cluster]:
    """A running cluster (database `postgres`, user `webreach`, trust auth on loopback), stopped and removed on
    exit."""
    found = binaries()
    if found is None:
        raise PostgresUnavailable("PostgreSQL binaries not found (apt-get install postgresql)")
    prefix = _as_user()
    base = Path(tempfile.mkdtemp(prefix="webreach-pg-"))
    if prefix:
        shutil.chown(base, user=prefix[2])
    data, port = base / "data", free_port()
    ctl = [*prefix, str(found / "pg_ctl"), "-D", str(data), "-l", str(base / "log")]
    options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections={max_connections}"
    cluster = Cluster(ctl, options, f"postgresql://webreach@127.0.0.1:{port}/postgres")
    try:
        _run([*prefix, str(found / "initdb"), "-D", str(data), "-A", "trust", "-U", "webreach", "--no-sync"])
        cluster.start()
        yield cluster
    finally:
        subprocess.run([*ctl, "-m", "immediate", "stop"], check=False, capture_output=True, timeout=START_TIMEOUT)
        shutil.rmtree(base, ignore_errors=True)


@contextlib.contextmanager
def throwaway_cluster(*, max_connections: int = 300) -> Iterator[str]:
    """A running cluster's URL (database `postgres`, user `webreach`, trust auth on loopback)."""
    with restartable_cluster(max_connections=max_connections) as cluster:
        yield cluster.url


def fresh_database(cluster_url: str) -> str:
    """A new empty database on the cluster; its URL."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(cluster_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return cluster_url.rsplit("/", 1)[0] + f"/{name}"
