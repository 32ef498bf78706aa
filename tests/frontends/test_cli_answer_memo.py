"""The CLI answer memo (webreach/answer_memo.py): the real `python -m webreach search` in subprocesses against the
fake web on loopback. Whether a run was replayed is read from `-X importtime` (a replay imports no click), never
from timing: a replay prints the full run's bytes and restarts its refs; a changed config file or environment, a
cleared cache, an expired memo, moved refs, accounts on and a damaged memo each go the full way."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from webreach import answer_memo
from webreach.testing import FakeWeb
from webreach.testing.environment import process_env

pytestmark = [pytest.mark.network, pytest.mark.slow]

SEARCH = ("search", "python asyncio", "-e", "duckduckgo", "--format", "compact")
CLICK = re.compile(r"\|\s+click$", re.MULTILINE)


@pytest.fixture
def web() -> Iterator[FakeWeb]:
    with FakeWeb.in_thread() as server:
        yield server


class Cli:
    """`python -m webreach` in one home and working directory, pointed at the fake web."""

    def __init__(self, web: FakeWeb, home: Path) -> None:
        self.web, self.home = web, home
        # webreach's own pacing of the engine is not under test: a test that asks it twice within 7.5 s (a cleared
        # cache, an expired memo) was throttled on a fast machine
        pace = {"WEBREACH_ENGINES__DUCKDUCKGO__RATE_PER_MINUTE": "100000"}
        self.env = process_env(home, WEBREACH_FAKE_WEB=web.url, **pace)

    def run(self, *args: str, **env: str) -> tuple[str, bool]:
        """(stdout, whether the answer was replayed); the command must succeed."""
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "webreach", *args], capture_output=True, text=True,
            timeout=60, env=self.env | env, cwd=self.home,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout, CLICK.search(done.stderr) is None

    def memos(self) -> list[Path]:
        return sorted((self.home / "cache" / "webreach" / answer_memo.MEMO_DIRECTORY).glob("*.json"))

    def warm(self, *args: str, **env: str) -> str:
        """Fill the cache, then let a full cached run write the memo; the next identical run replays."""
        first, replayed = self.run(*args, **env)
        assert not replayed
        second, replayed = self.run(*args, **env)
        assert not replayed and second == first
        return second


@pytest.fixture
def cli(web: FakeWeb, tmp_path: Path) -> Cli:
    return Cli(web, tmp_path)


def refs_seen(state: Path) -> dict[int, float]:
    with sqlite3.connect(state) as conn:
        return dict(conn.execute("SELECT ref, seen_at FROM session_refs_v1 WHERE session = 'default'").fetchall())


def test_a_repeated_search_replays_the_same_bytes_and_restarts_its_refs(cli: Cli) -> None:
    answer = cli.warm(*SEARCH)
    asked = len(cli.web.requests("duckduckgo"))
    state = cli.home / "data" / "webreach" / "state.sqlite3"
    before = refs_seen(state)
    assert "[1]" in answer and sorted(before) == [1, 2, 3]
    for _ in range(2):
        again, replayed = cli.run(*SEARCH)
        assert replayed and again == answer
    after = refs_seen(state)
    assert sorted(after) == [1, 2, 3] and all(after[ref] > before[ref] for ref in before)  # shown again: TTL anew
    assert len(cli.web.requests("duckduckgo")) == asked
    assert len(cli.memos()) == 1


def test_a_config_file_or_environment_change_goes_the_full_way(cli: Cli) -> None:
    (cli.home / "webreach.toml").write_text("retries = 1\n")
    answer = cli.warm(*SEARCH, WEBREACH_CONFIG="webreach.toml")
    (cli.home / "webreach.toml").write_text("retries = 2\n")
    assert cli.run(*SEARCH, WEBREACH_CONFIG="webreach.toml") == (answer, False)
    assert cli.run(*SEARCH, WEBREACH_CONFIG="webreach.toml") == (answer, True)  # memo written anew
    assert cli.run(*SEARCH, WEBREACH_CONFIG="webreach.toml", WEBREACH_RETRIES="3") == (answer, False)
    assert cli.run(*SEARCH, WEBREACH_CONFIG="webreach.toml", WEBREACH_RETRIES="3") == (answer, True)


def test_an_edited_source_file_goes_the_full_way(cli: Cli) -> None:
    """A checkout (an editable install) edited in place: the package's directory keeps its mtime, the memo still
    misses; a module the search never loads may change without costing the replay."""
    source = cli.home / "src"
    shutil.copytree(
        Path(answer_memo.__file__).parent, source / "webreach", ignore=shutil.ignore_patterns("__pycache__")
    )
    cli.env["PYTHONPATH"] = str(source)
    answer = cli.warm(*SEARCH)
    (memo,) = cli.memos()
    assert str(source / "webreach" / "frontends" / "_cli_search.py") in memo.read_text()
    package = (source / "webreach").stat().st_mtime_ns
    with (source / "webreach" / "frontends" / "_cli_search.py").open("a") as file:
        file.write("# edited\n")
    assert (source / "webreach").stat().st_mtime_ns == package
    assert cli.run(*SEARCH) == (answer, False)
    assert cli.run(*SEARCH) == (answer, True)
    with (source / "webreach" / "frontends" / "_console_pages.py").open("a") as file:
        file.write("# edited\n")  # the operator console: never loaded by a search
    assert cli.run(*SEARCH) == (answer, True)


def test_a_cleared_cache_goes_to_the_engine(cli: Cli) -> None:
    answer = cli.warm(*SEARCH)
    asked = len(cli.web.requests("duckduckgo"))
    for path in (cli.home / "cache" / "webreach").glob("cache.sqlite3*"):
        path.unlink()
    assert cli.run(*SEARCH) == (answer, False)
    assert len(cli.web.requests("duckduckgo")) == asked + 1


def test_an_expired_memo_goes_the_full_way_and_expires_with_the_cache_entry(cli: Cli) -> None:
    answer = cli.warm(*SEARCH)
    (memo,) = cli.memos()
    body = json.loads(memo.read_text())
    with sqlite3.connect(cli.home / "cache" / "webreach" / "cache.sqlite3") as conn:
        (fresh_until,) = conn.execute("SELECT fresh_until FROM search_cache_v1").fetchone()
    assert body["expires"] == fresh_until  # the cache entry's own expiry
    memo.write_text(json.dumps(body | {"expires": 1.0}))
    assert cli.run(*SEARCH) == (answer, False)
    assert cli.run(*SEARCH) == (answer, True)


def test_refs_that_moved_are_numbered_by_the_full_way(cli: Cli) -> None:
    cli.warm(*SEARCH)
    with sqlite3.connect(cli.home / "data" / "webreach" / "state.sqlite3") as conn:
        conn.execute("DELETE FROM session_refs_v1")  # evicted: the URLs get new refs
    answer, replayed = cli.run(*SEARCH)
    assert not replayed and "[4]" in answer and "[1]" not in answer


@pytest.mark.parametrize(
    "damage",
    [b"{not json", b"[]", json.dumps({"version": 1, "stdout": 3}).encode(), b"\xff\xfe"],
    ids=["not-json", "not-an-object", "wrong-fields", "not-utf8"],
)
def test_a_damaged_memo_is_ignored(cli: Cli, damage: bytes) -> None:
    answer = cli.warm(*SEARCH)
    (memo,) = cli.memos()
    memo.write_bytes(damage)
    assert cli.run(*SEARCH) == (answer, False)
    assert cli.run(*SEARCH) == (answer, True)


def test_a_memo_with_refs_of_the_wrong_types_writes_no_refs(cli: Cli) -> None:
    answer = cli.warm(*SEARCH)
    (memo,) = cli.memos()
    body = json.loads(memo.read_text())
    body["refs"]["urls"] = ["https://elsewhere.example/", 7, None]
    memo.write_text(json.dumps(body))
    assert cli.run(*SEARCH) == (answer, False)
    with sqlite3.connect(cli.home / "data" / "webreach" / "state.sqlite3") as conn:
        assert conn.execute("SELECT count(*) FROM session_refs_v1 WHERE url LIKE '%elsewhere%'").fetchone() == (0,)


def test_a_metered_search_is_never_replayed(cli: Cli) -> None:
    env = {"WEBREACH_ACCOUNTS__ENABLED": "true"}
    cli.run("agents", "add", "memo-agent", "--credits", "10", "--json", **env)
    for _ in range(3):
        done = subprocess.run(
            [sys.executable, "-m", "webreach", *SEARCH, "--agent", "memo-agent"], capture_output=True, text=True,
            timeout=60, env=cli.env | env, cwd=cli.home,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        assert "[1]" in done.stdout
    assert cli.memos() == []


def test_json_and_table_output_are_not_memoed(cli: Cli) -> None:
    for args in ((*SEARCH[:-1], "json"), SEARCH[:-2]):
        for _ in range(3):
            assert not cli.run(*args)[1]
    assert cli.memos() == []


def test_a_closed_stdout_ends_a_replay_as_it_ends_the_full_run(cli: Cli) -> None:
    """`webreach search ... | head -0`: the reader is gone before the answer is written (the pipe's read end closed
    here, so the write fails every time): exit code 1 and no traceback, replayed or not."""
    cli.warm(*SEARCH)
    for env, replay in (({}, True), ({"WEBREACH_RETRIES": "3"}, False)):  # another environment: the full run
        read, write = os.pipe()
        os.close(read)
        try:
            done = subprocess.run(
                [sys.executable, "-X", "importtime", "-m", "webreach", *SEARCH], stdout=write, stderr=subprocess.PIPE,
                text=True, timeout=60, env=cli.env | env, cwd=cli.home,
            )  # fmt: skip
        finally:
            os.close(write)
        lines = [line for line in done.stderr.splitlines() if not line.startswith("import time:")]
        assert (done.returncode, lines) == (1, [])
        assert (CLICK.search(done.stderr) is None) == replay
