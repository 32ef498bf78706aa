"""The reverse tools in the pipeline: prices per agent, image_upload hidden but callable, crops as URLs under URL
storage, public links that expire, and `webreach image add`."""

from __future__ import annotations

import asyncio
import base64
import io
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from PIL import Image

from webreach import Gateway, Settings
from webreach.config import StateSettings
from webreach.frontends.cli import cli
from webreach.state.image_store import ImageStore
from webreach.testing import FakeWeb
from webreach.testing.clock import FakeClock
from webreach.tools import Toolbox, account_policies, tool_schemas

pytestmark = pytest.mark.network
BASE = "https://webreach.example"


@pytest.fixture
async def web() -> AsyncIterator[FakeWeb]:
    async with FakeWeb() as server:
        yield server


def png(size: tuple[int, int] = (120, 90)) -> bytes:
    image = Image.new("RGB", size)
    image.putdata([(x % 256, y % 256, 90) for y in range(size[1]) for x in range(size[0])])
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def data_url() -> str:
    return "data:image/png;base64," + base64.b64encode(png()).decode()


async def test_reverse_search_and_upload_are_priced_per_agent(web: FakeWeb, tmp_path: Path) -> None:
    images = {"reverse_backends": ["tineye"], "reverse_settings": {"tineye": {"rate_per_minute": 600}}}
    accounts = {"enabled": True, "database": str(tmp_path / "a.db")}
    settings = Settings(
        fake_web=web.url, state=StateSettings(path=tmp_path / "state.sqlite3"), images=images, accounts=accounts
    )
    async with Gateway.from_settings(settings) as gateway:
        gateway.accounts.add("bot", credits=100)
        tools = Toolbox.over(gateway, policies=account_policies(gateway.accounts))

        async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
            result = await tools.call(tool, arguments, output="json", caller="bot", session="s")
            assert result.data is not None
            return result.data

        uploaded = await call("image_upload", {"image": data_url()})
        assert (uploaded["token"], uploaded["cost"]["charged"]) == ("<obs_1>", 1)
        found = await call("reverse_image_search", {"image": "<obs_1>"})
        assert found["backend"] == "tineye" and found["cost"]["charged"] == 3
        gateway.accounts.set_options("bot", {"prices": {"reverse_image_search": 7}})
        again = await call("reverse_image_search", {"image": "<obs_1>"})
        assert again["cost"]["charged"] == 7, again
        refused = await call("reverse_image_search", {"image": "<obs_9>"})  # no such token: nothing charged
        assert refused["code"] == "unknown_image"
        assert gateway.accounts.ledger.agent("bot").balance == 100 - 1 - 3 - 7


async def test_image_upload_is_hidden_from_models_but_callable(web: FakeWeb, tmp_path: Path) -> None:
    assert "image_upload" not in {schema["name"] for schema in tool_schemas("mcp", engines=["bing"])}
    shown = tool_schemas("mcp", engines=["bing"], enabled=["reverse_image_search", "image_upload"])
    assert [schema["name"] for schema in shown] == ["reverse_image_search", "image_upload"]
    settings = Settings(fake_web=web.url, state=StateSettings(path=tmp_path / "state.sqlite3"))
    async with Gateway.from_settings(settings) as gateway:
        result = await Toolbox.over(gateway).call("image_upload", {"image": data_url()})
        assert result.text == "<obs_1> (120x90): no URL (storage = inline)"
        schemas = Toolbox.over(gateway).schemas("mcp")  # callable, yet listed nowhere
        assert "image_upload" not in {schema["name"] for schema in schemas}
        unknown = await Toolbox.over(gateway).call("image_uplaod", {"image": data_url()})
        assert unknown.error is not None and "reverse_image_search" in str(unknown.error)
        assert "image_upload" not in str(unknown.error)
        narrowed = Toolbox(gateway, gateway.sessions, enabled=["web_search"])
        refused = await narrowed.call("image_upload", {"image": data_url()})
        assert refused.error is not None and refused.error.code == "invalid_input"


async def test_crops_come_back_as_public_urls_under_url_storage(web: FakeWeb, tmp_path: Path) -> None:
    settings = Settings(fake_web=web.url, state=StateSettings(path=tmp_path / "state.sqlite3"),
                        images={"storage": "public_url", "public_base_url": BASE})  # fmt: skip
    messages = [{"role": "user", "content": [{"type": "text", "text": "<image_1>"},
                                             {"type": "image_url", "image_url": {"url": data_url()}}]}]  # fmt: skip
    async with Gateway.from_settings(settings) as gateway:
        arguments = {"messages": messages, "crops": {"<image_1>": [10, 10, 70, 50]}}
        result = await Toolbox.over(gateway).call("crop_images", arguments, output="json")
        compact = await Toolbox.over(gateway).call("crop_images", {"crops": {"<obs_1>": [0, 0, 30, 20]}})
        entry = json.loads(result.text)["crops"]["<image_1>"]
        assert result.images == () and "data" not in entry  # a URL, not the bytes
        assert entry["url"].startswith(f"{BASE}/i/") and compact.images == ()
        assert compact.text.startswith(f"<obs_1> -> <obs_2> (30x20) {BASE}/i/")
        served = await gateway.images.store.linked(entry["url"].rsplit("/", 1)[1])
        assert served is not None and Image.open(io.BytesIO(served[0])).size == (60, 40)


async def test_public_links_expire(tmp_path: Path) -> None:
    clock = FakeClock()
    store = ImageStore(tmp_path / "state.sqlite3", clock=clock)
    link = await store.link(png(), "image/png", ttl=60)
    assert len(link) == 32 and await store.linked(link) is not None
    assert await store.link(png(), "image/png", ttl=60) != link  # a new id every time
    clock.advance(61)
    assert await store.linked(link) is None and await store.linked("no-such-link-id-at-all") is None
    store.close()


def test_cli_image_add_prints_a_token_and_a_url_another_process_serves(tmp_path: Path) -> None:
    picture = tmp_path / "p.png"
    picture.write_bytes(png())
    env = {"WEBREACH_STATE__PATH": str(tmp_path / "state.sqlite3"), "WEBREACH_IMAGES__STORAGE": "public_url",
           "WEBREACH_IMAGES__PUBLIC_BASE_URL": BASE, "WEBREACH_CONFIG": "/dev/null"}  # fmt: skip
    result = CliRunner().invoke(cli, ["image", "add", str(picture), "--session", "work"], env=env)
    assert result.exit_code == 0, result.output
    token, url = result.output.split()
    assert token == "<obs_1>" and url.startswith(f"{BASE}/i/")
    store = ImageStore(tmp_path / "state.sqlite3")  # the state file: a running server answers this link
    served = asyncio.run(store.linked(url.rsplit("/", 1)[1]))
    assert served is not None and served[0] == png() and asyncio.run(store.get("work", "<obs_1>")).width == 120
    store.close()
    svg = tmp_path / "x.svg"
    svg.write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    refused = CliRunner().invoke(cli, ["image", "add", str(svg), "--json"], env=env)
    assert refused.exit_code == 2 and json.loads(refused.output)["code"] == "unsupported_image"
