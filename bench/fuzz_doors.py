"""The doors under fuzzed arguments, for bench/fuzz.py: REST, MCP over streamable HTTP, MCP over stdio, the CLI.

Real servers and processes with the fake web behind them (in its own thread): one `webreach serve` process for
REST and MCP over HTTP, one long-lived `webreach mcp` process fed every stdio case, and the CLI through click's
CliRunner in-process for the bulk plus a sample as real `webreach` processes (a process per case costs ~1 s of
start-up, so 2,000 of them would measure Python's start-up, not the door). Engine rate limits are raised so the
cases exercise argument handling, not token buckets.

A case is untyped when the answer is a 500 (or a body without the error shape), a JSON-RPC -32603, a traceback on
the process's stderr, an exception escaping the CLI, or no answer within CASE_BUDGET (the request deadline plus
a margin). A typed error answer (any other 4xx/5xx code from the error tree, a JSON-RPC error result or -32602 /
-32700) is typed; 502/503/504 here come from engines suspended by their own breakers mid-run and are typed too.
"""

from __future__ import annotations

import errno
import json
import os
import queue
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from click.testing import CliRunner

from bench.fuzz_common import LIMIT, Row, own_peak_rss_mb
from webreach import engines
from webreach.frontends.cli import cli
from webreach.testing import FakeWeb
from webreach.testing.mutations import argument_value, request_body

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from frontends.serving import http_server, server_env

CASE_BUDGET = 40.0
TOOLS = {
    "web_search": ("query", "engine", "limit", "page", "site", "freshness", "lang"),
    "web_search_multi": ("query", "engines", "limit"),
    "web_fetch": ("url", "ref", "start", "max_chars", "format"),
    "image_search": ("query", "engine", "engines", "limit", "safesearch", "size", "type", "colour"),
    "crop_images": ("crops", "units", "messages"),
    "reverse_image_search": ("image", "limit", "backend", "messages"),
}
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0", "id": 0, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}},
}  # fmt: skip


def fast_engines() -> dict[str, str]:
    return {f"WEBREACH_ENGINES__{name.upper()}__RATE_PER_MINUTE": "1000000" for name in engines.names()}


