"""Helpers for the server tests: a webreach server process (HTTP or stdio) pointed at an in-thread fake web.

Every process is bounded: it must announce itself within START_TIMEOUT, and it is terminated (then killed if it
lingers) when the `with` block ends, whatever happened inside. Its stderr is collected so tests can read it.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

from webreach.testing import FakeWeb
from webreach.testing.environment import process_env
from webreach.testing.server_process import HTTP_COMMAND, START_TIMEOUT, STOP_TIMEOUT, ServerProcess, serve_process

__all__ = ["HTTP_COMMAND", "START_TIMEOUT", "STDIO_ARGS", "STOP_TIMEOUT", "ServerProcess", "http_server", "server_env"]

# the commands users run: `webreach serve` (HTTP_COMMAND) and `webreach mcp`
STDIO_ARGS = ["-m", "webreach", "mcp"]


def server_env(web: FakeWeb, home: Path, **extra: str) -> dict[str, str]:
    """A clean environment for a server process: the fake web, in-memory state, no config file or proxy."""
    return process_env(home, WEBREACH_FAKE_WEB=web.url, WEBREACH_STATE__BACKEND="memory") | extra


@contextlib.contextmanager
def http_server(web: FakeWeb, home: Path, *args: str, **extra_env: str) -> Iterator[ServerProcess]:
    """Start the HTTP server on a free loopback port (extra serve `args`); yields once it has announced its URL."""
    server: ServerProcess | None = None
    try:
        with serve_process(server_env(web, home, **extra_env), home, *args) as server:
            yield server
    finally:
        if server is not None:  # echoed so pytest captures the log and the secret-leak scan (conftest.py) reads it
            print(server.output(), file=sys.stderr)
