"""Helpers for the server tests: a webreach server process (HTTP or stdio) pointed at an in-thread fake web.

Every process is bounded: it must announce itself within START_TIMEOUT, and it is terminated (then killed if it
lingers) when the `with` block ends, whatever happened inside. Its stderr is collected so tests can read it.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from webreach.testing import FakeWeb
from webreach.testing.environment import process_env

START_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0

# the commands users run: `webreach serve` and `webreach mcp`
HTTP_COMMAND = [sys.executable, "-m", "webreach", "serve", "--host", "127.0.0.1", "--port", "0"]
STDIO_ARGS = ["-m", "webreach", "mcp"]


def server_env(web: FakeWeb, home: Path, **extra: str) -> dict[str, str]:
    """A clean environment for a server process: the fake web, in-memory state, no config file or proxy."""
    return process_env(home, WEBREACH_FAKE_WEB=web.url, WEBREACH_STATE__BACKEND="memory") | extra


@dataclass
class ServerProcess:
    """A running `run_http` process: its base URL and everything it wrote to stderr so far."""

    process: subprocess.Popen[str]
    url: str = ""
    stderr: list[str] = field(default_factory=list)

    def output(self) -> str:
        return "".join(self.stderr)


@contextlib.contextmanager
def http_server(web: FakeWeb, home: Path, *args: str, **extra_env: str) -> Iterator[ServerProcess]:
    """Start the HTTP server on a free loopback port (extra serve `args`); yields once it has announced its URL."""
    process = subprocess.Popen(
        [*HTTP_COMMAND, *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=server_env(web, home, **extra_env),
        cwd=home,
    )
    server = ServerProcess(process)
    announced = threading.Event()
    reader = threading.Thread(target=_drain, args=(server, announced), daemon=True)
    reader.start()
    try:
        if not announced.wait(START_TIMEOUT) or not server.url:
            raise RuntimeError(f"the server did not start: {server.output()}")
        yield server
    finally:
        _stop(process)
        reader.join(STOP_TIMEOUT)
        if process.stderr is not None:  # the pipe is ours to close once the reader is done with it
            process.stderr.close()
        # echoed so pytest captures the server's log and the secret-leak scan (conftest.py) reads it
        print(server.output(), file=sys.stderr)


def _drain(server: ServerProcess, announced: threading.Event) -> None:
    """Read stderr until EOF (a full pipe would block the server), noting the announced URL."""
    assert server.process.stderr is not None
    for line in server.process.stderr:
        server.stderr.append(line)
        match = re.search(r"serving (http://\S+)", line)
        if match and not server.url:
            server.url = match.group(1)
            announced.set()
    announced.set()  # EOF: the process ended (the caller sees no URL)


def _stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(STOP_TIMEOUT)
