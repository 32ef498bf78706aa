"""Image calls fit real images (issue 35): a 12 MP JPEG passed inline as a data URL in `messages` over MCP HTTP
(a real `webreach serve` process, the SDK's real client) and over REST is cropped; a body over the cap is a 413 that
names the cap and the upload route, over REST and over MCP (a JSON-RPC error the client shows, not a reset), and
a call that carries no image keeps the ordinary 1 MB cap."""

from __future__ import annotations

import base64
import io
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client, MCPError
from PIL import Image, ImageChops

from webreach.testing import FakeWeb

from .serving import ServerProcess, http_server

pytestmark = pytest.mark.network
TIME_LIMIT = 120
IMAGE_CAP = 1_000_000 + 4 * -(-20_000_000 // 3)  # max_body_bytes + [images] max_input_bytes as base64


@pytest.fixture(scope="module")
def server(web: FakeWeb, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with http_server(web, tmp_path_factory.mktemp("bodies")) as process:
        yield process


@pytest.fixture(scope="module")
def photo() -> tuple[Image.Image, bytes]:
    """A 12 MP JPEG with noisy content, so it stays megabytes as a camera's photo does."""
    width, height = 4000, 3000
    noise = Image.frombytes("L", (width, height), random.Random(35).randbytes(width * height))
    base = Image.linear_gradient("L").resize((width, height))
    image = Image.merge("RGB", (base, noise.point(lambda v: v // 4), base.transpose(Image.Transpose.FLIP_LEFT_RIGHT)))
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=90)
    return Image.open(io.BytesIO(out.getvalue())).convert("RGB"), out.getvalue()


def messages(data: bytes) -> list[dict[str, Any]]:
    url = "data:image/jpeg;base64," + base64.b64encode(data).decode()
    return [{"role": "user", "content": [{"type": "text", "text": "What is written here? <image_1>"},
                                         {"type": "image_url", "image_url": {"url": url}}]}]  # fmt: skip


def assert_names_cap_and_upload(message: str, cap: int) -> None:
    assert f"over the limit of {cap:,} bytes" in message
    assert "POST /v1/images" in message and "token" in message


async def test_a_12_mp_jpeg_inline_over_mcp_http_is_cropped(
    server: ServerProcess, photo: tuple[Image.Image, bytes]
) -> None:
    source, data = photo
    assert len(data) > 3_000_000  # megabytes, as the 1.6 MB photo: well over the 1 MB ordinary cap
    with anyio.fail_after(TIME_LIMIT):
        async with Client(f"{server.url}/mcp", mode="legacy", read_timeout_seconds=TIME_LIMIT) as mcp:
            arguments = {"messages": messages(data), "crops": {"<image_1>": [1000, 1000, 1400, 1300]}}
            result = await mcp.call_tool("crop_images", arguments)
    assert not result.is_error, result.content[0].text
    text, block = result.content
    assert text.text == "<image_1> -> <obs_1> (400x300)"
    cropped = Image.open(io.BytesIO(base64.b64decode(block.data))).convert("RGB")
    assert cropped.size == (400, 300)
    assert ImageChops.difference(cropped, source.crop((1000, 1000, 1400, 1300))).getbbox() is None


def test_a_12_mp_jpeg_inline_over_rest_is_cropped(server: ServerProcess, photo: tuple[Image.Image, bytes]) -> None:
    arguments = {"messages": messages(photo[1]), "crops": {"<image_1>": [0, 0, 0.1, 0.1]}}
    response = httpx.post(f"{server.url}/v1/crop_images", json=arguments, timeout=TIME_LIMIT, trust_env=False)
    assert response.status_code == 200, response.text
    assert response.json()["crops"]["<image_1>"]["width"] == 400


def test_rest_413_names_the_cap_and_the_upload_route(server: ServerProcess) -> None:
    with httpx.Client(timeout=TIME_LIMIT, trust_env=False) as client:
        big = {"messages": [{"role": "user", "content": "x" * IMAGE_CAP}], "crops": {"<image_1>": [0, 0, 1, 1]}}
        image_call = client.post(f"{server.url}/v1/crop_images", json=big)
        plain = client.post(f"{server.url}/v1/search", json={"query": "x" * 1_100_000})
    assert image_call.status_code == 413 and image_call.json()["code"] == "request_too_large"
    assert_names_cap_and_upload(image_call.json()["message"], IMAGE_CAP)
    assert image_call.json()["tool"] == "crop_images"
    # a call that carries no image keeps the ordinary cap, and is told both
    assert plain.status_code == 413
    assert_names_cap_and_upload(plain.json()["message"], 1_000_000)


async def test_mcp_413_is_a_json_rpc_error_naming_the_cap_and_the_upload_route(server: ServerProcess) -> None:
    with anyio.fail_after(TIME_LIMIT):
        async with Client(f"{server.url}/mcp", mode="legacy", read_timeout_seconds=TIME_LIMIT) as mcp:
            with pytest.raises(MCPError) as over_image_cap:
                await mcp.call_tool("crop_images", {"messages": messages(b"x" * 21_000_000), "crops": {}})
            with pytest.raises(MCPError) as plain_over_cap:  # a 2 MB search is no image call: the 1 MB cap
                await mcp.call_tool("web_search", {"query": "x" * 2_000_000})
            still_serving = await mcp.call_tool("web_search", {"query": "red panda", "limit": 1})
    assert_names_cap_and_upload(over_image_cap.value.error.message, IMAGE_CAP)
    assert over_image_cap.value.error.data["upload"] == "POST /v1/images"
    assert_names_cap_and_upload(plain_over_cap.value.error.message, 1_000_000)
    assert plain_over_cap.value.error.data == {
        "code": "request_too_large",
        "limit": 1_000_000,
        "upload": "POST /v1/images",
    }
    assert not still_serving.is_error


def test_mcp_413_answers_plain_http_clients_in_the_agent_error_shape(server: ServerProcess) -> None:
    refused = httpx.post(
        f"{server.url}/mcp", content=b"x" * 2_000_000, headers={"content-type": "application/json"},
        timeout=TIME_LIMIT, trust_env=False,
    )  # fmt: skip
    body = refused.json()
    assert refused.status_code == 413 and body["code"] == "request_too_large" and body["status"] == "error"
    assert body["jsonrpc"] == "2.0" and body["error"]["code"] == -32600
    assert_names_cap_and_upload(body["message"], 1_000_000)


@pytest.mark.slow  # a second or more (measured 2026-11-28): the full suite runs it
def test_image_cap_follows_the_image_limit(web: FakeWeb, tmp_path: Path, photo: tuple[Image.Image, bytes]) -> None:
    # a server whose image limit is 2 MB: the 12 MP photo is over it, and the 413 says the cap that follows
    cap = 1_000_000 + 4 * -(-2_000_000 // 3)
    with http_server(web, tmp_path, WEBREACH_IMAGES__MAX_INPUT_BYTES="2000000") as small:
        arguments = {"messages": messages(photo[1]), "crops": {"<image_1>": [0, 0, 1, 1]}}
        response = httpx.post(f"{small.url}/v1/crop_images", content=json.dumps(arguments), timeout=60, trust_env=False)
    assert response.status_code == 413
    assert_names_cap_and_upload(response.json()["message"], cap)
