"""A throwaway PostgreSQL cluster on loopback, for tests and benchmarks of the PostgreSQL ledger.

    with throwaway_cluster() as url:            # postgresql://webreach@127.0.0.1:<port>/postgres
        database = fresh_database(url)          # a new empty database on it

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
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

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


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run(command: list[str]) -> None:
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=START_TIMEOUT)


@contextlib.contextmanager
def throwaway_cluster(*, max_connections: int = 300) -> Iterator[str]:
    """A running cluster's URL (database `postgres`, user `webreach`, trust auth on loopback)."""
    found = binaries()
    if found is None:
        raise PostgresUnavailable("PostgreSQL binaries not found (apt-get install postgresql)")
    prefix = _as_user()
    base = Path(tempfile.mkdtemp(prefix="webreach-pg-"))
    if prefix:
        shutil.chown(base, user=prefix[2])
    data, port = base / "data", _free_port()
    ctl = [*prefix, str(found / "pg_ctl"), "-D", str(data), "-l", str(base / "log")]
    try:
        _run([*prefix, str(found / "initdb"), "-D", str(data), "-A", "trust", "-U", "webreach", "--no-sync"])
        options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections={max_connections}"
        _run([*ctl, "-o", options, "-w", "-t", str(int(START_TIMEOUT)), "start"])
        yield f"postgresql://webreach@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*ctl, "-m", "immediate", "stop"], check=False, capture_output=True, timeout=START_TIMEOUT)
        shutil.rmtree(base, ignore_errors=True)


def fresh_database(cluster_url: str) -> str:
    """A new empty database on the cluster; its URL."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(cluster_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return cluster_url.rsplit("/", 1)[0] + f"/{name}"
