"""A throwaway redis-server on loopback, for tests and benchmarks of the Redis state backend.

    with throwaway_redis() as url:              # redis://127.0.0.1:<port>/0
        ...

    with restartable_redis() as server:         # the same, stoppable and startable again on its port (outages)
        server.stop(); server.start()

redis-server (Debian's redis-server package, or on PATH) in a temporary directory of its own, on a free
127.0.0.1 port, with persistence off (no RDB snapshots, no AOF: the data is thrown away); stopped and removed on
exit. Started with --daemonize no as a child process, so stopping it is a signal to a PID this module owns.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from webreach.testing.balancer import free_port

START_TIMEOUT = 20.0


class RedisUnavailable(RuntimeError):
    """No redis-server binary here (install Debian's redis-server package)."""


def binary() -> str | None:
    """The redis-server executable, or None."""
    return shutil.which("redis-server") or next(
        (str(p) for p in (Path("/usr/bin/redis-server"), Path("/usr/sbin/redis-server")) if p.exists()), None
    )


def _answers(port: int) -> bool:
    """Whether a PING on the port gets +PONG."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """A throwaway redis-server that a test can stop and start again on the same port: a Redis outage."""

    def __init__(self, executable: str, directory: Path, port: int) -> None:
        self._command = [
            executable,
            "--port", str(port),
            "--bind", "127.0.0.1",
            "--dir", str(directory),
            "--save", "",
            "--appendonly", "no",
            "--daemonize", "no",
            "--logfile", str(directory / "redis.log"),
        ]  # fmt: skip
        self.port = port
        self.url = f"redis://127.0.0.1:{port}/0"
        self._log = directory / "redis.log"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start it and wait until it answers PING."""
        process = subprocess.Popen(self._command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._process = process
        deadline = time.monotonic() + START_TIMEOUT
        while not _answers(self.port):
            if process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                log = self._log.read_text(errors="replace")[-2000:] if self._log.exists() else ""
                raise RedisUnavailable(f"redis-server did not start on port {self.port}: {log}")
            time.sleep(0.02)

    def pause(self) -> None:
        """Freeze it (SIGSTOP): connections stay open and nothing answers, as when a server hangs."""
        if self._process is not None:
            self._process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """Let a paused server answer again (SIGCONT), its data intact."""
        if self._process is not None:
            self._process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        """Stop it (every client is disconnected, as when a real server restarts); the data is gone."""
        process, self._process = self._process, None
        if process is None:
            return
        process.send_signal(signal.SIGCONT)  # a paused server cannot act on SIGTERM
        process.terminate()
        try:
            process.wait(timeout=START_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=START_TIMEOUT)


@contextlib.contextmanager
def restartable_redis() -> Iterator[RedisServer]:
    """A running redis-server on a free loopback port, stopped and its directory removed on exit."""
    executable = binary()
    if executable is None:
        raise RedisUnavailable("redis-server not found (apt-get install redis-server)")
    directory = Path(tempfile.mkdtemp(prefix="webreach-redis-"))
    server = RedisServer(executable, directory, free_port())
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)


@contextlib.contextmanager
def throwaway_redis() -> Iterator[str]:
    """A running redis-server's URL (database 0, no password, loopback only)."""
    with restartable_redis() as server:
        yield server.url
