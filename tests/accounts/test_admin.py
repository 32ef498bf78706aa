"""Administration: the /v1/admin/agents API behind the admin gate, and `webreach agents` on the same ledger."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from webreach.config import ServerSettings, Settings
from webreach.frontends.http import build_app
from webreach.testing import FakeWeb
from webreach.testing.environment import process_env

pytestmark = pytest.mark.network
BASE = "http://127.0.0.1:9090"
SEARCH = {"query": "python asyncio", "engine": "mojeek"}


def app(web: FakeWeb, database: str, client: tuple[str, int] = ("127.0.0.1", 40000)) -> TestClient:
    settings = Settings(fake_web=web.url, state={"backend": "memory"}, accounts={"enabled": True, "database": database})
    return TestClient(build_app(settings, server=ServerSettings(port=9090)), base_url=BASE, client=client)


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_the_admin_api_manages_agents_and_their_keys(web: FakeWeb, tmp_path: Path) -> None:
    with app(web, str(tmp_path / "l.sqlite3")) as admin:
        added = admin.post("/v1/admin/agents", json={"name": "bot", "credits": 10, "per_hour": 100}).json()
        key = added["key"]
        assert added["agent"]["balance"] == 10 and added["agent"]["per_hour"] == 100
        assert admin.post("/v1/admin/agents", json={"name": "bot"}).status_code == 400
        assert admin.post("/v1/admin/agents", json={"name": "../x"}).json()["code"] == "invalid_input"
        assert admin.post("/v1/search", json=SEARCH, headers=bearer(key)).json()["cost"]["balance"] == 8
        assert admin.post("/v1/admin/agents/bot/grant", json={"credits": 5}).json()["balance"] == 13
        listed = admin.get("/v1/admin/agents").json()["agents"]
        assert [agent["name"] for agent in listed] == ["bot"] and key not in json.dumps(listed)
        shown = admin.get("/v1/admin/agents/bot").json()
        assert shown["quota"]["hour_used"] == 1 and shown["recent"][0]["kind"] == "grant"
        assert [(call["tool"], call["charged"], call["state"]) for call in shown["calls"]] == [
            ("web_search", 2, "committed")
        ]
        rotated = admin.post("/v1/admin/agents/bot/rotate-key").json()["key"]
        assert admin.post("/v1/search", json=SEARCH, headers=bearer(key)).status_code == 401
        assert admin.post("/v1/search", json=SEARCH, headers=bearer(rotated)).status_code == 200
        settings = {"profile": {"tools": ["web_search"]}, "prices": {"web_search": 1}}
        assert admin.post("/v1/admin/agents/bot/settings", json=settings).json()["options"] == settings
        tools = admin.get("/v1/tools", params={"dialect": "mcp"}, headers=bearer(rotated)).json()
        assert [tool["name"] for tool in tools] == ["web_search"]
        assert admin.post("/v1/admin/agents/bot/disable", json={"disabled": True}).json()["disabled"] is True
        refused = admin.post("/v1/search", json=SEARCH, headers=bearer(rotated))
        journal = admin.get("/v1/admin/agents/bot/ledger").json()["journal"]
    assert refused.status_code == 401 and "disabled" in refused.json()["message"]
    assert sum(row["amount"] for row in journal) == 11
    assert [row["kind"] for row in journal] == ["reserve", "grant", "reserve", "grant"]  # whole commits: no row


def test_a_deleted_agents_journal_stays_readable_in_the_archive(web: FakeWeb, tmp_path: Path) -> None:
    with app(web, str(tmp_path / "l.sqlite3")) as admin:
        key = admin.post("/v1/admin/agents", json={"name": "bot", "credits": 10}).json()["key"]
        assert admin.post("/v1/search", json=SEARCH, headers=bearer(key)).json()["cost"]["balance"] == 8
        assert admin.get("/v1/admin/agents/bot/archive").json()["archive"] == []
        assert admin.post("/v1/admin/agents/bot/delete").json()["balance"] == 8
        archive = admin.get("/v1/admin/agents/bot/archive").json()["archive"]
    # a whole commit writes no row: the reserve row says what the call cost
    assert [(row["kind"], row["amount"], row["tool"]) for row in archive] == [
        ("grant", 10, ""),
        ("reserve", -2, "web_search"),
    ]
    assert sum(row["amount"] for row in archive) == 8 and len({row["deleted"] for row in archive}) == 1


def test_the_admin_api_refuses_other_machines(web: FakeWeb, tmp_path: Path) -> None:
    with app(web, str(tmp_path / "l.sqlite3"), client=("203.0.113.9", 40000)) as remote:
        refused = remote.post("/v1/admin/agents", json={"name": "bot"})
    assert refused.status_code == 401 and refused.json()["code"] == "admin_required"


def cli(home: Path, *args: str, **settings: str) -> subprocess.CompletedProcess[str]:
    env = process_env(home, **settings)
    command = [sys.executable, "-m", "webreach", "agents", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.slow
def test_the_agents_command_works_on_the_default_ledger(tmp_path: Path) -> None:
    added = json.loads(cli(tmp_path, "add", "crawler", "--credits", "100", "--per-hour", "none", "--json").stdout)
    assert added["agent"]["per_hour"] is None and added["key"].startswith("wr_")
    assert cli(tmp_path, "grant", "crawler", "5", "--note", "top up").stdout.startswith("crawler: balance 105")
    assert cli(tmp_path, "add", "crawler").returncode == 2
    shaped = cli(tmp_path, "set", "crawler", "--tools", "web_search", "--max-results", "3", "--json")
    set_to: dict[str, Any] = json.loads(shaped.stdout)
    assert set_to["options"]["profile"] == {"tools": ["web_search"], "max_results": 3}
    rotated = cli(tmp_path, "rotate-key", "crawler")
    assert "new key for crawler" in rotated.stdout and added["key"] not in rotated.stdout
    assert "(disabled)" in cli(tmp_path, "disable", "crawler").stdout
    ledger = json.loads(cli(tmp_path, "ledger", "crawler", "--json").stdout)
    assert [row["amount"] for row in ledger] == [5, 100]
    missing = cli(tmp_path, "show", "nobody")
    assert missing.returncode == 2 and "no agent 'nobody'" in missing.stderr
    assert (tmp_path / "data" / "webreach" / "accounts.sqlite3").exists()


@pytest.mark.slow
def test_cli_calls_act_as_the_named_agent_and_print_their_cost(web: FakeWeb, tmp_path: Path) -> None:
    cli(tmp_path, "add", "crawler", "--credits", "3")
    env = process_env(  # with PYTHONPATH: the tree under test, not the venv's install, reads the ledger
        tmp_path,
        WEBREACH_FAKE_WEB=web.url,
        WEBREACH_STATE__BACKEND="memory",
        WEBREACH_ACCOUNTS__ENABLED="true",
    )
    command = [sys.executable, "-m", "webreach", "search", "python asyncio", "-e", "mojeek", "--format", "compact"]

    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*command, *extra], env=env, capture_output=True, text=True, timeout=60, check=False)

    anonymous, first, second = run(), run("--agent", "crawler"), run("--agent", "crawler")
    assert anonymous.returncode == 3 and "agent_auth_failed" in anonymous.stderr
    assert first.returncode == 0 and "[cost: 2 credits; balance 1;" in first.stderr
    assert second.returncode == 3 and "insufficient_credits" in second.stderr
    shown = cli(tmp_path, "show", "crawler").stdout.splitlines()
    assert shown[:2] == ["crawler: balance 1, 10/hour", "quota: 1 calls this hour, 9 calls left"]
    assert shown[2] == "recent calls:" and len(shown) == 4  # the refused call reserved nothing
    assert shown[3].split()[1:] == ["web_search", "charged", "2"] and shown[3].split()[0].endswith("Z")


def test_the_audit_log_names_the_door_of_each_change(web: FakeWeb, tmp_path: Path) -> None:
    database = str(tmp_path / "l.sqlite3")
    with app(web, database) as admin:
        assert admin.post("/v1/admin/agents", json={"name": "bot", "credits": 10}).status_code == 200
        admin.post("/v1/admin/agents/bot/grant", json={"credits": 5, "note": "pilot"})
        key = admin.post("/v1/admin/agents/bot/rotate-key").json()["key"]
    on_the_ledger = {"WEBREACH_ACCOUNTS__ENABLED": "true", "WEBREACH_ACCOUNTS__DATABASE": database}
    granted = cli(tmp_path, "grant", "bot", "2", "--note", "from the shell", "--json", **on_the_ledger)
    assert granted.returncode == 0, granted.stderr
    with app(web, database) as admin:
        listed = admin.get("/v1/admin/audit").json()["audit"]
        of_bot = admin.get("/v1/admin/audit", params={"agent": "bot", "limit": 1}).json()["audit"]
    assert [(entry["actor"], entry["action"]) for entry in listed] == [
        ("cli", "grant"), ("admin-api", "rotate-key"), ("admin-api", "grant"), ("admin-api", "add"),
    ]  # fmt: skip
    assert of_bot == listed[:1] and listed[0]["detail"] == {"credits": 2, "note": "from the shell"}
    assert key not in json.dumps(listed)
    shown = cli(tmp_path, "audit", "--agent", "bot", "--limit", "2", **on_the_ledger)
    assert shown.returncode == 0 and shown.stdout.splitlines()[0].split()[1:3] == ["cli", "grant"], shown.stdout
    assert len(shown.stdout.splitlines()) == 2


def test_the_agents_command_makes_expiring_keys_and_deletes_agents(tmp_path: Path) -> None:
    added = json.loads(cli(tmp_path, "add", "expiring", "--credits", "3", "--key-days", "7", "--json").stdout)
    assert added["agent"]["key_expires"].endswith("Z")
    rotated = json.loads(cli(tmp_path, "rotate-key", "expiring", "--key-days", "1", "--json").stdout)
    assert rotated["key"] != added["key"]
    assert cli(tmp_path, "rotate-key", "expiring", "--key-days", "0").returncode == 2  # out of range: typed
    assert cli(tmp_path, "delete", "expiring").returncode == 2  # --yes is required
    assert cli(tmp_path, "delete", "expiring", "--yes").stdout.startswith("deleted expiring (3 credits went with it)")
    assert "no agent 'expiring'" in cli(tmp_path, "show", "expiring").stderr
