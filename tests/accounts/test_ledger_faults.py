"""The ledger through crashes and bad storage (issue 35): quotas that recovery cannot skew, leases that outlast every
call, a database path never chmodded unless webreach created it, and SQLite on a full disk or a read-only file
system answering the typed accounting_unavailable, then working again once the storage is back."""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from webreach.accounts.database import open_database
from webreach.accounts.ledger import Ledger
from webreach.accounts.quotas import HOUR
from webreach.config import Settings
from webreach.errors import AccountingUnavailableError, AgentQuotaError, InvalidInputError

T0 = 1_800_000_000.0
LEASE = 120.0


@pytest.fixture
def ledger(database_url: str) -> Iterator[Ledger]:
    opened = Ledger(open_database(database_url))
    yield opened
    opened.close()


def one_credit(agent: object) -> int:
    return 1


def served(ledger: Ledger, call_id: str, now: float) -> None:
    ledger.reserve("bot", call_id, one_credit, tool="web_search", now=now, lease=LEASE)
    ledger.settle("bot", call_id, charged=1, now=now)


def test_recovery_runs_before_the_quota_counters_are_read(ledger: Ledger) -> None:
    """Five calls whose process died hold quota until their lease passes; the reservation that recovers them must
    not write back the counters it read before recovering (it did: 5 + 1, and those 5 never left the window, so an
    agent with 10 calls an hour was refused after 5, hours later, while `agents show` said 5 were left)."""
    ledger.add_agent("bot", "hash-bot", credits=100, per_hour=10, per_day=None, now=T0)
    for n in range(5):
        ledger.reserve("bot", f"dead-{n}", one_credit, tool="web_search", now=T0 + n, lease=LEASE)
    later = T0 + LEASE + 60  # the dead calls' leases passed: the next reservation releases them
    for n in range(10):
        served(ledger, f"after-{n}", later + n)
    with pytest.raises(AgentQuotaError):
        ledger.reserve("bot", "eleventh", one_credit, tool="web_search", now=later + 20, lease=LEASE)
    next_hour = later + HOUR + 30  # all ten left the window: ten more fit, as `usage` says
    assert ledger.usage("bot", now=next_hour).remaining() == 10
    for n in range(10):
        served(ledger, f"next-hour-{n}", next_hour + n)
    assert ledger.agent("bot").balance == 80 == ledger.journal_sum("bot")


def test_released_calls_leave_the_window_and_served_ones_stay_in_it(ledger: Ledger) -> None:
    """A quota counts what was served: released calls (a failure not the agent's, a recovered crash) use none of
    it, however releases and recoveries interleave with served calls."""
    ledger.add_agent("bot", "hash-bot", credits=100, per_hour=4, per_day=6, now=T0)
    ledger.reserve("bot", "crashed", one_credit, tool="web_search", now=T0, lease=LEASE)
    for n in range(3):
        ledger.reserve("bot", f"failed-{n}", one_credit, tool="web_search", now=T0 + 1 + n, lease=LEASE)
        ledger.settle("bot", f"failed-{n}", charged=None, now=T0 + 1 + n)
    now = T0 + LEASE + 1
    for n in range(4):  # the crashed one is recovered by the first of these; four served fit the hour
        served(ledger, f"served-{n}", now + n)
    with pytest.raises(AgentQuotaError) as refused:
        ledger.reserve("bot", "fifth", one_credit, tool="web_search", now=now + 10, lease=LEASE)
    assert refused.value.retry_after == pytest.approx(HOUR - 10)  # when the first served call leaves the window
    usage = ledger.usage("bot", now=now + 10)
    assert (usage.hour_used, usage.day_used) == (4, 4)
    served(ledger, "next-hour", now + HOUR + 1)
    with pytest.raises(AgentQuotaError):  # the day's six: four, one, and this would be the sixth... of five left
        for n in range(2):
            served(ledger, f"day-{n}", now + HOUR + 2 + n)
    assert ledger.usage("bot", now=now + HOUR + 5).day_used == 6


def test_a_lease_shorter_than_the_longest_call_is_refused_at_start_up() -> None:
    with pytest.raises(ValidationError, match=r"lease_seconds = 30 must be longer than the longest call"):
        Settings(accounts={"lease_seconds": 30})  # web_fetch through a browser may take 30 s, plus the ledger's
    with pytest.raises(ValidationError, match=r"raise lease_seconds above 65"):
        Settings(request_deadline=50, accounts={"lease_seconds": 60})
    shortened = {"request_deadline": 2, "read": {"timeout": 2, "jina_timeout": 2, "browser_timeout": 2}}
    assert Settings(**shortened, accounts={"lease_seconds": 20}).accounts.lease_seconds == 20


