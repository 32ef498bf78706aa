"""Settings.load(): the file problems a front door reports as invalid_input, the engine-name check's data, and
where the per-user data and cache directories are."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import platformdirs
import pytest
from pydantic import ValidationError

from secret_keys import PROXY_PASSWORD
from webreach.config import Settings, config_file, effective_proxy, shown_proxy, user_directory
from webreach.errors import InvalidInputError
from webreach.models import describe_validation_error


def test_default_file_in_the_working_directory_is_optional(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert Settings.load().hedge_delay == Settings.model_fields["hedge_delay"].default


def test_default_file_in_the_working_directory_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "webreach.toml").write_text("hedge_delay = 0.5\n[engines.bing]\nrate_per_minute = 7\n")
    settings = Settings.load()
    assert settings.hedge_delay == 0.5
    assert settings.engine("bing").rate_per_minute == 7


def test_a_named_file_that_does_not_exist_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "typo.toml"
    monkeypatch.setenv("WEBREACH_CONFIG", str(missing))
    with pytest.raises(InvalidInputError) as caught:
        Settings.load()
    assert caught.value.message.startswith("config file not found")
    assert str(missing) in caught.value.message
    assert "WEBREACH_CONFIG" in caught.value.message


def test_library_settings_stay_lenient_about_a_missing_named_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WEBREACH_CONFIG", str(tmp_path / "absent.toml"))
    assert Settings().retries == Settings.model_fields["retries"].default


def test_dev_null_means_no_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBREACH_CONFIG", os.devnull)
    assert Settings.load().engines == {}


def test_malformed_toml_names_the_file_and_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text('hedge_delay = 1\n[engines.bing\nbase_url = "x"\n')
    monkeypatch.setenv("WEBREACH_CONFIG", str(broken))
    with pytest.raises(InvalidInputError) as caught:
        Settings.load()
    assert str(broken) in caught.value.message
    assert "not valid TOML" in caught.value.message
    assert "line 2" in caught.value.message


def test_a_directory_is_not_silently_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBREACH_CONFIG", str(tmp_path))
    with pytest.raises(InvalidInputError, match="is a directory"):
        Settings.load()


def test_unknown_engines_are_those_outside_the_names_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBREACH_ENGINES__NOSUCH__API_KEY", "k")
    monkeypatch.setenv("WEBREACH_ENGINES__BING__RATE_PER_MINUTE", "5")
    settings = Settings.load()
    assert settings.unknown_engines(["bing", "mojeek"]) == ["nosuch"]
    assert settings.unknown_engines(["bing", "nosuch"]) == []


def test_config_file_follows_the_environment_given() -> None:
    assert config_file({}) == Path("webreach.toml")
    assert config_file({"WEBREACH_CONFIG": ""}) == Path("webreach.toml")
    assert config_file({"WEBREACH_CONFIG": "/etc/webreach.toml"}) == Path("/etc/webreach.toml")


def test_user_directories_are_the_platforms_own_without_xdg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_DATA_HOME")  # conftest points both at a temporary directory
    monkeypatch.delenv("XDG_CACHE_HOME")
    dirs = platformdirs.PlatformDirs("webreach", appauthor=False)
    assert user_directory("data", {}) == dirs.user_data_path
    assert user_directory("cache", {}) == dirs.user_cache_path


@pytest.mark.skipif(sys.platform == "win32", reason="Windows has no XDG variables")
def test_an_absolute_xdg_variable_wins_and_a_relative_one_is_ignored(tmp_path: Path) -> None:
    assert user_directory("data", {"XDG_DATA_HOME": str(tmp_path)}) == tmp_path / "webreach"
    assert user_directory("cache", {"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "webreach"
    assert user_directory("cache", {"XDG_CACHE_HOME": "relative"}) != Path("relative") / "webreach"


def test_the_network_proxy_comes_from_the_environment_and_paths_override_it(monkeypatch: pytest.MonkeyPatch) -> None:
    proxy = f"socks5://agent:{PROXY_PASSWORD}@127.0.0.1:1080"
    monkeypatch.setenv("WEBREACH_CONFIG", os.devnull)
    monkeypatch.setenv("WEBREACH_NETWORK__PROXY", proxy)
    monkeypatch.setenv("WEBREACH_ENGINES__SEARXNG__PROXY", "direct")
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")  # the environment's proxies are never read
    settings = Settings()
    assert PROXY_PASSWORD not in repr(settings)
    assert effective_proxy(settings.engine("bing").proxy, settings.network.proxy) == proxy
    assert effective_proxy(settings.engine("searxng").proxy, settings.network.proxy) is None
    assert effective_proxy(settings.read.proxy, None) is None


@pytest.mark.parametrize("bad", ["ftp://agent:{}@host:21", "http://agent:{}@host:3128/path", "http://agent:{}@:3128"])
def test_a_malformed_proxy_is_refused_without_its_password(bad: str) -> None:
    with pytest.raises(ValidationError) as caught:
        Settings(network={"proxy": bad.format(PROXY_PASSWORD)})
    for shown in (str(caught.value), describe_validation_error(caught.value)):
        assert "a proxy must be a URL like http://127.0.0.1:3128" in shown and PROXY_PASSWORD not in shown


@pytest.mark.parametrize(
    ("setting", "shown"),
    [
        (f"http://agent:{PROXY_PASSWORD}@proxy.example:3128", "http://***@proxy.example:3128"),
        (f"socks5://agent:{PROXY_PASSWORD}@[::1]:1080", "socks5://***@[::1]:1080"),
        (f"https://{PROXY_PASSWORD}@proxy.example", "https://***@proxy.example"),
        ("http://127.0.0.1:3128/", "http://127.0.0.1:3128"),
        (" direct ", "direct"),
        (f"gopher://agent:{PROXY_PASSWORD}@h:70", "set (hidden)"),  # not a proxy: nothing of it is shown
    ],
)
def test_a_proxy_is_shown_without_its_credentials(setting: str, shown: str) -> None:
    assert shown_proxy(setting) == shown
