"""Suspensions for bad credentials last until the configuration changes, not 24 h; others ignore the key.

Each PolicyState stands for one process, configured with one fingerprint per engine (searching.py computes
them from EngineSettings); two of them on one SQLite file are two processes sharing the state.
"""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import httpx
import pytest

from secret_keys import GATEWAY_KEY, TEST_KEY
from webreach.config import EngineSettings, Settings, StateSettings
from webreach.errors import (
    AuthFailedError,
    BlockedError,
    InvalidInputError,
    QuotaExhaustedError,
    SuspendedError,
)
from webreach.gateway import Gateway
from webreach.models import SearchRequest
from webreach.policies import SYNC_INTERVAL, PolicyState
from webreach.search.engine_settings import config_fingerprint
from webreach.state.breaker_store import BreakerRecord, SqliteBreakerStore
from webreach.testing.clock import FakeClock

from .breakers import fail, guarded, refused_without_a_call
from .fakes import ScriptedSearch, make_hits

DAY = 86400.0
ENGINE = "tavily"
OLD = config_fingerprint(EngineSettings(api_key=TEST_KEY))
NEW = config_fingerprint(EngineSettings(api_key=GATEWAY_KEY))
REJECTED = AuthFailedError("HTTP 401", engine="tavily")
CAPTCHA = BlockedError("captcha page", kind="captcha", engine="tavily")


def process(clock: FakeClock, state_file: Path, fingerprint: str) -> PolicyState:
    """One process with tavily configured as `fingerprint` says."""
    return PolicyState(clock=clock, breaker_store=SqliteBreakerStore(state_file), fingerprints={"tavily": fingerprint})


def test_the_fingerprint_follows_key_base_url_and_options_and_hides_the_key() -> None:
    base = EngineSettings(api_key=TEST_KEY)
    assert config_fingerprint(base) == config_fingerprint(EngineSettings(api_key=TEST_KEY, timeout=3))
    changed = [
        EngineSettings(api_key=GATEWAY_KEY),
        EngineSettings(),
        EngineSettings(api_key=TEST_KEY, base_url="http://127.0.0.1:9/tavily"),
        EngineSettings(api_key=TEST_KEY, options={"search_depth": "advanced"}),
    ]
    assert len({config_fingerprint(base), *map(config_fingerprint, changed)}) == 5
    assert len(OLD) == 16 and TEST_KEY not in OLD


async def test_a_rejected_key_stays_suspended_until_the_key_changes(
    clock: FakeClock, search_request: SearchRequest, state_file: Path
) -> None:
    first = process(clock, state_file, OLD)
    await fail(guarded(first, ScriptedSearch(REJECTED), ENGINE), search_request, AuthFailedError)
    suspended = await fail(guarded(first, ScriptedSearch(make_hits()), ENGINE), search_request, SuspendedError)
    assert suspended.retry_after == DAY
    assert "lifts as soon as the key" in suspended.message
    first.close()

    clock.advance(1)
    same_key = process(clock, state_file, OLD)
    assert same_key.breaker_view("tavily").state == "open"
    assert (await refused_without_a_call(same_key, search_request, ENGINE)).retry_after == DAY - 1
    same_key.close()

    new_key = process(clock, state_file, NEW)
    assert new_key.breaker_view("tavily").state == "closed"
    inner = ScriptedSearch(make_hits())
    await guarded(new_key, inner, ENGINE)(search_request)
    assert inner.calls == 1
    new_key.close()
    # the stale suspension was cleared in the file, not just ignored here
    with closing(SqliteBreakerStore(state_file)) as reopened:
        assert reopened.load("tavily") == BreakerRecord("tavily", fingerprint=NEW)
    bytes_on_disk = b"".join(path.read_bytes() for path in state_file.parent.iterdir() if path.is_file())
    assert TEST_KEY.encode() not in bytes_on_disk and GATEWAY_KEY.encode() not in bytes_on_disk


async def test_a_spent_quota_lifts_with_a_new_key_too(
    clock: FakeClock, search_request: SearchRequest, state_file: Path
) -> None:
    first = process(clock, state_file, OLD)
    spent = QuotaExhaustedError("credits used up", engine="tavily")
    await fail(guarded(first, ScriptedSearch(spent), ENGINE), search_request, QuotaExhaustedError)
    suspended = await fail(guarded(first, ScriptedSearch(), ENGINE), search_request, SuspendedError)
    assert "lifts as soon as the key" in suspended.message
    first.close()
    with closing(process(clock, state_file, NEW)) as later:
        assert later.breaker_view("tavily").state == "closed"


async def test_a_captcha_holds_whatever_the_key(
    clock: FakeClock, search_request: SearchRequest, state_file: Path
) -> None:
    first = process(clock, state_file, OLD)
    await fail(guarded(first, ScriptedSearch(CAPTCHA), ENGINE), search_request, BlockedError)
    first.close()

    new_key = process(clock, state_file, NEW)
    view = new_key.breaker_view("tavily")
    assert (view.state, view.reason) == ("open", "captcha")
    inner = ScriptedSearch(make_hits())
    suspended = await fail(guarded(new_key, inner, ENGINE), search_request, SuspendedError)
    assert "lifts" not in suspended.message
    assert inner.calls == 0
    new_key.close()


