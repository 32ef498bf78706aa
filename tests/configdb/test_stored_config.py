"""The console's settings in the database, on SQLite and PostgreSQL: the precedence rule (environment over the
console over webreach.toml over defaults), secrets sealed at rest and never shown, a lost key leaving the engine
not_configured with a message, and the version another gateway polls."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from pydantic import SecretStr

from secret_keys import CONSOLE_KEY
from webreach.accounts.database import open_database
from webreach.clock import SystemClock
from webreach.config import AccountsSettings, Settings
from webreach.configdb.service import StoredConfig, check_value
from webreach.configdb.store import ConfigStore
from webreach.errors import InvalidInputError, NotConfiguredError
from webreach.gateway import Gateway
from webreach.models import SearchRequest


def settings_on(database: str, tmp_path: Path, **fields: object) -> Settings:
    return Settings(
        accounts=AccountsSettings(database=database),
        state={"backend": "memory"},
        secret_key_file=tmp_path / "secret.key",
        **fields,  # type: ignore[arg-type]
    )


def winner(gateway: Gateway, engine: str, field: str) -> str:
    view = next(v for v in gateway.config.stored.engine_view(engine) if v.field == field)
    return view.winner


async def test_console_overrides_the_file_and_the_environment_overrides_both(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    toml = tmp_path / "webreach.toml"
    toml.write_text("[engines.mojeek]\nrate_per_minute = 10\ntimeout = 12\nbase_url = 'http://127.0.0.1:1/mojeek'\n")
    monkeypatch.setenv("WEBREACH_CONFIG", str(toml))
    monkeypatch.setenv("WEBREACH_ENGINES__MOJEEK__TIMEOUT", "7")
    async with Gateway.from_settings(settings_on(database_url, tmp_path)) as gateway:
        assert gateway.settings.engine("mojeek").rate_per_minute == 10
        gateway.config.change({("engine:mojeek", "rate_per_minute"): 20, ("engine:mojeek", "timeout"): 3})
        mojeek = gateway.settings.engine("mojeek")
        assert (mojeek.rate_per_minute, mojeek.timeout) == (20, 7)  # the console beats the file, not the environment
        assert winner(gateway, "mojeek", "rate_per_minute") == "console"
        timeout = next(v for v in gateway.config.stored.engine_view("mojeek") if v.field == "timeout")
        assert [layer.source for layer in timeout.layers] == ["environment", "console", "webreach.toml", "default"]
        assert timeout.winner == "environment" and timeout.console_overridden
        assert timeout.variable == "WEBREACH_ENGINES__MOJEEK__TIMEOUT"
        assert winner(gateway, "mojeek", "base_url") == "webreach.toml"
        # removing the console's value gives the file's back
        gateway.config.change({("engine:mojeek", "rate_per_minute"): None})
        assert gateway.settings.engine("mojeek").rate_per_minute == 10


async def test_secrets_are_sealed_at_rest_and_never_shown(database_url: str, tmp_path: Path) -> None:
    async with Gateway.from_settings(settings_on(database_url, tmp_path)) as gateway:
        gateway.config.change({("engine:brave_api", "api_key"): CONSOLE_KEY})
        status = next(s for s in gateway.engines.statuses() if s.name == "brave_api")
        assert status.key_configured and status.usable
        assert gateway.settings.engine("brave_api").key() == CONSOLE_KEY
        view = next(v for v in gateway.config.stored.engine_view("brave_api") if v.field == "api_key")
        assert view.winner == "console" and CONSOLE_KEY not in repr(view)
        assert gateway.config.stored.stored("engine:brave_api", "api_key") is True
    database = open_database(database_url)
    try:
        _, rows = ConfigStore(database).load()
    finally:
        database.close()
    (row,) = [r for r in rows if r.field == "api_key"]
    assert (
        row.secret
        and CONSOLE_KEY not in row.value
        and Fernet((tmp_path / "secret.key").read_bytes().strip()).decrypt(row.value.encode()) == CONSOLE_KEY.encode()
    )


async def test_a_lost_secret_key_leaves_the_engine_not_configured(database_url: str, tmp_path: Path) -> None:
    async with Gateway.from_settings(settings_on(database_url, tmp_path)) as gateway:
        gateway.config.change({("engine:brave_api", "api_key"): CONSOLE_KEY})
    (tmp_path / "secret.key").unlink()  # lost; a new one is made at the next secret stored
    other = settings_on(database_url, tmp_path).model_copy(
        update={"secret_key": SecretStr(Fernet.generate_key().decode())}
    )
    async with (
        Gateway.from_settings(settings_on(database_url, tmp_path)) as lost,
        Gateway.from_settings(other) as changed,
    ):
        for gateway, says in ((lost, "does not exist"), (changed, "another secret key")):
            status = next(s for s in gateway.engines.statuses() if s.name == "brave_api")
            assert not status.usable and says in (status.reason or "")
            with pytest.raises(NotConfiguredError) as refused:
                await gateway.search(SearchRequest.create(query="q"), engine="brave_api")
            assert says in refused.value.message
        # entering it again stores it under the current key
        changed.config.change({("engine:brave_api", "api_key"): CONSOLE_KEY})
        assert next(s for s in changed.engines.statuses() if s.name == "brave_api").usable


async def test_another_gateway_on_the_database_polls_the_change(database_url: str, tmp_path: Path) -> None:
    async with (
        Gateway.from_settings(settings_on(database_url, tmp_path)) as writer,
        Gateway.from_settings(settings_on(database_url, tmp_path)) as reader,
    ):
        assert reader.config.stored.poll() is None or reader.engines.auto_order("python") != ["bing", "mojeek"]
        writer.config.change({("routing", "auto_order"): ["bing", "mojeek"], ("engine:bing", "enabled"): False})
        changed = reader.config.stored.poll()
        assert changed is not None and changed.auto_order == ["bing", "mojeek"]
        assert changed.engine("bing").enabled is False
        assert reader.config.stored.poll() is None  # nothing moved since


async def test_no_database_file_is_created_until_something_is_stored(tmp_path: Path) -> None:
    path = tmp_path / "nothing" / "accounts.sqlite3"
    async with Gateway.from_settings(settings_on(str(path), tmp_path)) as gateway:
        assert not path.exists() and gateway.config.stored.version is None
        gateway.config.change({("engine:mojeek", "timeout"): 9})
        assert path.exists() and gateway.config.stored.version == 1


def test_values_are_checked_on_the_way_in() -> None:
    for field, value in (
        ("rate_per_minute", 0),
        ("timeout", "soon"),
        ("enabled", "yes"),
        ("base_url", "file:///etc/passwd"),
        ("base_url", "http://host:port"),
        ("proxy", "ftp://proxy"),
        ("api_key", "two\nlines"),
        ("auto_order", "bing"),
    ):
        with pytest.raises(InvalidInputError):
            check_value(field, value)
    assert check_value("base_url", "http://127.0.0.1:8888/") == "http://127.0.0.1:8888"
    assert check_value("timeout", "2.5") == 2.5


async def test_unknown_engines_are_refused(tmp_path: Path) -> None:
    async with Gateway.from_settings(settings_on(str(tmp_path / "a.sqlite3"), tmp_path)) as gateway:
        with pytest.raises(InvalidInputError):
            gateway.config.change({("engine:nope", "timeout"): 3})
        with pytest.raises(InvalidInputError):
            gateway.config.change({("routing", "auto_order"): ["bing", "nope"]})


def test_stored_config_without_a_database_is_the_loaded_settings(tmp_path: Path) -> None:
    base = settings_on(str(tmp_path / "none.sqlite3"), tmp_path)
    stored = StoredConfig(base, database=lambda: open_database("unused"), url=str(tmp_path / "x"), clock=SystemClock())
    assert stored.load().engines == base.engines and stored.poll() is None


async def test_a_one_time_form_token_is_used_once_across_servers(database_url: str, tmp_path: Path) -> None:
    """The console's replay guard (a credit grant sent twice): the first server to see a token claims it."""
    async with (
        Gateway.from_settings(settings_on(database_url, tmp_path)) as one,
        Gateway.from_settings(settings_on(database_url, tmp_path)) as other,
    ):
        expires = one.clock.now() + 60
        assert one.config.stored.claim_form("form-token-0123456789", expires) is True
        assert other.config.stored.claim_form("form-token-0123456789", expires) is False
        assert one.config.stored.claim_form("form-token-0123456789", expires) is False
        assert other.config.stored.claim_form("form-token-9876543210", expires) is True
