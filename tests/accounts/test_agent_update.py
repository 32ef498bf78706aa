"""One agent update, one merge rule (issue 36, Deliver 2): `webreach agents set`, POST /v1/admin/agents/{name}/settings
and the console's settings form all call Accounts.update_agent, so the same partial change gives the same stored
agent at each door (the REST door used to replace prices and the profile wholesale, dropping what it was not sent)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from webreach.config import ServerSettings, Settings
from webreach.errors import InvalidInputError
from webreach.frontends._cli_agents import agents
from webreach.frontends.http import build_app
from webreach.testing import FakeWeb

from .servers import operator

pytestmark = pytest.mark.network
BASE = "http://127.0.0.1:9090"
START = {
    "prices": {"web_search": 3, "web_fetch": 2},
    "profile": {"tools": ["web_search", "web_fetch"], "max_results": 5},
}


def ledger_with_agent(home: Path) -> str:
    database = str(home / "ledger.sqlite3")
    with operator(database) as accounts:
        accounts.add("crawler", credits=10, per_hour=100, per_day=1000)
        accounts.set_options("crawler", START)
    return database


def stored(database: str) -> dict[str, Any]:
    with operator(database) as accounts:
        agent = accounts.ledger.agent("crawler").to_json()
    return {key: agent[key] for key in ("per_hour", "per_day", "options", "balance", "disabled")}


def app(web: FakeWeb, database: str) -> TestClient:
    settings = Settings(fake_web=web.url, state={"backend": "memory"}, accounts={"enabled": True, "database": database})
    return TestClient(build_app(settings, server=ServerSettings(port=9090)), base_url=BASE, client=("127.0.0.1", 4000))


def cli_set(database: str, *args: str) -> None:
    env = {"WEBREACH_CONFIG": os.devnull, "WEBREACH_ACCOUNTS__DATABASE": database}
    result = CliRunner().invoke(agents, ["set", "crawler", *args, "--json"], env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output


def rest_set(web: FakeWeb, database: str, body: dict[str, Any]) -> None:
    with app(web, database) as client:
        answer = client.post("/v1/admin/agents/crawler/settings", json=body)
    assert answer.status_code == 200, answer.text


def console_set(web: FakeWeb, database: str, fields: dict[str, str]) -> None:
    with app(web, database) as client:
        page = client.get("/console/agents/crawler")
        assert page.status_code == 200, page.text[:300]
        csrf = re.findall(r'name="csrf" value="([^"]*)"', page.text)[0]
        answer = client.post("/console/agents/crawler/settings", data={"csrf": csrf, **fields}, follow_redirects=False)
        assert answer.status_code == 303
        assert "saved" in client.get(answer.headers["location"]).text


def test_the_same_partial_change_at_every_door_gives_the_same_agent(web: FakeWeb, tmp_path: Path) -> None:
    homes = [tmp_path / door for door in ("cli", "rest", "console")]
    for home in homes:
        home.mkdir()
    cli, rest, console = (ledger_with_agent(home) for home in homes)
    cli_set(cli, "--max-results", "7")
    rest_set(web, rest, {"profile": {"max_results": 7}})
    # the console's form shows every field as stored; the operator changed only the largest result count
    form = {"per_hour": "100", "per_day": "1000", "tool_web_search": "on", "tool_web_fetch": "on", "max_results": "7"}
    console_set(web, console, form)
    expected = {**START, "profile": {"tools": ["web_search", "web_fetch"], "max_results": 7}}
    assert stored(cli)["options"] == expected
    assert stored(rest) == stored(cli)
    assert stored(console) == stored(cli)


def test_a_price_change_merges_per_tool_at_the_cli_and_over_rest(web: FakeWeb, tmp_path: Path) -> None:
    (tmp_path / "cli").mkdir()
    (tmp_path / "rest").mkdir()
    cli, rest = ledger_with_agent(tmp_path / "cli"), ledger_with_agent(tmp_path / "rest")
    cli_set(cli, "--price", "web_fetch=1", "--per-hour", "50")
    rest_set(web, rest, {"prices": {"web_fetch": 1}, "per_hour": 50})
    assert stored(cli)["options"]["prices"] == {"web_search": 3, "web_fetch": 1}
    assert stored(rest) == stored(cli) and stored(rest)["per_day"] == 1000


def test_update_agent_keeps_what_is_left_out_and_removes_what_is_null(tmp_path: Path) -> None:
    database = ledger_with_agent(tmp_path)
    with operator(database) as accounts:
        agent = accounts.update_agent("crawler", prices={"web_fetch": None}, profile={"tools": None})
        assert agent.options == {"prices": {"web_search": 3}, "profile": {"max_results": 5}}
        assert (agent.per_hour, agent.per_day) == (100, 1000)
        agent = accounts.update_agent("crawler", limits={"per_day": None}, prices={"web_search": None})
        assert agent.options == {"profile": {"max_results": 5}} and (agent.per_hour, agent.per_day) == (100, None)
        for bad in ({"prices": {"web_search": -1}}, {"prices": ["web_search"]}, {"profile": {"max_results": 0}}):
            with pytest.raises(InvalidInputError):
                accounts.update_agent("crawler", **bad)
        with pytest.raises(InvalidInputError):
            accounts.update_agent("crawler", limits={"per_week": 3})
        assert accounts.agent("crawler").options == {"profile": {"max_results": 5}}


def test_concurrent_updates_of_different_prices_all_land(tmp_path: Path) -> None:
    """The merge reads the agent inside the update's own locked transaction: two operators (two processes' worth
    of ledgers on one file) setting prices of different tools at once lose neither change."""
    import threading

    database = ledger_with_agent(tmp_path)
    tools = [f"tool_{n}" for n in range(16)]
    with operator(database) as first, operator(database) as second:

        def set_price(n: int) -> None:
            (first if n % 2 else second).update_agent("crawler", prices={tools[n]: n + 1})

        workers = [threading.Thread(target=set_price, args=(n,)) for n in range(len(tools))]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=60)
    prices = stored(database)["options"]["prices"]
    assert prices == {**START["prices"], **{tool: n + 1 for n, tool in enumerate(tools)}}
