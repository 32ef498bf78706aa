"""The server processes bench/serve.py measures: webreach's HTTP server (with the bench-only bare route) and the
MCP SDK's minimal server (bench/_mcp_anchor_http.py), each on a free loopback port, stopped when the block ends."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from webreach.testing.environment import process_env
from webreach.testing.server_process import stop

SERVER_ENTRY = (
    "from webreach.config import Settings; from webreach.frontends.http import run_http; "
    "run_http(Settings(), host='127.0.0.1', port=0, bare_route=True)"
)


@contextmanager
def server_process(
    fake_web: str, state: str, home: Path, *, http_parser: str = "auto", event_loop: str = "asyncio"
) -> Iterator[tuple[str, int]]:
    """Start the HTTP server with the bare route; yield its base URL and process id once it is serving."""
    env = process_env(
        home, WEBREACH_FAKE_WEB=fake_web, WEBREACH_STATE__BACKEND=state,
        WEBREACH_SERVER__HTTP_PARSER=http_parser, WEBREACH_SERVER__EVENT_LOOP=event_loop,
    )  # fmt: skip
    with serving([sys.executable, "-c", SERVER_ENTRY], env) as started:
        yield started


@contextmanager
def anchor_process(home: Path, *, http_parser: str = "auto", event_loop: str = "asyncio") -> Iterator[tuple[str, int]]:
    """Start the anchor (bench/_mcp_anchor_http.py) on the same uvicorn settings; yield its URL and process id."""
    command = [sys.executable, "-m", "bench._mcp_anchor_http", "--http", http_parser, "--loop", event_loop]
    # run from the repository's root, so `-m bench...` finds this package
    with serving(command, process_env(home), cwd=Path(__file__).parent.parent) as started:
        yield started


@contextmanager
def serving(command: list[str], env: dict[str, str] | None, cwd: Path | None = None) -> Iterator[tuple[str, int]]:
    """Run `command` until the block ends; yield the URL it announces on stderr ("serving http://...", after any
    log lines before it) and its process id."""
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd)
    try:
        assert process.stderr is not None
        seen = ""
        for line in iter(process.stderr.readline, ""):
            seen += line
            found = re.search(r"serving (http://\S+)", line)
            if found is not None:
                yield found.group(1), process.pid
                return
        raise RuntimeError(f"the server did not start: {seen}")
    finally:
        stop(process)
