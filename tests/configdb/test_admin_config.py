"""The admin API for the console's settings, in process (Starlette's TestClient): secrets are write-only, bad
input is a typed 400 naming what to fix, null removes the console's value, and the admin gate applies."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from secret_keys import CONSOLE_KEY, PROXY_PASSWORD
from webreach.config import AccountsSettings, ServerSettings, Settings
from webreach.frontends.http import build_app
from webreach.testing import FakeWeb

pytestmark = pytest.mark.network
BASE = "http://127.0.0.1:9090"
TOKEN = "config-admin-token-2718-0123456789abcdef"


def client(web: FakeWeb, tmp_path: Path) -> TestClient:
    settings = Settings(
        fake_web=web.url,
        state={"backend": "memory"},  # type: ignore[arg-type]
        accounts=AccountsSettings(database=str(tmp_path / "accounts.sqlite3")),
        secret_key_file=tmp_path / "secret.key",
    )
    app = build_app(settings, server=ServerSettings(port=9090, admin_token=TOKEN))
    return TestClient(app, base_url=BASE, client=("127.0.0.1", 50000))


def test_config_api_keeps_secrets_write_only_and_checks_input(web: FakeWeb, tmp_path: Path) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with client(web, tmp_path) as api:
        assert api.get("/v1/admin/config").status_code == 401  # the gate: a token is configured
        saved = api.post("/v1/admin/config", headers=auth, json={"engines": {"tavily": {"api_key": CONSOLE_KEY}}})
        assert saved.status_code == 200 and CONSOLE_KEY not in saved.text
        key = saved.json()["engines"]["tavily"]["api_key"]
        assert key["winner"] == "console" and key["layers"][0]["value"] == "set (hidden)"
        assert key["variable"] == "WEBREACH_ENGINES__TAVILY__API_KEY"
        for bad in (
            {"engines": {"tavily": {"timeout": -1}}},
            {"engines": {"tavily": {"colour": "blue"}}},
            {"engines": {"nope": {"timeout": 3}}},
            {"auto_order": ["mojeek", "nope"]},
            {"auto_order": "mojeek"},
            {"engines": {"searxng": {"base_url": "gopher://x"}}},
            {"something": 1},
        ):
            refused = api.post("/v1/admin/config", headers=auth, json=bad)
            assert refused.status_code == 400 and refused.json()["code"] == "invalid_input", bad
        assert api.post("/v1/admin/config", headers=auth, content=b"{").json()["code"] == "invalid_input"
        removed = api.post("/v1/admin/config", headers=auth, json={"engines": {"tavily": {"api_key": None}}})
        assert removed.json()["engines"]["tavily"]["api_key"]["winner"] == "default"
        assert CONSOLE_KEY not in api.get("/v1/admin/config", headers=auth).text


def test_settings_changes_are_audited_without_their_values(web: FakeWeb, tmp_path: Path) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with client(web, tmp_path) as api:
        change = {"engines": {"tavily": {"api_key": CONSOLE_KEY, "rate_per_minute": 30}}, "auto_order": ["mojeek"]}
        assert api.post("/v1/admin/config", headers=auth, json=change).status_code == 200
        assert api.post("/v1/admin/config", headers=auth, json={"auto_order": None}).status_code == 200
        refused = api.post("/v1/admin/config", headers=auth, json={"engines": {"nope": {"timeout": 3}}})
        audit = api.get("/v1/admin/audit", headers=auth).json()["audit"]
    assert refused.status_code == 400
    assert [(entry["actor"], entry["action"], entry["target"]) for entry in audit] == [
        ("admin-api", "settings", "settings")
    ] * 2  # the refused change wrote nothing
    assert audit[0]["detail"] == {"set": [], "removed": ["routing.auto_order"]}
    assert audit[1]["detail"]["set"] == ["engine:tavily.api_key", "engine:tavily.rate_per_minute", "routing.auto_order"]
    assert CONSOLE_KEY not in repr(audit)


def test_provider_settings_options_and_one_default(
    web: FakeWeb, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    monkeypatch.setenv("WEBREACH_ENGINES__BOCHA__DEFAULT", "true")
    with client(web, tmp_path) as api:
        for bad in (
            {"engines": {"serpapi": {"options": {"engine": ""}}}},
            {"engines": {"serpapi": {"options": {"bad key": "x"}}}},
            {"engines": {"serpapi": {"options": ["engine=baidu"]}}},
            {"engines": {"serpapi": {"display_name": "x" * 65}}},
            {"engines": {"serpapi": {"default": "yes"}}},
            {"engines": {"serpapi": {"default": True}, "tavily": {"default": True}}},  # two defaults at once
        ):
            refused = api.post("/v1/admin/config", headers=auth, json=bad)
            assert refused.status_code == 400 and refused.json()["code"] == "invalid_input", bad
        # the environment makes bocha the default: the console cannot make another one behind its back
        pinned = api.post("/v1/admin/config", headers=auth, json={"engines": {"serpapi": {"default": True}}})
        assert pinned.status_code == 400 and "WEBREACH_ENGINES__BOCHA__DEFAULT" in pinned.json()["message"]
        monkeypatch.delenv("WEBREACH_ENGINES__BOCHA__DEFAULT")
    with client(web, tmp_path) as api:
        body = {"engines": {"serpapi": {"options": "engine=baidu, hl=zh", "display_name": "Baidu", "default": True}}}
        saved = api.post("/v1/admin/config", headers=auth, json=body).json()["engines"]["serpapi"]
        assert saved["options"]["layers"][0] == {"source": "console", "value": "engine=baidu, hl=zh"}
        assert saved["display_name"]["winner"] == "console" and saved["default"]["winner"] == "console"
        moved = api.post("/v1/admin/config", headers=auth, json={"engines": {"tavily": {"default": True}}}).json()
        assert moved["engines"]["serpapi"]["default"]["layers"][0] == {"source": "console", "value": "false"}
        assert moved["engines"]["tavily"]["default"]["layers"][0] == {"source": "console", "value": "true"}


def test_the_cache_ttl_and_size_are_set_in_the_database(web: FakeWeb, tmp_path: Path) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with client(web, tmp_path) as api:
        shown = api.get("/v1/admin/config", headers=auth).json()["cache"]
        assert shown["ttl_seconds"]["winner"] == "default" and shown["max_entries"]["layers"][0]["value"] == "2000"
        assert shown["ttl_seconds"]["variable"] == "WEBREACH_CACHE__TTL_SECONDS"
        for bad in ({"cache": {"ttl_seconds": -1}}, {"cache": {"max_entries": 0}}, {"cache": {"max_entries": 1.5}},
                    {"cache": {"size": 3}}, {"cache": [900]}):  # fmt: skip
            refused = api.post("/v1/admin/config", headers=auth, json=bad)
            assert refused.status_code == 400 and refused.json()["code"] == "invalid_input", bad
        saved = api.post("/v1/admin/config", headers=auth, json={"cache": {"ttl_seconds": 900, "max_entries": 100}})
        cache = saved.json()["cache"]
        assert cache["ttl_seconds"]["layers"][0] == {"source": "console", "value": "900"}
        assert cache["max_entries"]["layers"][0] == {"source": "console", "value": "100"}


def test_network_proxy_is_set_shown_redacted_and_removed(web: FakeWeb, tmp_path: Path) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    url = f"http://agent:{PROXY_PASSWORD}@proxy.example:3128"
    with client(web, tmp_path) as api:
        saved = api.post("/v1/admin/config", headers=auth, json={"network": {"proxy": url}})
        assert saved.status_code == 200 and PROXY_PASSWORD not in saved.text
        proxy = saved.json()["network"]["proxy"]
        assert proxy["winner"] == "console" and proxy["variable"] == "WEBREACH_NETWORK__PROXY"
        assert proxy["layers"][0]["value"] == "http://***@proxy.example:3128"
        for bad in ({"network": {"proxy": "ftp://proxy.example:21"}}, {"network": {"dns": "1.1.1.1"}}, {"network": 3}):
            refused = api.post("/v1/admin/config", headers=auth, json=bad)
            assert refused.status_code == 400 and refused.json()["code"] == "invalid_input", bad
        removed = api.post("/v1/admin/config", headers=auth, json={"network": {"proxy": None}})
        assert removed.json()["network"]["proxy"]["winner"] == "default"
        assert PROXY_PASSWORD not in api.get("/v1/admin/config", headers=auth).text
