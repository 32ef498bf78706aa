"""The first hour on the command line: hints that match the user's situation (issue 41).

Real subprocesses against the fake web on loopback (and against a loopback port where nothing listens).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from webreach.frontends._cli_hints import program_name
from webreach.testing import FakeWeb
from webreach.testing.environment import process_env

pytestmark = [pytest.mark.network, pytest.mark.slow]


@pytest.fixture(scope="module")
def web() -> Iterator[FakeWeb]:
    with FakeWeb.in_thread() as server:
        yield server


def _env(tmp_path: Path, fake_web: str) -> dict[str, str]:
    return process_env(tmp_path, WEBREACH_FAKE_WEB=fake_web)


def run(tmp_path: Path, fake_web: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webreach", *args],
        capture_output=True, text=True, timeout=120, env=_env(tmp_path, fake_web), stdin=subprocess.DEVNULL,
    )  # fmt: skip


def test_the_read_hint_names_the_session_the_refs_are_in(web: FakeWeb, tmp_path: Path) -> None:
    done = run(tmp_path, web.url, "search", "python asyncio", "--session", "demo2")
    assert done.returncode == 0, done.stderr
    assert "read one with: webreach fetch --session demo2 --ref N" in done.stderr
    plain = run(tmp_path, web.url, "search", "python asyncio")
    assert "read one with: webreach fetch --ref N" in plain.stderr


def test_verbose_keeps_the_summary_and_the_hint(web: FakeWeb, tmp_path: Path) -> None:
    done = run(tmp_path, web.url, "search", "python asyncio", "-v", "--session", "demo2")
    assert done.returncode == 0, done.stderr
    assert " ms" in done.stderr and "read one with: webreach fetch --session demo2 --ref N" in done.stderr


def test_a_fake_web_where_nothing_listens_is_named(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a free loopback port, closed again: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    done = run(tmp_path, url, "search", "python asyncio")
    first = done.stderr.splitlines()[0]
    assert f"nothing listens at {url}" in first
    assert f"webreach fakeweb --port {port}" in first
    assert "run the fake web" not in done.stderr and "looks offline" not in done.stderr


def test_a_url_typo_is_invalid_input_and_a_refused_scheme_is_policy(web: FakeWeb, tmp_path: Path) -> None:
    typo = run(tmp_path, web.url, "fetch", "not-a-url")
    assert typo.returncode == 2, typo.stderr
    assert "http://" in typo.stderr
    assert run(tmp_path, web.url, "fetch", "file:///etc/passwd").returncode == 3


def test_ref_zero_says_refs_start_at_1(web: FakeWeb, tmp_path: Path) -> None:
    done = run(tmp_path, web.url, "fetch", "--ref", "0")
    assert done.returncode == 2
    assert "from 1" in done.stderr and "expired" not in done.stderr


def test_a_repeated_cli_search_answers_from_the_persistent_cache(web: FakeWeb, tmp_path: Path) -> None:
    first = run(tmp_path, web.url, "search", "rust async runtime", "-e", "mojeek", "-v")
    assert first.returncode == 0, first.stderr
    asked = web.count("mojeek")
    assert asked >= 1
    again = run(tmp_path, web.url, "search", "rust async runtime", "-e", "mojeek", "-v")
    assert again.returncode == 0, again.stderr
    assert web.count("mojeek") == asked, "the second process asked the engine again"
    assert "cached" in again.stderr
    assert (tmp_path / "cache" / "webreach" / "cache.sqlite3").exists()


def test_a_chosen_cache_backend_is_kept(web: FakeWeb, tmp_path: Path) -> None:
    for _ in range(2):
        done = run(tmp_path, web.url, "search", "zig comptime", "-e", "mojeek", "--json")
        assert done.returncode == 0, done.stderr
    before = web.count("mojeek")
    done = subprocess.run(
        [sys.executable, "-m", "webreach", "search", "zig comptime", "-e", "mojeek", "--json"],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
        env={**_env(tmp_path, web.url), "WEBREACH_CACHE__BACKEND": "memory"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert web.count("mojeek") == before + 1, "[cache] backend = memory asks the engine in every process"


def test_the_engines_table_fits_80_columns_with_every_name_whole(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from webreach.frontends.cli import cli

    env = {"WEBREACH_STATE__BACKEND": "memory", "WEBREACH_CONFIG": os.devnull, "COLUMNS": "80"}
    listed = CliRunner().invoke(cli, ["engines", "--json"], env=env)
    names = [engine["name"] for engine in json.loads(listed.stdout)]
    narrow = CliRunner().invoke(cli, ["engines"], env=env)
    assert narrow.exit_code == 0, narrow.output
    lines = narrow.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    first_cells = {line.split()[0] for line in lines if line.split()}
    assert set(names) <= first_cells, "an engine's name was cut"
    assert "webreach engines --wide" in narrow.stdout
    wide = CliRunner().invoke(cli, ["engines", "--wide"], env={**env, "COLUMNS": "200"})
    assert wide.exit_code == 0 and "parser (recent)" in wide.stdout and "index" in wide.stdout


AGENT_PHRASES = ("web_fetch(", "engine='", "reader='", "engines applies to engine=")


def test_the_cli_writes_next_steps_in_its_own_syntax(web: FakeWeb, tmp_path: Path) -> None:
    compact = run(tmp_path, web.url, "search", "python asyncio", "--format", "compact", "--session", "s2")
    assert compact.returncode == 0, compact.stderr
    assert "Read a result with `webreach fetch --ref N`." in compact.stdout
    wrong = run(tmp_path, web.url, "search", "python asyncio", "-e", "mojeek", "--engines", "bing")
    assert wrong.returncode == 2
    assert "`-e auto`" in wrong.stderr and "--engines" in wrong.stderr
    for said in (compact.stdout + compact.stderr, wrong.stderr):
        assert not [phrase for phrase in AGENT_PHRASES if phrase in said], said


def test_hints_spell_the_venv_path_when_the_venv_is_not_activated(tmp_path: Path) -> None:
    """README (a) runs `.venv/bin/webreach` without activating the venv: the hint's command must run as printed."""
    bin_dir = Path(sys.executable).parent
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = _env(tmp_path, f"http://127.0.0.1:{port}")
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if p and Path(p) != bin_dir)
    done = subprocess.run(
        [str(bin_dir / "webreach"), "search", "python asyncio"],
        capture_output=True, text=True, timeout=120, env=env, cwd=bin_dir.parent.parent, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    venv_command = f"{bin_dir.parent.name}/bin/webreach fakeweb --port {port}"
    assert f"`{venv_command} &`" in done.stderr, done.stderr
    assert "`webreach fakeweb" not in done.stderr


def test_program_name_is_webreach_only_when_path_finds_this_program(tmp_path: Path) -> None:
    script = tmp_path / ".venv" / "bin" / "webreach"
    script.parent.mkdir(parents=True)
    script.touch()
    assert program_name(str(script), None, str(tmp_path)) == ".venv/bin/webreach"
    assert program_name(str(script), "/usr/local/bin/webreach", str(tmp_path)) == ".venv/bin/webreach"
    assert program_name(str(script), str(script), str(tmp_path)) == "webreach"
    assert program_name(str(script), None, "/elsewhere") == str(script)
    assert program_name("/x/webreach/__main__.py", None, str(tmp_path)) == "webreach"
