"""Offline, honestly: engines that cannot be reached from this machine (no DNS answer, a refused connection).

Real sockets, no machine DNS: names fail through the resolver seam (a StaticResolver that knows no name, under
the guarded transport), refusals come from a loopback port that is bound but never listens. What must hold:
every engine's reason is `unreachable` with its cause, the error says the machine looks offline and names the
fake web, no breaker opens, no rate slot is spent, and the CLI prints one line per engine.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from webreach import AllEnginesFailedError, Gateway, SearchRequest, Settings, UnreachableError
from webreach.net import AddressPolicy, Guard, StaticResolver
from webreach.net.transport import GuardedTransport
from webreach.testing import FakeWeb

pytestmark = pytest.mark.network
ENGINES = ("duckduckgo", "mojeek")


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port that refuses every connection: bound (so nothing else takes it) but not listening."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def settings(base: str, tmp_path: Path, **bases: str) -> Settings:
    engines = {name: {"base_url": bases.get(name, f"{base}/{name}"), "rate_per_minute": 1} for name in ENGINES}
    return Settings(engines=engines, state={"backend": "sqlite", "path": tmp_path / "state.sqlite3"})


async def search_all(gateway: Gateway) -> AllEnginesFailedError:
    with pytest.raises(AllEnginesFailedError) as caught:
        await gateway.search(SearchRequest(query="python asyncio"), engines=list(ENGINES))
    return caught.value


async def test_names_that_do_not_resolve_say_offline_and_trip_nothing(tmp_path: Path) -> None:
    # the seam below httpx: the guarded transport asks a resolver that knows no name (socket.gaierror EAI_NONAME)
    no_dns = GuardedTransport(Guard(AddressPolicy(), StaticResolver({})))
    async with Gateway.from_settings(settings("http://search.engine.test", tmp_path), transport=no_dns) as gateway:
        for _ in range(3):  # more than the breaker's threshold of repeated failures, and than one rate slot
            error = await search_all(gateway)
            assert error.offline
            assert [(e.engine, e.code) for e in error.errors] == [(name, "unreachable") for name in ENGINES]
            assert {e.cause for e in error.errors if isinstance(e, UnreachableError)} == {"dns"}
            assert "looks offline" in error.message
            assert "webreach fakeweb" in error.hint and "WEBREACH_FAKE_WEB" in error.hint
        assert {s.name: s.breaker for s in gateway.engines.statuses() if s.name in ENGINES} == dict.fromkeys(
            ENGINES, "closed"
        )
    await no_dns.aclose()


async def test_refused_connections_say_offline_and_leave_the_state_file_clean(closed_port: int, tmp_path: Path) -> None:
    config = settings(f"http://127.0.0.1:{closed_port}", tmp_path)
    async with Gateway.from_settings(config) as gateway:
        for _ in range(3):
            error = await search_all(gateway)
            assert error.offline
            assert {e.cause for e in error.errors if isinstance(e, UnreachableError)} == {"refused"}
            # rate 1/min: a spent slot would make the next search `throttled` instead of asking again
            assert {a.status for a in error.attempts} == {"error"}
    async with Gateway.from_settings(config) as later:  # another process reading the same state file
        assert {s.breaker for s in later.engines.statuses()} == {"closed"}


async def test_an_engine_that_answered_means_not_offline(tmp_path: Path) -> None:
    # duckduckgo's name does not resolve; mojeek is reached (the fake web on loopback) and answers with a wall
    no_dns = GuardedTransport(Guard(AddressPolicy(["127.0.0.0/8"]), StaticResolver({})))
    async with FakeWeb() as web:
        web.set_scenario("mojeek", fault="captcha")
        config = settings("http://search.engine.test", tmp_path, mojeek=web.engine_url("mojeek"))
        async with Gateway.from_settings(config, transport=no_dns) as gateway:
            error = await search_all(gateway)
    await no_dns.aclose()
    assert not error.offline
    assert [e.code for e in error.errors] == ["unreachable", "blocked"]
    assert "offline" not in error.message and "fakeweb" not in error.hint


@pytest.mark.slow
def test_the_cli_prints_offline_and_one_line_per_engine(closed_port: int, tmp_path: Path) -> None:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "WEBREACH_CONFIG": os.devnull,
        **{f"WEBREACH_ENGINES__{n.upper()}__BASE_URL": f"http://127.0.0.1:{closed_port}/{n}" for n in ENGINES},
    }
    command = [sys.executable, "-m", "webreach", "search", "python asyncio", "--engines", ",".join(ENGINES)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path)
    print(done.stderr, file=sys.stderr)
    assert done.returncode == 4
    first, *engines = done.stderr.strip().splitlines()
    assert first.startswith("error [all_engines_failed]: this machine looks offline")
    assert "webreach fakeweb" in first and "WEBREACH_FAKE_WEB" in first
    assert [line.split(":")[0].strip() for line in engines] == list(ENGINES)
    assert all(": unreachable: " in line and "refused" in line for line in engines)
    listed = subprocess.run(
        [sys.executable, "-m", "webreach", "engines", "--json"], capture_output=True, text=True, timeout=60,
        env=env, cwd=tmp_path,
    )  # fmt: skip
    assert '"open"' not in listed.stdout, "a refused connection opened a breaker in the state file"
