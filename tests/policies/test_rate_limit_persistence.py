"""Rate limits across processes: each engine's bucket lives in the state file, so CLI runs share one pace.

Each PolicyState stands for one process; several of them on one SQLite file are processes sharing the state.
"""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import pytest
from pytest import approx

from webreach.errors import SuspendedError
from webreach.models import SearchRequest
from webreach.policies import EngineResult, PolicyState
from webreach.policies.rate_limit import RateLimit
from webreach.state.bucket_store import BucketLevel, SqliteBucketStore
from webreach.testing.clock import FakeClock

from .fakes import ScriptedSearch


def process(clock: FakeClock, state_file: Path) -> PolicyState:
    return PolicyState(clock=clock, bucket_store=SqliteBucketStore(state_file))


def limited(state: PolicyState, inner: ScriptedSearch, rate: float, engine: str = "baidu") -> RateLimit:
    return RateLimit(inner, engine=engine, bucket=state.bucket_for(engine, rate), clock=state.clock)


async def run_once(
    clock: FakeClock, state_file: Path, inner: ScriptedSearch, request: SearchRequest, rate: float
) -> EngineResult | SuspendedError:
    """One short CLI run: a new process, one search, then exit."""
    state = process(clock, state_file)
    try:
        return await limited(state, inner, rate)(request)
    except SuspendedError as exc:
        return exc
    finally:
        state.close()


async def test_eight_quick_cli_runs_share_one_bucket(
    clock: FakeClock, search_request: SearchRequest, state_file: Path
) -> None:
    inner = ScriptedSearch()
    outcomes = []
    for _ in range(8):  # the reported case: eight `webreach search -e baidu` runs in quick succession at 10/min
        outcome = await run_once(clock, state_file, inner, search_request, rate=10)
        outcomes.append(outcome.retry_after if isinstance(outcome, SuspendedError) else "ok")
        clock.advance(1.1)
    # a burst of 10/6 tokens, then one every 6 s; a wait of up to 2 s is slept, a longer one refused
    assert outcomes == ["ok", "ok", approx(4.9), approx(3.8), approx(2.7), "ok", approx(4.9), approx(3.8)]
    assert inner.calls == 3
    assert clock.slept == [approx(0.9), approx(1.6)]


async def test_two_processes_on_one_file_take_from_one_bucket(
    clock: FakeClock, search_request: SearchRequest, state_file: Path
) -> None:
    server, cli = process(clock, state_file), process(clock, state_file)
    on_server, on_cli = ScriptedSearch(), ScriptedSearch()
    await limited(server, on_server, rate=6)(search_request)  # burst 1: the only token
    with pytest.raises(SuspendedError) as info:
        await limited(cli, on_cli, rate=6)(search_request)
    assert info.value.retry_after == 10.0
    assert on_cli.calls == 0
    clock.advance(10)
    await limited(cli, on_cli, rate=6)(search_request)
    with pytest.raises(SuspendedError):
        await limited(server, on_server, rate=6)(search_request)
    assert (on_server.calls, on_cli.calls) == (1, 1)
    server.close()
    cli.close()


async def test_waiters_in_different_processes_queue_one_slot_apart(clock: FakeClock, state_file: Path) -> None:
    first, second = process(clock, state_file), process(clock, state_file)
    for _ in range(10):  # the burst
        assert (await first.bucket_for("baidu", 60).reserve(clock.now(), 2.0)) == (True, 0.0)
    assert (await second.bucket_for("baidu", 60).reserve(clock.now(), 2.0)) == (True, 1.0)
    assert (await first.bucket_for("baidu", 60).reserve(clock.now(), 2.0)) == (True, 2.0)
    assert (await second.bucket_for("baidu", 60).reserve(clock.now(), 2.0)) == (False, 3.0)
    first.close()
    second.close()


async def test_a_short_wait_is_slept_and_a_refusal_takes_nothing(
    clock: FakeClock, search_request: SearchRequest, state_file: Path
) -> None:
    inner = ScriptedSearch()
    for _ in range(10):  # the burst
        await run_once(clock, state_file, inner, search_request, rate=60)
    assert clock.slept == []
    await run_once(clock, state_file, inner, search_request, rate=60)
    assert clock.slept == [1.0]  # slept on the clock, which moved on by the wait
    assert inner.calls == 11
    with closing(SqliteBucketStore(state_file)) as reopened:
        level = reopened.update("baidu", lambda stored: (None, stored))
    assert level == BucketLevel(-1.0, clock.now() - 1.0)


async def test_engines_have_buckets_of_their_own(
    clock: FakeClock, search_request: SearchRequest, state_file: Path
) -> None:
    state = process(clock, state_file)
    await limited(state, ScriptedSearch(), rate=6, engine="baidu")(search_request)
    await limited(state, ScriptedSearch(), rate=6, engine="sogou")(search_request)
    with pytest.raises(SuspendedError) as info:
        await limited(state, ScriptedSearch(), rate=6, engine="baidu")(search_request)
    assert info.value.engine == "baidu"
    state.close()


async def test_a_level_stamped_in_the_future_does_not_stall_the_engine(
    clock: FakeClock, search_request: SearchRequest, state_file: Path
) -> None:
    store = SqliteBucketStore(state_file)
    # written before the wall clock stepped back an hour
    store.update("baidu", lambda stored: (BucketLevel(0.0, clock.now() + 3600), None))
    store.close()
    inner = ScriptedSearch()
    refused = await run_once(clock, state_file, inner, search_request, rate=10)
    assert isinstance(refused, SuspendedError) and refused.retry_after == 6.0
    clock.advance(6)
    await run_once(clock, state_file, inner, search_request, rate=10)
    assert inner.calls == 1


async def test_a_level_saved_under_a_larger_burst_is_capped(
    clock: FakeClock, search_request: SearchRequest, state_file: Path
) -> None:
    store = SqliteBucketStore(state_file)
    store.update("baidu", lambda stored: (BucketLevel(50.0, clock.now()), None))  # a process configured at 300/min
    store.close()
    inner = ScriptedSearch()
    outcomes = [await run_once(clock, state_file, inner, search_request, rate=6) for _ in range(3)]
    assert inner.calls == 1
    assert all(isinstance(o, SuspendedError) for o in outcomes[1:])


async def test_the_default_bucket_store_is_per_policy_state(clock: FakeClock, search_request: SearchRequest) -> None:
    first, second = PolicyState(clock=clock), PolicyState(clock=clock)
    await limited(first, ScriptedSearch(), rate=6)(search_request)
    await limited(second, ScriptedSearch(), rate=6)(search_request)
    with pytest.raises(SuspendedError):
        await limited(first, ScriptedSearch(), rate=6)(search_request)


async def test_an_unusable_state_file_still_limits_within_the_process(
    clock: FakeClock, search_request: SearchRequest, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    state = process(clock, blocker / "state.sqlite3")
    inner = ScriptedSearch()
    limit = limited(state, inner, rate=6)
    await limit(search_request)
    with pytest.raises(SuspendedError):
        await limit(search_request)
    assert inner.calls == 1
    state.close()