async def test_a_running_process_with_the_new_key_ignores_the_old_keys_suspension(
    clock: FakeClock, search_request: SearchRequest, state_file: Path
) -> None:
    server = process(clock, state_file, NEW)
    on_server = ScriptedSearch(make_hits())
    server_breaker = guarded(server, on_server, ENGINE)
    await server_breaker(search_request)

    old_cli = process(clock, state_file, OLD)  # a CLI run still configured with the old key
    await fail(guarded(old_cli, ScriptedSearch(REJECTED), ENGINE), search_request, AuthFailedError)
    await server_breaker(search_request)  # re-reads the record before calling: not its key, not its suspension
    assert on_server.calls == 2
    assert server.breaker_view("tavily").state == "closed"
    # the process with the old key keeps refusing without asking the provider again
    await refused_without_a_call(old_cli, search_request, ENGINE)
    server.close()
    old_cli.close()


async def test_the_same_key_in_a_running_process_honours_the_suspension(
    clock: FakeClock, search_request: SearchRequest, state_file: Path
) -> None:
    server, cli = process(clock, state_file, OLD), process(clock, state_file, OLD)
    await guarded(server, ScriptedSearch(make_hits()), ENGINE)(search_request)
    await fail(guarded(cli, ScriptedSearch(REJECTED), ENGINE), search_request, AuthFailedError)
    clock.advance(SYNC_INTERVAL)  # the server takes other processes' changes in on this interval
    await refused_without_a_call(server, search_request, ENGINE)
    server.close()
    cli.close()


async def test_reset_closes_the_breaker_and_deletes_its_record(
    clock: FakeClock, search_request: SearchRequest, state_file: Path
) -> None:
    first = process(clock, state_file, OLD)
    await fail(guarded(first, ScriptedSearch(CAPTCHA), ENGINE), search_request, BlockedError)
    first.reset_breaker("tavily")
    assert first.breaker_view("tavily").state == "closed"
    with closing(SqliteBreakerStore(state_file)) as reopened:
        assert reopened.load("tavily") is None
    inner = ScriptedSearch(make_hits())
    await guarded(first, inner, ENGINE)(search_request)
    assert inner.calls == 1
    first.reset_breaker("bing")  # an engine never called: nothing to do, nothing breaks
    assert first.breaker_view("bing").state == "closed"
    first.close()
    with closing(process(clock, state_file, OLD)) as later:
        assert later.breaker_view("tavily").state == "closed"


def test_without_a_fingerprint_a_stored_suspension_is_taken_as_it_is(clock: FakeClock, state_file: Path) -> None:
    store = SqliteBreakerStore(state_file)
    store.save(BreakerRecord("tavily", open_until=clock.now() + DAY, reason="auth_failed", openings=1, fingerprint=OLD))
    with closing(PolicyState(clock=clock, breaker_store=SqliteBreakerStore(state_file))) as reopened:
        assert reopened.breaker_view("tavily").state == "open"
    store.close()


class Provider:
    """A stand-in for tavily's API (an httpx transport): rejects every key but `accepted`, counts requests."""

    def __init__(self, accepted: str) -> None:
        self.accepted = accepted
        self.requests = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        if request.headers.get("authorization") != f"Bearer {self.accepted}":
            return httpx.Response(401, json={"detail": {"error": "Unauthorized: missing or invalid API key."}})
        return httpx.Response(200, json={"results": [{"title": "T", "url": "https://example.org/", "content": "c"}]})


def gateway(provider: Provider, key: str, state_file: Path, clock: FakeClock) -> Gateway:
    settings = Settings(
        engines={"tavily": EngineSettings(api_key=key, base_url="http://tavily.invalid")},
        state=StateSettings(path=state_file),
    )
    return Gateway.from_settings(settings, transport=httpx.MockTransport(provider), clock=clock)


async def test_the_gateway_wires_fingerprints_and_resets_an_engine(clock: FakeClock, state_file: Path) -> None:
    provider = Provider(accepted=GATEWAY_KEY)
    request = SearchRequest(query="python asyncio")
    async with gateway(provider, TEST_KEY, state_file, clock) as old:
        with pytest.raises(AuthFailedError):
            await old.search(request, engine="tavily")
        with pytest.raises(SuspendedError):
            await old.search(request, engine="tavily")
        assert provider.requests == 1
        old.engines.reset("tavily")  # the operator insists: the next search asks the provider again
        with pytest.raises(AuthFailedError):
            await old.search(request, engine="tavily")
        assert provider.requests == 2
        with pytest.raises(InvalidInputError):
            old.engines.reset("altavista")
    async with gateway(provider, TEST_KEY, state_file, clock) as same:
        assert next(s for s in same.engines.statuses() if s.name == "tavily").breaker == "open"
    async with gateway(provider, GATEWAY_KEY, state_file, clock) as fixed:
        assert next(s for s in fixed.engines.statuses() if s.name == "tavily").breaker == "closed"
        response = await fixed.search(request, engine="tavily")
    assert response.results and provider.requests == 3
