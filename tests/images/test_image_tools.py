"""The image tools through the doors: Python (Toolbox over a Gateway) and MCP (the SDK's own Client, in-process)."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from mcp import Client
from PIL import Image, ImageChops
from starlette.testclient import TestClient

from secret_keys import TEST_KEY
from webreach import EngineSettings, Gateway, Settings
from webreach.config import ServerSettings, ToolSettings
from webreach.frontends.http import build_app
from webreach.frontends.mcp import build_server, tools_over_gateway
from webreach.testing import FakeWeb
from webreach.tools import Toolbox

pytestmark = pytest.mark.network
KEYED = {name: EngineSettings(api_key=TEST_KEY) for name in ("brave_api", "serpapi")}


@pytest.fixture
async def web() -> AsyncIterator[FakeWeb]:
    async with FakeWeb() as server:
        yield server


def settings(web: FakeWeb) -> Settings:
    return Settings(fake_web=web.url, state={"backend": "memory"}, engines=KEYED)


def picture() -> tuple[Image.Image, str]:
    image = Image.new("RGB", (200, 100))
    image.putdata([(x, y * 2, (x * y) % 256) for y in range(100) for x in range(200)])
    out = io.BytesIO()
    image.save(out, format="PNG")
    return image, "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


def anthropic_messages(url: str) -> list[dict[str, Any]]:
    media, _, data = url.removeprefix("data:").partition(";base64,")
    return [{"role": "user", "content": [
        {"type": "text", "text": "What is in the corner of <image_1>"},
        {"type": "image", "source": {"type": "base64", "media_type": media, "data": data}},
    ]}]  # fmt: skip


async def test_python_door_crops_and_searches(web: FakeWeb) -> None:
    source, url = picture()
    async with Gateway.from_settings(settings(web)) as gateway:
        tools = Toolbox.over(gateway)
        arguments = {
            "messages": anthropic_messages(url),
            "crops": {"<image_1>": [0.5, 0.5, 1, 1], "<obs_9>": [0, 0, 1, 1]},
        }
        result = await tools.call("crop_images", json.dumps(arguments), session="p1", output="json")
        assert result.data is not None and result.data["status"] == "ok"
        crops = result.data["crops"]
        crop_bytes = base64.b64decode(crops["<image_1>"].pop("data"))
        assert crops["<image_1>"] == {
            "token": "<obs_1>", "width": 100, "height": 50, "mime": "image/png",
            "notes": ["read as relative (0..1) under units=auto: pixels [100, 50, 200, 100]"],
        }  # fmt: skip
        assert crops["<obs_9>"]["error"]["code"] == "unknown_image"
        assert "<image_1>" in crops["<obs_9>"]["error"]["message"]  # the hint names the token to use
        (image,) = result.images
        assert image.data == crop_bytes
        assert (
            ImageChops.difference(
                Image.open(io.BytesIO(image.data)).convert("RGB"), source.crop((100, 50, 200, 100))
            ).getbbox()
            is None
        )
        again = await tools.call("crop_images", '{"crops": {"<obs_1>": [0, 0, 50, 25]}}', session="p1")
        assert again.text == "<obs_1> -> <obs_2> (50x25)"
        found = await tools.call("image_search", '{"query": "red panda", "limit": 5}', session="p1")
    # offline, the fake web plays a SearXNG instance too, and auto asks a configured instance first
    assert found.text.startswith("Images for 'red panda' (auto: searxng; 2 found):")
    assert found.text.endswith("Engines: searxng ok 2")
    assert "image: https://wildlife.example.org/img/red-panda.jpg" in found.text


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_mcp_crop_returns_an_image_block(web: FakeWeb, mode: str) -> None:
    source, url = picture()
    server = build_server(lambda: tools_over_gateway(settings(web)), default_session="test")
    async with Client(server, mode=mode, raise_exceptions=True) as mcp:
        crops = {"<image_1>": [10, 20, 110, 70]}
        result = await mcp.call_tool("crop_images", {"messages": anthropic_messages(url), "crops": crops})
        found = await mcp.call_tool("image_search", {"query": "red panda", "engine": "serpapi"})
    assert not result.is_error
    text, block = result.content
    assert text.text == "<image_1> -> <obs_1> (100x50)"
    assert block.type == "image" and block.mime_type == "image/png"
    cropped = Image.open(io.BytesIO(base64.b64decode(block.data))).convert("RGB")
    assert ImageChops.difference(cropped, source.crop((10, 20, 110, 70))).getbbox() is None
    assert not found.is_error and "(engine: serpapi; 2 found)" in found.content[0].text


async def test_bad_crop_arguments_are_error_results(web: FakeWeb) -> None:
    async with Gateway.from_settings(settings(web)) as gateway:
        tools = Toolbox.over(gateway)
        result = await tools.call("crop_images", '{"crops": {"<image_1>": [0, 0, 1]}}', session="p1")
        svg = "data:image/svg+xml;base64," + base64.b64encode(b"<svg xmlns='http://www.w3.org/2000/svg'/>").decode()
        hostile = await tools.call(
            "crop_images",
            json.dumps({"messages": anthropic_messages(svg), "crops": {"<image_1>": [0, 0, 1, 1]}}),
            session="p1",
        )
    assert result.is_error and result.error is not None and result.error.code == "invalid_input"
    assert hostile.is_error and hostile.error is not None and hostile.error.code == "unsupported_image"


@pytest.fixture
def threaded_web() -> Iterator[FakeWeb]:
    with FakeWeb.in_thread() as server:  # the REST test client blocks this thread: the fake web runs in its own
        yield server


def test_rest_door_crops_and_searches(threaded_web: FakeWeb) -> None:
    source, url = picture()
    # REST serves the listed tools: the image tools are in the "images" profile, not the default surface
    listed = settings(threaded_web).model_copy(update={"tools": ToolSettings(profile="images")})
    app = build_app(listed, server=ServerSettings(port=9090))
    with TestClient(app, base_url="http://127.0.0.1:9090") as rest:
        arguments = {"messages": anthropic_messages(url), "crops": [{"image": "<image_1>", "box": [0, 0, 0.25, 0.5]}]}
        cropped = rest.post("/v1/crop_images", json=arguments, headers={"X-Webreach-Session": "r1"})
        found = rest.post("/v1/image_search", json={"query": "red panda", "engine": "serpapi"})
        bad = rest.post("/v1/crop_images", json={"crops": {"<image_7>": [0, 0, 1, 1]}})
    assert cropped.status_code == 200, cropped.text
    entry = cropped.json()["crops"]["<image_1>"]
    assert (entry["token"], entry["width"], entry["height"]) == ("<obs_1>", 50, 50)
    image = Image.open(io.BytesIO(base64.b64decode(entry["data"]))).convert("RGB")
    assert ImageChops.difference(image, source.crop((0, 0, 50, 50))).getbbox() is None
    assert found.status_code == 200 and found.json()["engines_used"] == ["serpapi"]
    assert [hit["rank"] for hit in found.json()["results"]] == [1, 2]
    # no crop made: the call is an error naming the box (issue 35), not "status: ok"
    assert bad.status_code == 404 and bad.json()["code"] == "unknown_image"
    assert bad.json()["message"].startswith("no crop was made: <image_7> [0, 0, 1, 1]: ")
