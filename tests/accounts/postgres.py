"""A throwaway PostgreSQL cluster for the ledger tests: initdb + pg_ctl on a free loopback port in a temp directory.

WEBREACH_TEST_POSTGRES_URL (a server the tests may create databases on) is used instead when set. Debian's
postgresql package puts its binaries in /usr/lib/postgresql/<version>/bin (scripts/setup-tests installs it). initdb
refuses to run as root, so as root the cluster runs as the `postgres` user (or `nobody`) via runuser, in a
directory that user owns. CI must run these tests: without binaries they fail there and skip elsewhere.
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

import pytest

# read at import: the suite's autouse fixture clears WEBREACH_* from the environment of every test
GIVEN_URL = os.environ.get("WEBREACH_TEST_POSTGRES_URL")
START_TIMEOUT = 60


def _binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _as_user() -> list[str]:
    """The command prefix that runs PostgreSQL's tools as a user initdb accepts."""
    if os.geteuid() != 0:
        return []
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return ["runuser", "-u", name, "--"]
    raise RuntimeError("running as root and neither a postgres nor a nobody user exists for initdb")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def cluster() -> Iterator[str]:
    """A running cluster's base URL (database `postgres`), stopped and removed afterwards."""
    if GIVEN_URL:
        yield GIVEN_URL
        return
    binaries = _binaries()
    if binaries is None:
        if os.environ.get("CI"):
            raise RuntimeError("PostgreSQL binaries are missing: scripts/setup-tests installs Debian's postgresql")
        pytest.skip("PostgreSQL is not installed (scripts/setup-tests installs it; or set WEBREACH_TEST_POSTGRES_URL)")
    prefix = _as_user()
    base = Path(tempfile.mkdtemp(prefix="webreach-pg-"))
    if prefix:
        shutil.chown(base, user=prefix[2])
    data, port = base / "data", _free_port()
    run = {"check": True, "stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE, "timeout": START_TIMEOUT}
    subprocess.run([*prefix, str(binaries / "initdb"), "-D", str(data), "-A", "trust", "-U", "webreach", "--no-sync"], **run)  # type: ignore[call-overload]
    options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300"
    ctl = [*prefix, str(binaries / "pg_ctl"), "-D", str(data), "-l", str(base / "log")]
    subprocess.run([*ctl, "-o", options, "-w", "-t", str(START_TIMEOUT), "start"], **run)  # type: ignore[call-overload]
    try:
        yield f"postgresql://webreach@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*ctl, "-m", "immediate", "stop"], check=False, capture_output=True, timeout=START_TIMEOUT)
        shutil.rmtree(base, ignore_errors=True)


def fresh_database(base_url: str) -> str:
    """A new empty database on the cluster, for one test (its URL)."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(base_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return base_url.rsplit("/", 1)[0] + f"/{name}"