def rss_mb(pid: int) -> float:
    """The process's peak resident set (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def classify_http(response: httpx.Response) -> tuple[str, str]:
    try:
        body = response.json()
    except ValueError:
        return "untyped", f"HTTP {response.status_code} without a JSON body"
    if response.status_code == 200:
        return "ok", ""
    code = body.get("code") if isinstance(body, dict) else None
    if response.status_code == 500 or code in (None, "error"):
        return "untyped", f"HTTP {response.status_code} code {code}"
    return "typed", ""


def rest_row(server_url: str, count: int, rng: random.Random, pid: int, budget: float) -> Row:
    row = Row("door rest")
    with httpx.Client(timeout=budget, trust_env=False) as client:
        for _ in range(count):
            tool = rng.choice(list(TOOLS))
            headers: dict[str, str | bytes] = {"content-type": "application/json"}
            if rng.random() < 0.15:  # as bytes: UTF-8, Latin-1, a C1 control, too long
                headers["x-webreach-session"] = rng.choice(("研究".encode(), b"a" * 250, b"\x85", b"ok", b"\xff\xfe"))
            body = request_body(rng, TOOLS[tool])
            started = time.perf_counter()
            try:
                response = client.post(f"{server_url}/v1/{tool.removeprefix('web_')}", content=body, headers=headers)
                outcome, kind = classify_http(response)
            except httpx.TimeoutException:
                outcome, kind = "untyped", "hang"
            row.record(time.perf_counter() - started, outcome, kind)
    row.peak_rss_mb = rss_mb(pid)
    return row


def rpc_answer(response: httpx.Response) -> dict[str, Any] | None:
    """The JSON-RPC answer in a JSON or server-sent-events body."""
    text = response.text
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        datas = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        text = datas[-1] if datas else ""
    try:
        answer = json.loads(text)
    except ValueError:
        return None
    return answer if isinstance(answer, dict) else None


def classify_rpc(answer: dict[str, Any] | None) -> tuple[str, str]:
    if answer is None:
        return "untyped", "no JSON-RPC answer"
    error = answer.get("error")
    if isinstance(error, dict):
        return ("untyped", "JSON-RPC -32603") if error.get("code") == -32603 else ("typed", "")
    result = answer.get("result")
    if isinstance(result, dict) and result.get("isError"):
        text = (result.get("content") or [{}])[0].get("text", "")
        return ("untyped", "error result with code error") if '"code": "error"' in text else ("typed", "")
    return "ok", ""


def call_line(rng: random.Random, number: int) -> bytes:
    """One tools/call request as bytes: mutated arguments, sometimes a broken line."""
    tool = rng.choice(list(TOOLS))
    arguments = request_body(rng, TOOLS[tool])
    return (
        b'{"jsonrpc": "2.0", "id": ' + str(number).encode() + b', "method": "tools/call", "params": {"name": "'
        + tool.encode() + b'", "arguments": ' + arguments + b"}}"
    )  # fmt: skip


def mcp_http_row(server_url: str, count: int, rng: random.Random, pid: int, budget: float) -> Row:
    row = Row("door mcp_http")
    with httpx.Client(timeout=budget, trust_env=False) as client:
        opened = client.post(f"{server_url}/mcp", json=INITIALIZE, headers=MCP_HEADERS)
        session = {"mcp-session-id": opened.headers.get("mcp-session-id", ""), "mcp-protocol-version": "2025-06-18"}
        headers = {**MCP_HEADERS, **{k: v for k, v in session.items() if v}}
        client.post(
            f"{server_url}/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
        )
        for number in range(1, count + 1):
            started = time.perf_counter()
            try:
                response = client.post(f"{server_url}/mcp", content=call_line(rng, number), headers=headers)
                if response.status_code >= 500:
                    outcome, kind = "untyped", f"HTTP {response.status_code}"
                elif response.status_code >= 400:
                    outcome, kind = "typed", ""  # refused before JSON-RPC (413, 400 on an unparseable body)
                else:
                    outcome, kind = classify_rpc(rpc_answer(response))
            except httpx.TimeoutException:
                outcome, kind = "untyped", "hang"
            row.record(time.perf_counter() - started, outcome, kind)
    row.peak_rss_mb = rss_mb(pid)
    return row


class StdioServer:
    """One `webreach mcp` process: lines in, answers out through a reader thread, stderr collected."""

    def __init__(self, env: dict[str, str], home: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "webreach", "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=env, cwd=home,
        )  # fmt: skip
        self.answers: queue.Queue[dict[str, Any]] = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._errors, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                self.answers.put(json.loads(line))
            except ValueError:
                continue

    def _errors(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line.decode("utf-8", "replace"))

    def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def answer(self, number: int, budget: float) -> dict[str, Any] | None:
        """The answer with id `number` (answers to earlier ids and notifications are skipped)."""
        deadline = time.monotonic() + budget
        while (left := deadline - time.monotonic()) > 0:
            try:
                answer = self.answers.get(timeout=left)
            except queue.Empty:
                return None
            if answer.get("id") == number:
                return answer
        return None

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def readable(line: bytes) -> bool:
    """Whether the line is owed an answer: every line but a notification (a JSON object without an id) is, the
    ones the SDK would refuse answered by the stdio door's line filter (frontends/_mcp_lines.py)."""
    try:
        message = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):  # RecursionError: nested deeper than Python's decoder goes
        return True
    return not (isinstance(message, dict) and "id" not in message)


def mcp_stdio_row(env: dict[str, str], home: Path, count: int, rng: random.Random, budget: float) -> Row:
    row = Row("door mcp_stdio")
    server = StdioServer(env, home)
    try:
        server.send(json.dumps(INITIALIZE).encode())
        server.answer(0, 60)
        server.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        for number in range(1, count + 1):
            tracebacks = sum("Traceback" in line for line in server.stderr)
            started = time.perf_counter()
            # newline-delimited JSON-RPC: a raw newline would split the message, which is framing, not a finding
            line = call_line(rng, number).replace(b"\n", b" ").replace(b"\r", b" ")
            server.send(line)
            if readable(line):
                outcome, kind = classify_rpc(server.answer(number, budget))
            else:  # a line no JSON reader takes gets no answer; the server must stay alive and keep answering
                server.send(b'{"jsonrpc": "2.0", "id": -' + str(number).encode() + b', "method": "ping"}')
                alive = server.answer(-number, budget) is not None
                outcome, kind = ("typed", "") if alive else ("untyped", "no answer to a ping after a broken line")
            if sum("Traceback" in line for line in server.stderr) > tracebacks:
                outcome, kind = "untyped", "traceback on stderr"
            row.record(time.perf_counter() - started, outcome, kind)
        row.peak_rss_mb = rss_mb(server.process.pid)
    finally:
        server.close()
    return row


