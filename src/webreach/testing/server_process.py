"""A `webreach serve` process for tests and benchmarks: started on a free loopback port, bounded, stopped.

    with serve_process(env, home, "--workers", "2") as server:   # env: webreach.testing.environment.process_env
        httpx.get(server.url + "/healthz")

It must announce its URL within START_TIMEOUT; it is terminated (then killed if it lingers) when the `with` block
ends, whatever happened inside. Its stderr is read as it comes (a full pipe would block the server) and kept.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

START_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0
# the command users run
HTTP_COMMAND = [sys.executable, "-m", "webreach", "serve", "--host", "127.0.0.1", "--port", "0"]


@dataclass
class ServerProcess:
    """A running server: its base URL and everything it wrote to stderr so far."""

    process: subprocess.Popen[str]
    url: str = ""
    stderr: list[str] = field(default_factory=list)

    def output(self) -> str:
        return "".join(self.stderr)


@contextlib.contextmanager
def serve_process(env: Mapping[str, str], home: Path, *args: str) -> Iterator[ServerProcess]:
    """`webreach serve` (extra `args`) with `env` as its whole environment; yields once it announced its URL."""
    process = subprocess.Popen(
        [*HTTP_COMMAND, *args], env=dict(env), cwd=home, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    server = ServerProcess(process)
    announced = threading.Event()
    reader = threading.Thread(target=_drain, args=(server, announced), daemon=True)
    reader.start()
    try:
        if not announced.wait(START_TIMEOUT) or not server.url:
            raise RuntimeError(f"the server did not start: {server.output()}")
        yield server
    finally:
        stop(process)
        reader.join(STOP_TIMEOUT)
        if process.stderr is not None:  # the pipe is ours to close once the reader is done with it
            process.stderr.close()


def _drain(server: ServerProcess, announced: threading.Event) -> None:
    """Read stderr until EOF, noting the announced URL."""
    assert server.process.stderr is not None
    for line in server.process.stderr:
        server.stderr.append(line)
        match = re.search(r"serving (http://\S+)", line)
        if match and not server.url:
            server.url = match.group(1)
            announced.set()
    announced.set()  # EOF: the process ended (the caller sees no URL)


def stop(process: subprocess.Popen[str] | subprocess.Popen[bytes]) -> None:
    """Terminate `process` if it runs, then kill it if it lingers past STOP_TIMEOUT."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(STOP_TIMEOUT)
