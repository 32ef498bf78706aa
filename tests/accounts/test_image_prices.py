"""What the image tools cost through the metering policy: image_search a price per call (and a paid engine's
surcharge), crop_images a price per crop made; per-agent prices override both; refused crops cost nothing."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from PIL import Image

from webreach.config import EngineSettings, Settings
from webreach.gateway import Gateway
from webreach.testing import FakeWeb
from webreach.tools import Toolbox, account_policies

pytestmark = pytest.mark.network


@pytest.fixture
async def gateway(web: FakeWeb, database_url: str) -> AsyncIterator[Gateway]:
    settings = Settings(
        fake_web=web.url,
        state={"backend": "memory"},
        engines={"serpapi": EngineSettings(api_key="test-key-0123456789")},
        accounts={"enabled": True, "database": database_url, "engine_surcharge": {"serpapi": 3}},
    )
    async with Gateway.from_settings(settings) as opened:
        yield opened


async def call(gateway: Gateway, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    toolbox = Toolbox.over(gateway, policies=account_policies(gateway.accounts))
    result = await toolbox.call(tool, arguments, output="json", caller="bot", session="s1")
    assert result.data is not None
    return result.data


def messages() -> list[dict[str, Any]]:
    out = io.BytesIO()
    Image.new("RGB", (64, 48), (200, 30, 30)).save(out, format="PNG")
    url = "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()
    return [{"role": "user", "content": [{"type": "text", "text": "<image_1>"},
                                         {"type": "image_url", "image_url": {"url": url}}]}]  # fmt: skip


async def test_image_search_costs_2_and_a_paid_engine_its_surcharge(gateway: Gateway) -> None:
    gateway.accounts.add("bot", credits=100)
    found = await call(gateway, "image_search", {"query": "red panda", "engine": "bing"})
    assert found["cost"]["charged"] == 2 and len(found["results"]) == 2
    paid = await call(gateway, "image_search", {"query": "red panda", "engine": "serpapi"})
    assert paid["cost"] == {**paid["cost"], "charged": 5, "balance": 93}


async def test_crops_cost_1_each_and_a_refused_crop_nothing(gateway: Gateway) -> None:
    gateway.accounts.add("bot", credits=100)
    crops = {"<image_1>": [0, 0, 32, 24], "<image_2>": [0, 0, 10, 10]}  # <image_2> is no image of the session
    cropped = await call(gateway, "crop_images", {"messages": messages(), "crops": crops})
    assert "token" in cropped["crops"]["<image_1>"] and "error" in cropped["crops"]["<image_2>"]
    assert cropped["cost"]["charged"] == 1 and cropped["cost"]["balance"] == 99
    none = await call(gateway, "crop_images", {"crops": {"<image_9>": [0, 0, 10, 10]}})
    assert none["cost"]["charged"] == 0 and none["cost"]["balance"] == 99  # released: no crop was made
    assert gateway.accounts.ledger.agent("bot").balance == 99 == gateway.accounts.ledger.journal_sum("bot")


async def test_per_agent_prices_override_the_image_prices(gateway: Gateway) -> None:
    gateway.accounts.add("bot", credits=100)
    gateway.accounts.set_options("bot", {"prices": {"image_search": 4, "crop_images": 3}})
    assert (await call(gateway, "image_search", {"query": "red panda", "engine": "bing"}))["cost"]["charged"] == 4
    crops = {"<image_1>": [0, 0, 32, 24], "<obs_1>": [0, 0, 16, 12]}
    cropped = await call(gateway, "crop_images", {"messages": messages(), "crops": crops})
    assert cropped["cost"]["charged"] == 6  # crops run in order: <obs_1> is the first crop, cropped again
    refused = await call(gateway, "image_search", {"query": "red panda", "engine": "bing", "limit": 99})
    assert refused["code"] == "invalid_input" and refused.get("cost", {"charged": 0})["charged"] == 0


async def test_an_alias_costs_what_its_tool_costs(web: FakeWeb, database_url: str) -> None:
    settings = Settings(
        fake_web=web.url,
        state={"backend": "memory"},
        tools={"alias_set": "visual-agent"},
        accounts={"enabled": True, "database": database_url},
    )
    async with Gateway.from_settings(settings) as gateway:
        gateway.accounts.add("bot", credits=10)
        found = await call(gateway, "image_search_by_text", {"query": "red panda", "k": 2})
        cropped = await call(gateway, "crop_images_by_token", {"crops": {"<image_5>": [0, 0, 10, 10]}})
    assert found["cost"]["charged"] == 2 and len(found["results"]) == 2
    assert cropped["cost"]["charged"] == 0  # no such image: no crop made, nothing charged


async def test_the_rollout_profile_is_metered_and_stays_indented(web: FakeWeb, database_url: str) -> None:
    """rollout-gateway answers are JSON indented 2: the cost member joins them indented, and an idempotent replay
    takes it off and puts the replay's on the same way."""
    settings = Settings(
        fake_web=web.url,
        state={"backend": "memory"},
        tools={"profile": "rollout-gateway"},
        accounts={"enabled": True, "database": database_url},
    )
    async with Gateway.from_settings(settings) as gateway:
        gateway.accounts.add("bot", credits=20)
        toolbox = Toolbox.over(gateway, policies=account_policies(gateway.accounts))
        search = {"query": "python asyncio", "k": 3}
        first, replay = [
            await toolbox.call("文搜文", search, caller="bot", session="s1", idempotency_key="k1") for _ in range(2)
        ]
        crop = {"crop_config": {"<image_1>": [0, 0, 10, 10], "<obs_9>": [0, 0, 1, 1]}, "messages": messages()}
        cropped = await toolbox.call("crop_images_by_token", crop, caller="bot", session="s1")
        refused = await toolbox.call("文搜文", {"query": "x", "k": 99}, caller="bot", session="s1")
    for result in (first, replay, cropped):
        assert result.data is not None and result.text == json.dumps(result.data, ensure_ascii=False, indent=2)
    assert first.data is not None and replay.data is not None and cropped.data is not None
    assert first.data["cost"]["charged"] == 2 and len(first.data["results"]) == 3
    assert replay.data["cost"]["charged"] == 0 and replay.data["cost"]["original_charged"] == 2
    assert replay.data["results"] == first.data["results"]
    assert cropped.data["cost"]["charged"] == 1 and cropped.data["results"]["<obs_9>"].startswith("error: ")
    assert refused.data is not None and set(refused.data) == {"status", "tool", "message"}  # refused: no charge
    assert cropped.data["cost"]["balance"] == 20 - 2 - 1
