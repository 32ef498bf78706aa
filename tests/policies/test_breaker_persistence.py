"""Breakers across processes: records saved on change, restored by a new PolicyState, synced while running.

Each PolicyState stands for one process; two of them on one SQLite file are two processes sharing the state.
"""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

from webreach.errors import BlockedError, SuspendedError, UnavailableError
from webreach.models import SearchRequest
from webreach.policies import SYNC_INTERVAL, PolicyState
from webreach.policies.breaker import BreakerState
from webreach.state.breaker_store import BreakerRecord, BreakerStore, MemoryBreakerStore, SqliteBreakerStore
from webreach.testing.clock import FakeClock

from .breakers import fail, guarded, refused_without_a_call
from .fakes import ScriptedSearch, make_hits

HOUR = 3600.0
CAPTCHA = BlockedError("captcha page", kind="captcha", engine="duckduckgo")


class CountingStore(MemoryBreakerStore):
    """A memory store that counts writes and looks for other processes' changes."""

    def __init__(self) -> None:
        super().__init__()
        self.saves = 0
        self.looks = 0

    def save(self, record: BreakerRecord) -> None:
        self.saves += 1
        super().save(record)

    def changes(self) -> dict[str, BreakerRecord] | None:
        self.looks += 1
        return super().changes()


def test_a_record_round_trips_through_a_breaker(clock: FakeClock) -> None:
    state = BreakerState("duckduckgo")
    assert state.snapshot() == BreakerRecord("duckduckgo")
    state.record_failure(CAPTCHA, clock.now(), probe=False)
    record = state.snapshot()
    assert record == BreakerRecord("duckduckgo", open_until=clock.now() + HOUR, reason="captcha", openings=1)
    restored = BreakerState.from_record(record)
    assert restored.view(clock.now()) == state.view(clock.now())
    assert restored.snapshot() == record


async def test_a_suspension_outlives_the_process_that_saw_the_captcha(
    clock: FakeClock, search_request: SearchRequest, state_file: Path
) -> None:
    first = PolicyState(clock=clock, breaker_store=SqliteBreakerStore(state_file))
    await fail(guarded(first, ScriptedSearch(CAPTCHA)), search_request, BlockedError)
    first.close()

    clock.advance(60)
    second = PolicyState(clock=clock, breaker_store=SqliteBreakerStore(state_file))
    view = second.breaker_view("duckduckgo")
    assert (view.state, view.reason, view.retry_after) == ("open", "captcha", HOUR - 60)
    assert (await refused_without_a_call(second, search_request)).retry_after == HOUR - 60
    second.close()


async def test_a_running_process_honours_a_suspension_another_one_recorded(
    clock: FakeClock, search_request: SearchRequest, state_file: Path
) -> None:
    server = PolicyState(clock=clock, breaker_store=SqliteBreakerStore(state_file))
    cli = PolicyState(clock=clock, breaker_store=SqliteBreakerStore(state_file))
    on_server = ScriptedSearch(make_hits())
    server_breaker = guarded(server, on_server)
    await server_breaker(search_request)  # closed and answering

    await fail(guarded(cli, ScriptedSearch(CAPTCHA)), search_request, BlockedError)
    clock.advance(SYNC_INTERVAL)
    await fail(server_breaker, search_request, SuspendedError)
    assert on_server.calls == 1
    assert server.breaker_view("duckduckgo").state == "open"
    server.close()
    cli.close()


async def test_a_probe_another_process_lost_is_not_repeated(
    clock: FakeClock, search_request: SearchRequest, state_file: Path
) -> None:
    first = PolicyState(clock=clock, breaker_store=SqliteBreakerStore(state_file))
    await fail(guarded(first, ScriptedSearch(CAPTCHA)), search_request, BlockedError)
    second = PolicyState(clock=clock, breaker_store=SqliteBreakerStore(state_file))
    clock.advance(HOUR)
    assert second.breaker_view("duckduckgo").state == "half_open"

    await fail(guarded(first, ScriptedSearch(CAPTCHA)), search_request, BlockedError)  # first's probe fails
    suspended = await refused_without_a_call(second, search_request)
    assert suspended.retry_after == 2 * HOUR  # the doubled rest first recorded
    first.close()
    second.close()


async def test_a_probe_another_process_won_closes_the_breaker_here(
    clock: FakeClock, search_request: SearchRequest, state_file: Path
) -> None:
    first = PolicyState(clock=clock, breaker_store=SqliteBreakerStore(state_file))
    await fail(guarded(first, ScriptedSearch(CAPTCHA)), search_request, BlockedError)
    second = PolicyState(clock=clock, breaker_store=SqliteBreakerStore(state_file))
    clock.advance(HOUR)
    await guarded(first, ScriptedSearch(make_hits()))(search_request)  # first's probe succeeds

    await guarded(second, ScriptedSearch(make_hits()))(search_request)
    assert second.breaker_view("duckduckgo").state == "closed"
    assert second.breaker_for("duckduckgo").snapshot() == BreakerRecord("duckduckgo")
    first.close()
    second.close()


async def test_repeated_failures_count_across_processes_and_escalate(
    clock: FakeClock, search_request: SearchRequest, state_file: Path
) -> None:
    down = UnavailableError("HTTP 503", engine="mojeek")
    for _ in range(3):  # three short CLI runs, one failure each
        run = PolicyState(clock=clock, breaker_store=SqliteBreakerStore(state_file))
        await fail(guarded(run, ScriptedSearch(down), "mojeek"), search_request, UnavailableError)
        run.close()
    later = PolicyState(clock=clock, breaker_store=SqliteBreakerStore(state_file))
    assert later.breaker_view("mojeek").retry_after == 60
    clock.advance(60)
    await fail(guarded(later, ScriptedSearch(down), "mojeek"), search_request, UnavailableError)  # failed probe
    later.close()
    last = PolicyState(clock=clock, breaker_store=SqliteBreakerStore(state_file))
    assert last.breaker_view("mojeek").retry_after == 120
    last.close()