def test_an_existing_database_path_keeps_its_mode_and_a_new_file_is_private(tmp_path: Path) -> None:
    shared = tmp_path / "shared.sqlite3"
    shared.touch(mode=0o640)
    shared.chmod(0o640)
    open_database(str(shared)).close()
    assert stat.S_IMODE(shared.stat().st_mode) == 0o640  # an operator's choice is kept (it was made 0600)
    created = tmp_path / "new" / "accounts.sqlite3"
    open_database(str(created)).close()
    assert stat.S_IMODE(created.stat().st_mode) == 0o600


def test_a_device_node_or_fifo_named_as_the_database_is_refused_untouched(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo, 0o644)
    targets = [fifo]
    if os.geteuid() == 0:  # a character device like /dev/null, made in the test's own directory
        device = tmp_path / "null"
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        targets.append(device)
    for target in targets:
        before = stat.S_IMODE(target.stat().st_mode)
        with pytest.raises(InvalidInputError, match="is not a regular file"):
            open_database(str(target))
        assert stat.S_IMODE(target.stat().st_mode) == before


@contextlib.contextmanager
def small_file_system(path: Path, size: str = "2m") -> Iterator[Path]:
    """A tmpfs of `size` mounted at `path`: a real file system that fills up and can be remounted read-only.
    Mounting needs root (CAP_SYS_ADMIN); elsewhere the test is skipped. (chmod cannot make a directory read-only
    to root, which these tests run as; a read-only remount stops root too.)"""
    path.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({mounted.stderr.decode().strip()}); needs root")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False, capture_output=True)


@contextlib.contextmanager
def read_only_view(source: Path, path: Path) -> Iterator[Path]:
    """`source` seen read-only at `path` (a read-only bind mount: the kernel refuses writes, root's too; chmod
    cannot, since these tests run as root). Needs root; elsewhere the test is skipped."""
    path.mkdir()
    bound = subprocess.run(["mount", "--bind", str(source), str(path)], capture_output=True)
    if bound.returncode != 0:
        pytest.skip(f"cannot bind-mount here ({bound.stderr.decode().strip()}); needs root")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(path)], check=True, capture_output=True)
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False, capture_output=True)


def fill(path: Path) -> Path:
    """Write a file until the file system is full; the file (delete it to free the space)."""
    filler = path / "filler"
    # unbuffered: a buffered file's close() flushes what the failed write left and raises ENOSPC again, outside
    # the suppress (it failed 3 runs in 7 once the ledger's size left a partial block at the end)
    with filler.open("wb", buffering=0) as out, contextlib.suppress(OSError):
        while True:
            out.write(b"\0" * 65536)
    return filler


def test_a_ledger_on_a_full_disk_answers_accounting_unavailable_and_recovers(tmp_path: Path) -> None:
    with small_file_system(tmp_path / "disk") as disk:
        ledger = Ledger(open_database(str(disk / "accounts.sqlite3")))
        try:
            ledger.add_agent("bot", "hash-bot", credits=1000, per_hour=None, per_day=None, now=T0)
            filler = fill(disk)
            refusals = 0
            for n in range(200):  # the WAL grows with every call until a page finds no room
                try:
                    served(ledger, f"c{n}", T0 + n)
                except AccountingUnavailableError as full:
                    assert full.retryable and full.retry_after
                    refusals += 1
            assert refusals > 0
            filler.unlink()
            served(ledger, "after", T0 + 300)  # the same open ledger works again, nothing to restart
            agent = ledger.agent("bot")
            assert agent.balance == ledger.journal_sum("bot")
            assert agent.balance == 1000 - (200 - refusals) - 1
        finally:
            ledger.close()


def test_a_ledger_on_a_read_only_file_system_answers_accounting_unavailable(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    ledger = Ledger(open_database(str(data / "accounts.sqlite3")))
    ledger.add_agent("bot", "hash-bot", credits=10, per_hour=None, per_day=None, now=T0)
    ledger.close()
    with read_only_view(data, tmp_path / "read-only") as view:
        with pytest.raises(AccountingUnavailableError, match="cannot be used now") as refused:
            open_database(str(view / "accounts.sqlite3"))  # what a server's first metered call and the CLI do
        assert refused.value.retryable and refused.value.code == "accounting_unavailable"
        with pytest.raises(AccountingUnavailableError):  # a new ledger file cannot be made there either
            open_database(str(view / "other.sqlite3"))
