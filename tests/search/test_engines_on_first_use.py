"""Engines are built on first use (issue 38, idle memory): a started server, and a Gateway listing, ordering and
checking its engines, hold no engine module and no selectolax; a search imports the engine it asks, and only it.
Two first calls at once build one engine. Checked on sys.modules in a fresh interpreter, never by timing."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from webreach.config import EngineSettings, Settings
from webreach.engines import ENGINES, EngineInfo
from webreach.gateway import Gateway
from webreach.models import SearchRequest
from webreach.search.engine_set import EngineSet
from webreach.testing import FakeWeb
from webreach.testing.environment import process_env

# what a fresh interpreter reports: the engine modules (webreach.engines.<name>) and selectolax it has loaded
REPORT = (
    "def loaded():\n"
    f"    names = [f'webreach.engines.{{n}}' for n in {sorted(ENGINES)!r}] + ['selectolax']\n"
    "    return [m.rpartition('.')[2] for m in names if m in sys.modules]\n"
)

SERVE = REPORT + (
    "import json, sys\n"
    "from starlette.testclient import TestClient\n"
    "from webreach.config import ServerSettings, Settings\n"
    "from webreach.frontends.http import build_app\n"
    "app = build_app(Settings(fake_web=sys.argv[1]), server=ServerSettings(allowed_hosts=['*']))\n"
    "with TestClient(app, base_url='http://127.0.0.1') as client:\n"  # the lifespan ran: `webreach serve`, idle
    "    idle = loaded()\n"
    "    tools = client.get('/v1/tools', params={'dialect': 'mcp'}).status_code\n"
    "    after_listing = loaded()\n"
    "    answer = client.post('/v1/search', json={'query': 'python asyncio', 'engine': 'duckduckgo'})\n"
    "print(json.dumps({'idle': idle, 'after_listing': after_listing, 'tools': tools,\n"
    "                  'status': answer.status_code, 'results': len(answer.json().get('results', [])),\n"
    "                  'after_search': loaded()}))\n"
)

GATEWAY = REPORT + (
    "import asyncio, json, sys\n"
    "from webreach.config import Settings\n"
    "from webreach.gateway import Gateway\n"
    "from webreach.models import SearchRequest\n"
    "async def main():\n"
    "    settings = Settings(fake_web=sys.argv[1], state={'backend': 'memory'})\n"
    "    async with Gateway.from_settings(settings) as gateway:\n"
    "        idle = loaded()\n"
    "        names = gateway.engine_names()\n"
    "        statuses = gateway.engines.statuses()\n"
    "        order = gateway._searching.auto_order('python asyncio')\n"
    "        usable = [n for n in names if gateway._searching.usable(n)]\n"
    "        unknown = settings.unknown_engines(names)\n"
    "        after_listing = loaded()\n"
    "        answer = await gateway.search(SearchRequest.create(query='python asyncio'))\n"
    "        return {'idle': idle, 'after_listing': after_listing, 'names': len(names), 'order': order,\n"
    "                'statuses': len(statuses), 'usable': usable, 'unknown': unknown,\n"
    "                'engine': answer.meta.engines_used, 'results': len(answer.results), 'after_search': loaded()}\n"
    "print(json.dumps(asyncio.run(main())))\n"
)


async def run(script: str, web: FakeWeb, tmp_path: Path) -> dict[str, Any]:
    argv = [sys.executable, "-c", script, web.url]
    env = process_env(tmp_path, WEBREACH_FAKE_WEB=web.url)
    done = await asyncio.to_thread(subprocess.run, argv, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return seen


@pytest.mark.network
async def test_an_idle_server_holds_no_engine_and_a_search_loads_only_its_own(tmp_path: Path) -> None:
    async with FakeWeb() as web:
        seen = await run(SERVE, web, tmp_path)
    assert seen["idle"] == [] and seen["after_listing"] == []
    assert seen["tools"] == 200  # the tool schemas' engine enums come from the table
    assert seen["status"] == 200 and seen["results"] > 0
    assert seen["after_search"] == ["duckduckgo", "selectolax"]


@pytest.mark.network
async def test_listing_ordering_and_checking_engines_imports_none_and_auto_builds_what_it_asks(
    tmp_path: Path,
) -> None:
    async with FakeWeb() as web:
        seen = await run(GATEWAY, web, tmp_path)
    assert seen["idle"] == [] and seen["after_listing"] == []
    assert seen["names"] == len([n for n, info in ENGINES.items() if info.vertical == "web"])
    assert seen["statuses"] > seen["names"] and seen["unknown"] == []
    assert seen["order"] and set(seen["order"]) <= set(seen["usable"])
    assert seen["results"] > 0 and seen["engine"][0] in seen["after_search"]
    assert "selectolax" in seen["after_search"]
    assert set(seen["after_search"]) - {"selectolax"} <= set(seen["order"])  # no engine auto did not ask


def test_two_first_calls_at_once_build_one_engine() -> None:
    """Threads asking a new engine together get one instance: the build holds a lock (without it, the first
    build would see the second one start while it waits)."""
    entered: list[str] = []
    second = threading.Event()

    def build(info: EngineInfo, settings: EngineSettings) -> Any:
        entered.append(info.name)
        if len(entered) > 1:
            second.set()
        second.wait(timeout=1.0)  # a second build entering at once would set it: the lock keeps it out
        return object(), object()

    engines = EngineSet({"bing": ENGINES["bing"]}, lambda name: EngineSettings(), build)
    start = threading.Barrier(4)
    got: list[object] = []

    def ask() -> None:
        start.wait()
        got.append(engines.engine("bing"))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert entered == ["bing"] and len(got) == 4 and len({id(g) for g in got}) == 1
    assert engines.built() == ["bing"] and not second.is_set()


async def test_concurrent_first_searches_share_one_engine(tmp_path: Path) -> None:
    """Tasks searching one new engine together (named, and in auto's order) share its instance and policy stack."""
    async with FakeWeb() as web:
        settings = Settings(
            fake_web=web.url, state={"backend": "memory"}, cache={"backend": "none"},
            engines={"mojeek": {"rate_per_minute": 6000}},
        )  # fmt: skip
        async with Gateway.from_settings(settings) as gateway:
            searching = gateway._searching
            assert searching._engines.built() == []
            answers = await asyncio.gather(
                *(searching.search(SearchRequest.create(query=f"q{i}"), engine="mojeek") for i in range(4))
            )
            assert all(answer.results for answer in answers)
            assert searching._engines.built() == ["mojeek"]
            assert len(web.requests("mojeek")) == 4
