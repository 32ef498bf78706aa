"""An agent's tool surface (issue 39 Deliver 1, contract E): `profile.surface` names a drop-in profile the agent sees
instead of webreach's tools. Stored with the agent on SQLite and PostgreSQL (the options column, no new column),
set alike at the CLI (`agents set NAME --profile`), over the admin API and in the console, and checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from webreach import Gateway, Settings
from webreach.errors import InvalidInputError
from webreach.frontends._body_limits import carries_images
from webreach.testing import FakeWeb
from webreach.tools import Toolbox

from .servers import operator
from .test_agent_update import START, cli_set, console_set, ledger_with_agent, rest_set, stored

SURFACE = {"surface": "credits-server"}


def test_the_surface_is_stored_with_the_agent_on_both_ledgers(database_url: str) -> None:
    with operator(database_url) as accounts:
        accounts.add("crew", credits=10)
        accounts.add("plain", credits=10)
        accounts.update_agent("crew", profile=SURFACE)
        with pytest.raises(InvalidInputError, match="credits-server") as refused:
            accounts.update_agent("plain", profile={"surface": "credits_server"})
        assert refused.value.code == "invalid_input"
    with operator(database_url) as accounts:  # read back through a new connection
        assert accounts.agent("crew").options == {"profile": SURFACE}
        assert accounts.profile("crew") == SURFACE and accounts.profile("plain") == {}
        assert accounts.update_agent("crew", profile={"surface": None}).options == {}


def test_every_door_sets_the_same_surface(web: FakeWeb, tmp_path: Path) -> None:
    homes = [tmp_path / door for door in ("cli", "rest", "console")]
    for home in homes:
        home.mkdir()
    cli, rest, console = (ledger_with_agent(home) for home in homes)
    cli_set(cli, "--profile", "credits-server")
    rest_set(web, rest, {"profile": SURFACE})
    form = {"per_hour": "100", "per_day": "1000", "tool_web_search": "on", "tool_web_fetch": "on"}
    console_set(web, console, form | {"max_results": "5", "surface": "credits-server"})
    expected = {**START, "profile": {**START["profile"], **SURFACE}}
    assert stored(cli)["options"] == expected
    assert stored(rest) == stored(cli) and stored(console) == stored(cli)
    cli_set(cli, "--profile", "none")  # back to webreach's own tools
    assert stored(cli)["options"] == START


async def test_two_agents_of_one_toolbox_see_different_surfaces(web: FakeWeb, tmp_path: Path) -> None:
    database = str(tmp_path / "ledger.sqlite3")
    with operator(database) as accounts:
        accounts.add("crew", credits=10)
        accounts.add("plain", credits=10)
        accounts.update_agent("crew", profile=SURFACE)
    settings = Settings(fake_web=web.url, state={"backend": "memory"}, accounts={"enabled": True, "database": database})
    async with Gateway.from_settings(settings) as gateway:
        tools = Toolbox.over(gateway)
        crew = await tools.caller_schemas("openai-responses", "crew")
        plain = await tools.caller_schemas("openai-responses", "plain")
        refused = await tools.call("web_search", {"query": "python asyncio", "limit": 3}, caller="crew")
        # an agent's surface may have image tools the server's own surface lacks: they get the image body cap
        assert carries_images(tools, "crop_images_by_token") and not carries_images(tools, "web_search")
    assert [(schema["name"], set(schema["parameters"]["properties"])) for schema in crew] == [
        ("web_search", {"query"}),
        ("web_fetch", {"url"}),
    ]
    assert "web_search_multi" in {schema["name"] for schema in plain}
    assert refused.is_error and refused.data is not None and refused.data["code"] == "invalid_input"
    assert "limit" in refused.data["message"]  # the contract's web_search takes the query alone
