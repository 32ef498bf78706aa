"""-v streams each engine's attempt line as that engine finishes; -q keeps stderr for errors; no spinner off a tty.

Real subprocesses against the fake web on loopback. The streaming test needs no clock: a hanging engine keeps the
process alive for as long as the test likes, so the first engine's line arriving while the process still runs
can only mean it was streamed, not printed at the end.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from webreach.testing import FakeWeb

pytestmark = [pytest.mark.network, pytest.mark.slow]


@pytest.fixture
def web() -> Iterator[FakeWeb]:
    with FakeWeb.in_thread() as server:
        yield server


def environment(web: FakeWeb, tmp_path: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "WEBREACH_CONFIG": os.devnull,
        "WEBREACH_FAKE_WEB": web.url,
        "WEBREACH_ENGINE_TIMEOUT": "60",
        "WEBREACH_REQUEST_DEADLINE": "60",
    }


def webreach(*args: str) -> list[str]:
    return [sys.executable, "-m", "webreach", *args]


def test_verbose_streams_each_attempt_while_the_search_still_runs(web: FakeWeb, tmp_path: Path) -> None:
    web.set_scenario("duckduckgo", fault="captcha")
    web.set_scenario("mojeek", fault="hang")  # answers only when the fake web stops: the search cannot end first
    command = webreach("search", "python asyncio", "--engines", "duckduckgo,mojeek", "-v")
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment(web, tmp_path),
        cwd=tmp_path,
    ) as process:  # fmt: skip
        assert process.stderr is not None
        try:
            line = process.stderr.readline()
            assert line.strip().startswith("duckduckgo: error captcha"), line
            assert process.poll() is None, "the line came while mojeek was still being waited for"
        finally:
            process.kill()  # not SIGINT: a shell runs background jobs with SIGINT ignored, and children inherit that
            process.communicate(timeout=60)


def test_verbose_prints_each_attempt_once_and_quiet_prints_nothing(web: FakeWeb, tmp_path: Path) -> None:
    web.set_scenario("duckduckgo", fault="captcha")
    env = environment(web, tmp_path)
    verbose = subprocess.run(
        webreach("search", "python asyncio", "--engines", "duckduckgo,mojeek", "-v"),
        capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert verbose.returncode == 0, verbose.stderr
    lines = [line.strip() for line in verbose.stderr.splitlines()]
    assert [line.split(":")[0] for line in lines if line.startswith(("duckduckgo:", "mojeek:"))] == [
        "duckduckgo",
        "mojeek",
    ], "streamed once each, not repeated after the results"
    assert "\x1b" not in verbose.stderr, "no spinner or colour codes when stderr is not a terminal"
    quiet = subprocess.run(
        webreach("search", "rust async", "-e", "mojeek", "-q"),
        capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert quiet.returncode == 0 and quiet.stdout.strip() and quiet.stderr == ""
    both = subprocess.run(
        webreach("search", "rust async", "-v", "-q"), capture_output=True, text=True, timeout=60, env=env,
        cwd=tmp_path,
    )  # fmt: skip
    assert both.returncode == 2 and "exclude each other" in both.stderr
    read = subprocess.run(
        webreach("fetch", "--ref", "1", "-v", "--max-chars", "200"), capture_output=True, text=True, timeout=60,
        env=env, cwd=tmp_path,
    )  # fmt: skip
    assert read.returncode == 0, read.stderr
    assert "reading ref 1 (reader auto)" in read.stderr  # the pipeline resolves the ref; the note after names the URL
    assert "read https://" in read.stderr and "by the direct reader" in read.stderr
    assert "More: continue with `webreach fetch --ref 1 --start " in read.stdout


def test_a_spinner_shows_on_a_terminal_while_an_engine_is_slow(web: FakeWeb, tmp_path: Path) -> None:
    web.set_scenario("mojeek", fault="hang")  # the search outlasts the spinner's delay for as long as the test likes
    leader, follower = pty.openpty()
    env = {**environment(web, tmp_path), "TERM": "xterm", "COLUMNS": "100"}
    with subprocess.Popen(
        webreach("search", "python asyncio", "-e", "mojeek"), stdout=subprocess.DEVNULL, stderr=follower, env=env,
        cwd=tmp_path,
    ) as process:  # fmt: skip
        os.close(follower)
        seen = b""
        try:
            while b"searching" not in seen:
                ready, _, _ = select.select([leader], [], [], 60)
                assert ready, f"no spinner on the terminal: {seen!r}"
                seen += os.read(leader, 4096)
        finally:
            process.kill()
            process.wait(timeout=60)
            os.close(leader)
