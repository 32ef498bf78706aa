"""A real load balancer on loopback for the replica tests and benchmarks: Debian's HAProxy running deploy/haproxy.cfg.

    with load_balancer(CONFIG, ["127.0.0.1:8001", "127.0.0.1:8002", "127.0.0.1:8003"]) as url:
        ...                                      # http://127.0.0.1:<port>, round robin over the replicas

The configuration is the deploy example's own file; only its environment differs (the listening address, the
replicas' addresses, the health checks' Host). HAProxy runs in the foreground as a child process (-db), so
stopping it is a signal to a PID this module owns; it is stopped on exit whatever happened inside.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from webreach.testing.server_process import stop

START_TIMEOUT = 20.0


class BalancerUnavailable(RuntimeError):
    """No haproxy binary here (install Debian's haproxy package)."""


def binary() -> str | None:
    """The haproxy executable, or None."""
    return shutil.which("haproxy") or next((p for p in ("/usr/sbin/haproxy",) if Path(p).exists()), None)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def wait_listening(process: subprocess.Popen[bytes], port: int, name: str) -> None:
    """Return once `process` listens on loopback `port`; RuntimeError naming `name` if it exits or takes longer
    than START_TIMEOUT."""
    deadline = time.monotonic() + START_TIMEOUT
    while not _listening(port):
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{name} did not start (exit {process.poll()})")
        time.sleep(0.05)


@contextlib.contextmanager
def load_balancer(config: Path, replicas: Sequence[str], *, host: str = "127.0.0.1") -> Iterator[str]:
    """HAProxy on a free 127.0.0.1 port over `replicas` ("host:port" each, as many as the file names); its URL."""
    found = binary()
    if found is None:
        raise BalancerUnavailable("haproxy not found (apt-get install haproxy)")
    port = free_port()
    env = {"PATH": os.environ.get("PATH", ""), "WEBREACH_LB_BIND": f"127.0.0.1:{port}", "WEBREACH_LB_HOST": host}
    env |= {f"WEBREACH_REPLICA{n}": address for n, address in enumerate(replicas, start=1)}
    check = subprocess.run([found, "-c", "-q", "-f", str(config)], env=env, capture_output=True, text=True, check=False)
    if check.returncode != 0:
        raise RuntimeError(f"haproxy refused {config}: {check.stderr.strip()}")
    process = subprocess.Popen(
        [found, "-db", "-q", "-f", str(config)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_listening(process, port, "haproxy")
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process)