def cli_args(rng: random.Random) -> list[str]:
    """One command line: a command and mutated options, strings with lone surrogates as argv can carry."""

    def text() -> str:
        value = argument_value(rng)
        return value if isinstance(value, str) else json.dumps(value)[:5000]

    command = rng.choice(("search", "search", "fetch", "parse", "extract", "tools"))
    if command == "search":
        args = ["search", text()]
        for option in ("--engine", "--site", "--lang", "--region", "--freshness", "--limit", "--page", "--engines"):
            if rng.random() < 0.3:
                args += [option, text()]
        return args + (["--json"] if rng.random() < 0.5 else [])
    if command == "fetch":
        return ["fetch", text(), "--max-chars", str(rng.choice((1, 100, 10**12, -5))), "--timeout", "5"]
    if command == "parse":
        return ["parse", text(), rng.choice(("/dev/null", "/nonexistent", "/etc", "/dev/zero"))]
    if command == "extract":
        return ["extract", rng.choice(("/dev/null", "/nonexistent", "/etc", "/dev/zero")), "--url", text()]
    return ["tools", "--dialect", text()]


def cli_row(env: dict[str, str], count: int, sample: int, rng: random.Random, home: Path, budget: float) -> Row:
    row = Row("door cli")
    runner = CliRunner()
    refused = 0
    for index in range(count):
        args = cli_args(rng)
        if index < sample:  # a real process: exit code and stderr as a user sees them
            try:
                seconds, outcome, kind = cli_process(args, env, home, budget)
            except (ValueError, OSError) as exc:  # argv with a NUL or past the kernel's size (E2BIG): refused by
                if isinstance(exc, OSError) and exc.errno != errno.E2BIG:  # the operating system, not webreach
                    raise
                refused += 1
                continue
            settled = None
            if seconds > LIMIT:  # a process start on busy shared cores, or a slow command: timed again
                row.retimed += 1
                settled = min(seconds, cli_process(args, env, home, budget)[0])
            row.record(seconds, outcome, kind, settled)
            continue
        started = time.perf_counter()
        result = runner.invoke(cli, args, env=env, catch_exceptions=True)
        escaped = result.exception is not None and not isinstance(result.exception, SystemExit)
        traceback = "Traceback" in result.output
        outcome = "untyped" if escaped or traceback else ("ok" if result.exit_code == 0 else "typed")
        kind = f"{type(result.exception).__name__} escaped" if escaped else ("traceback" if traceback else "")
        row.record(time.perf_counter() - started, outcome, kind)
    row.note = (
        f"{min(sample, count)} cases as real processes ({refused} of them not run: an argv with a NUL or over the "
        "kernel's size limit, which the operating system refuses; those over 2 s timed again), the rest "
        "in-process (click's CliRunner)"
    )
    row.peak_rss_mb = own_peak_rss_mb()  # the in-process CLI runs in this process
    return row


def cli_process(args: list[str], env: dict[str, str], home: Path, budget: float) -> tuple[float, str, str]:
    """(seconds, outcome, kind) of `webreach ARGS` as a real process."""
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "webreach", *args], capture_output=True, timeout=budget, env=env, cwd=home
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return time.perf_counter() - started, "untyped", "hang (process)"
    traceback = b"Traceback" in done.stderr
    outcome = "untyped" if traceback else ("ok" if done.returncode == 0 else "typed")
    return time.perf_counter() - started, outcome, "traceback (process)" if traceback else ""


@contextmanager
def doors_world() -> Iterator[tuple[FakeWeb, Path, dict[str, str]]]:
    with tempfile.TemporaryDirectory() as home_dir, FakeWeb.in_thread() as web:
        home = Path(home_dir)
        yield web, home, server_env(web, home, **fast_engines())


def run_doors(
    targets: list[tuple[str, int]], rng: random.Random, *, cli_subprocess: int, budget: float = CASE_BUDGET
) -> list[Row]:
    rows = []
    wanted = dict(targets)
    with doors_world() as (web, home, env):
        if "rest" in wanted or "mcp_http" in wanted:
            with http_server(web, home, **fast_engines()) as server:
                pid = server.process.pid
                if "rest" in wanted:
                    rows.append(rest_row(server.url, wanted["rest"], rng, pid, budget))
                if "mcp_http" in wanted:
                    rows.append(mcp_http_row(server.url, wanted["mcp_http"], rng, pid, budget))
                crashed = sum("Traceback" in line for line in server.stderr)
                if crashed:
                    rows[-1].note = f"{crashed} tracebacks in the server's log"
        if "mcp_stdio" in wanted:
            rows.append(mcp_stdio_row(env, home, wanted["mcp_stdio"], rng, budget))
        if "cli" in wanted:
            saved = dict(os.environ)
            rows.append(cli_row(env, wanted["cli"], cli_subprocess, rng, home, budget))
            os.environ.clear()
            os.environ.update(saved)
    return rows
