"""A console change made live takes effect on the very next search: Searching remembers which engines are usable
and auto's order per settings (search/orders.py Orders), and applying new settings must start that memo anew."""

from __future__ import annotations

from pathlib import Path

from secret_keys import CONSOLE_KEY
from webreach.config import AccountsSettings, Settings
from webreach.gateway import Gateway


def settings_at(tmp_path: Path) -> Settings:
    return Settings(
        accounts=AccountsSettings(database=str(tmp_path / "accounts.sqlite3")),
        state={"backend": "memory"},  # type: ignore[arg-type]
        secret_key_file=tmp_path / "secret.key",
    )


async def test_disabling_an_engine_live_drops_it_from_the_next_auto_order(tmp_path: Path) -> None:
    async with Gateway.from_settings(settings_at(tmp_path)) as gateway:
        assert "mojeek" in gateway.engines.auto_order("python asyncio")  # asked once: the answer is remembered
        assert gateway.engines.auto_order("python asyncio") == gateway.engines.auto_order("rust traits")
        gateway.config.change({("engine:mojeek", "enabled"): False})
        assert "mojeek" not in gateway.engines.auto_order("python asyncio")
        assert not next(s for s in gateway.engines.statuses() if s.name == "mojeek").usable
        gateway.config.change({("engine:mojeek", "enabled"): None})
        assert "mojeek" in gateway.engines.auto_order("python asyncio")


async def test_a_key_entered_live_makes_its_engine_usable_at_once(tmp_path: Path) -> None:
    async with Gateway.from_settings(settings_at(tmp_path)) as gateway:
        assert "brave_api" not in gateway.engines.auto_order("python asyncio")
        gateway.config.change({("engine:brave_api", "api_key"): CONSOLE_KEY})
        assert "brave_api" in gateway.engines.auto_order("python asyncio")


async def test_a_changed_auto_order_applies_to_chinese_and_other_queries_apart(tmp_path: Path) -> None:
    async with Gateway.from_settings(settings_at(tmp_path)) as gateway:
        default = gateway.engines.auto_order("python asyncio")
        assert gateway.engines.auto_order("异步编程")[0] == "baidu"  # both remembered, apart
        gateway.config.change({("routing", "auto_order_zh"): ["sogou", "bing"]})
        assert gateway.engines.auto_order("异步编程") == ["sogou", "bing"]
        assert gateway.engines.auto_order("python asyncio") == default
        assert gateway.engines.auto_order("python") is not gateway.engines.auto_order("python")  # copies out