async def test_a_healthy_engine_never_writes_and_looks_at_most_once_per_interval(
    clock: FakeClock, search_request: SearchRequest
) -> None:
    store = CountingStore()
    state = PolicyState(clock=clock, breaker_store=store)
    breaker = guarded(state, ScriptedSearch(make_hits()))
    for _ in range(5):
        await breaker(search_request)
    assert (store.saves, store.looks) == (0, 0)
    clock.advance(SYNC_INTERVAL)
    for _ in range(5):
        await breaker(search_request)
    assert (store.saves, store.looks) == (0, 1)


async def test_an_open_breaker_looks_for_resets_on_the_same_interval(
    clock: FakeClock, search_request: SearchRequest
) -> None:
    store = CountingStore()
    state = PolicyState(clock=clock, breaker_store=store)
    breaker = guarded(state, ScriptedSearch(CAPTCHA))
    await fail(breaker, search_request, BlockedError)
    for _ in range(3):
        await fail(breaker, search_request, SuspendedError)
    assert (store.saves, store.looks) == (1, 0)
    clock.advance(SYNC_INTERVAL)
    await fail(breaker, search_request, SuspendedError)
    assert store.looks == 1


async def test_a_reset_by_another_process_reaches_an_open_breaker(
    clock: FakeClock, search_request: SearchRequest, state_file: Path
) -> None:
    server = PolicyState(clock=clock, breaker_store=SqliteBreakerStore(state_file))
    await fail(guarded(server, ScriptedSearch(CAPTCHA)), search_request, BlockedError)
    cli = PolicyState(clock=clock, breaker_store=SqliteBreakerStore(state_file))
    assert cli.breaker_view("duckduckgo").state == "open"
    cli.reset_breaker("duckduckgo")
    cli.close()

    await refused_without_a_call(server, search_request)  # within the interval the server has not looked
    clock.advance(SYNC_INTERVAL)
    inner = ScriptedSearch(make_hits())
    await guarded(server, inner)(search_request)
    assert inner.calls == 1
    assert server.breaker_view("duckduckgo").state == "closed"
    server.close()


async def test_deleting_the_state_file_closes_every_breaker_of_a_running_process(
    clock: FakeClock, search_request: SearchRequest, state_file: Path
) -> None:
    server = PolicyState(clock=clock, breaker_store=SqliteBreakerStore(state_file))
    await fail(guarded(server, ScriptedSearch(CAPTCHA)), search_request, BlockedError)
    await fail(guarded(server, ScriptedSearch(CAPTCHA), "mojeek"), search_request, BlockedError)
    for leftover in state_file.parent.glob(state_file.name + "*"):
        leftover.unlink()  # what `rm ~/.local/share/webreach/state.sqlite3*` does
    clock.advance(SYNC_INTERVAL)
    inner = ScriptedSearch(make_hits(), CAPTCHA)
    await guarded(server, inner)(search_request)
    assert [view.state for view in server.breaker_views()] == ["closed", "closed"]
    assert not state_file.exists()  # nothing to record yet: the file is not recreated

    await fail(guarded(server, inner), search_request, BlockedError)  # the next trip writes a new file
    with closing(SqliteBreakerStore(state_file)) as reopened:
        assert reopened.load("duckduckgo") == server.breaker_for("duckduckgo").snapshot()
    server.close()


async def test_every_change_is_saved(clock: FakeClock, search_request: SearchRequest) -> None:
    store: BreakerStore = MemoryBreakerStore()
    state = PolicyState(clock=clock, breaker_store=store)
    down = UnavailableError("HTTP 502", engine="mojeek")
    breaker = guarded(state, ScriptedSearch(down, make_hits(), CAPTCHA, make_hits()), "mojeek")
    await fail(breaker, search_request, UnavailableError)
    assert store.load("mojeek") == BreakerRecord("mojeek", failures=1)
    await breaker(search_request)
    assert store.load("mojeek") == BreakerRecord("mojeek")
    await fail(breaker, search_request, BlockedError)
    assert store.load("mojeek") == BreakerRecord("mojeek", open_until=clock.now() + HOUR, reason="captcha", openings=1)
    clock.advance(HOUR)
    await breaker(search_request)  # the probe closes it
    assert store.load("mojeek") == BreakerRecord("mojeek")


async def test_an_unusable_state_file_still_suspends_within_the_process(
    clock: FakeClock, search_request: SearchRequest, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    state = PolicyState(clock=clock, breaker_store=SqliteBreakerStore(blocker / "state.sqlite3"))
    inner = ScriptedSearch(CAPTCHA, make_hits())
    breaker = guarded(state, inner)
    await fail(breaker, search_request, BlockedError)
    assert (await fail(breaker, search_request, SuspendedError)).retry_after == HOUR
    assert inner.calls == 1
    state.close()


def test_the_default_store_is_per_policy_state(clock: FakeClock) -> None:
    first = PolicyState(clock=clock)
    first.breaker_for("bing").record_failure(CAPTCHA, clock.now(), probe=False)
    assert first.breaker_view("bing").state == "open"
    assert PolicyState(clock=clock).breaker_view("bing").state == "closed"
