"""The "rollout-gateway" drop-in profile (seed-contracts.md B) replayed as the rollout environment calls it: a real
`webreach serve` on loopback whose root URL serves the profile (the environment's `mcp_server_url` is the bare
server URL) beside /mcp, a default server offering it at /mcp/rollout-gateway, and `webreach mcp` over stdio; the
official MCP client makes the contract's calls as written and every answer is checked field by field."""

from __future__ import annotations

import base64
import io
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters
from PIL import Image, ImageChops

from webreach.testing import FakeWeb

from .serving import STDIO_ARGS, ServerProcess, http_server, server_env

pytestmark = [pytest.mark.network, pytest.mark.slow]
TIME_LIMIT = 60
LISTED = {"文搜文", "web_visit", "image_search_by_text", "reverse_image_search", "crop_images_by_token"}
TEXT_FIELDS = {"title", "url", "link", "snippet", "source", "position", "date", "image_url", "imageUrl",
               "thumbnail_url", "thumbnailUrl"}  # fmt: skip
IMAGE_FIELDS = {"title", "link", "thumbnail", "thumbnailUrl", "image_url", "imageUrl", "source", "domain", "position"}
REVERSE = {"WEBREACH_IMAGES__REVERSE_BACKENDS": '["tineye"]',
           "WEBREACH_IMAGES__REVERSE_SETTINGS": '{"tineye": {"rate_per_minute": 600}}'}  # fmt: skip


def picture() -> tuple[Image.Image, bytes]:
    image = Image.new("RGB", (160, 120))
    image.putdata([(x, y * 2, (x * y) % 256) for y in range(120) for x in range(160)])
    out = io.BytesIO()
    image.save(out, format="PNG")
    return image, out.getvalue()


def conversation() -> list[dict[str, Any]]:
    """The environment's messages: a text part holding exactly the token, then the image_url part it names."""
    url = "data:image/png;base64," + base64.b64encode(picture()[1]).decode()
    return [{"role": "user", "content": [{"type": "text", "text": "What is in this picture?"},
                                         {"type": "text", "text": "<image_1>"},
                                         {"type": "image_url", "image_url": {"url": url}}]}]  # fmt: skip


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Gateway:
    """A server whose root serves the profile with public_url storage, and its upload directory."""

    server: ServerProcess
    base: str
    uploads: Path


@pytest.fixture(scope="module")
def gateway(web: FakeWeb, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    home = tmp_path_factory.mktemp("rollout")
    uploads = home / "uploads"
    uploads.mkdir()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**REVERSE, "WEBREACH_TOOLS__MCP_PATHS": '{"/": "rollout-gateway"}', "WEBREACH_IMAGES__STORAGE": "public_url",
           "WEBREACH_IMAGES__PUBLIC_BASE_URL": base, "WEBREACH_IMAGES__UPLOAD_DIR": str(uploads)}  # fmt: skip
    with http_server(web, home, "--port", str(port), **env) as process:
        yield Gateway(process, base, uploads)


async def replay(
    url: str | StdioServerParameters, *calls: tuple[str, dict[str, Any]]
) -> tuple[dict[str, Any], list[Any]]:
    """The listed tools' input schemas, and each call's result, through one client."""
    with anyio.fail_after(TIME_LIMIT):
        async with Client(url, read_timeout_seconds=TIME_LIMIT) as mcp:
            listed = {tool.name: tool.input_schema for tool in (await mcp.list_tools()).tools}
            return listed, [await mcp.call_tool(name, arguments) for name, arguments in calls]


async def instructions(url: str) -> str:
    """What the server at `url` tells the model when a client connects."""
    with anyio.fail_after(TIME_LIMIT):
        async with Client(url, read_timeout_seconds=TIME_LIMIT) as mcp:
            return mcp.instructions or ""


def answer(result: Any) -> dict[str, Any]:
    """A contract answer: one text part, a JSON string indented 2."""
    (part,) = result.content
    body: dict[str, Any] = json.loads(part.text)
    assert part.text == json.dumps(body, ensure_ascii=False, indent=2)
    return body


def check_error(result: Any, tool: str, *words: str) -> None:
    body = answer(result)
    assert result.is_error and set(body) == {"status", "tool", "message"}
    assert body["status"] == "error" and body["tool"] == tool
    assert all(word in body["message"] for word in words), body["message"]


def check_text_search(body: dict[str, Any], k: int) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = body["results"]
    assert set(body) == {"results"} and 1 <= len(results) <= k
    assert [hit["position"] for hit in results] == list(range(1, len(results) + 1))
    for hit in results:
        assert set(hit) <= TEXT_FIELDS and TEXT_FIELDS - {"date"} <= set(hit)
        assert hit["link"] == hit["url"] and hit["url"].startswith("http") and hit["title"] and hit["source"]
        assert isinstance(hit["snippet"], str)
        assert hit["imageUrl"] == hit["image_url"] and hit["thumbnailUrl"] == hit["thumbnail_url"]
    return results


def check_images(body: dict[str, Any], k: int) -> None:
    results = body["results"]
    assert set(body) == {"results"} and 1 <= len(results) <= k
    assert [hit["position"] for hit in results] == list(range(1, len(results) + 1))
    for hit in results:
        assert set(hit) <= IMAGE_FIELDS and {"title", "link", "thumbnail", "thumbnailUrl", "image_url"} <= set(hit)
        assert hit["imageUrl"] == hit["image_url"] and hit["image_url"].startswith("http")
        assert hit["thumbnailUrl"] == hit["thumbnail"] and hit["link"].startswith("http")


def integer(schema: dict[str, Any]) -> dict[str, Any]:
    """An integer argument's type and range as the lean listing states them (tools/schemas.py)."""
    return {key: schema[key] for key in ("type", "minimum", "maximum") if key in schema}


def check_schemas(listed: dict[str, Any]) -> None:
    assert set(listed) == LISTED  # upload_file_to_cloud is hidden
    search = listed["文搜文"]
    assert set(search["properties"]) == {"query", "k", "region"} and search["required"] == ["query", "k"]
    assert integer(search["properties"]["k"]) == {"type": "integer", "minimum": 1, "maximum": 20}
    assert search["properties"]["region"]["default"] == "cn"
    assert set(listed["web_visit"]["properties"]) == {"url", "region"}
    assert set(listed["image_search_by_text"]["properties"]) == {"query", "k"}
    reverse = listed["reverse_image_search"]
    assert set(reverse["properties"]) == {"image_token", "k", "messages"}
    assert integer(reverse["properties"]["k"]) == {"type": "integer", "minimum": 1, "maximum": 10}
    assert set(listed["crop_images_by_token"]["properties"]) == {"crop_config", "messages"}


CONTRACT_CALLS = (
    ("文搜文", {"query": "python asyncio", "k": 3}),
    ("文搜文", {"query": "python asyncio", "k": 3, "region": "cn"}),
    ("image_search_by_text", {"query": "red panda", "k": 2}),
    ("reverse_image_search", {"image_token": "<image_1>", "k": 2, "messages": conversation()}),
    ("crop_images_by_token", {"crop_config": {"<image_1>": [20, 10, 100, 70]}, "messages": conversation()}),
    ("crop_images_by_token", {"crop_config": {"<obs_1>": [0, 0, 0.5, 0.5], "<obs_9>": [0, 0, 1, 1]}}),
    ("文搜文", {"query": "python asyncio", "k": 21}),
    ("reverse_image_search", {"image_token": "<image_7>", "k": 1}),
    ("web_visit", {"url": "http://169.254.169.254/latest/meta-data/"}),
)


def check_contract_calls(results: list[Any], crop_of: Any) -> None:
    """The answers to CONTRACT_CALLS; `crop_of(shown)` reads one crop (a URL or base64) as an image."""
    search, regional, images, reverse, cropped, again, too_many, unknown, internal = results
    check_text_search(answer(search), 3)
    check_text_search(answer(regional), 3)
    check_images(answer(images), 2)
    check_images(answer(reverse), 2)
    body = answer(cropped)
    assert set(body) == {"results", "images"} and list(body["results"]) == ["<image_1>"]
    assert body["images"] == [body["results"]["<image_1>"]]
    source = picture()[0]
    made = crop_of(body["images"][0]).convert("RGB")
    assert ImageChops.difference(made, source.crop((20, 10, 100, 70))).getbbox() is None
    body = answer(again)  # the crop came back as <obs_1>, croppable again; one bad token fails only its entry
    assert crop_of(body["results"]["<obs_1>"]).size == (40, 30) and len(body["images"]) == 1
    assert body["results"]["<obs_9>"].startswith("error: no image <obs_9>")
    check_error(too_many, "文搜文", "k")
    check_error(unknown, "reverse_image_search", "<image_7>")
    check_error(internal, "web_visit")


async def test_the_rollout_environment_at_the_server_root(gateway: Gateway) -> None:
    listed, results = await replay(gateway.base, *CONTRACT_CALLS)
    check_schemas(listed)

    def fetched(url: str) -> Image.Image:
        assert url.startswith(f"{gateway.base}/i/")  # storage = public_url: each crop a URL, no base64
        return Image.open(io.BytesIO(httpx.get(url).content))

    check_contract_calls(results, fetched)
    # /mcp beside the root keeps the server's own surface
    native, _ = await replay(f"{gateway.base}/mcp")
    assert "web_search" in native and "文搜文" not in native
    metrics = httpx.get(f"{gateway.base}/metrics").text  # the profile's calls are counted under their own names
    assert 'webreach_tool_calls_total{outcome="ok",tool="文搜文"} 2.0' in metrics
    assert 'webreach_tool_calls_total{outcome="error",tool="web_visit"} 1.0' in metrics


async def test_web_visit_reads_a_url_a_search_returned(gateway: Gateway) -> None:
    _, (search,) = await replay(gateway.base, ("文搜文", {"query": "python asyncio", "k": 5}))
    url = next(hit["url"] for hit in answer(search)["results"] if "docs.python.org" in hit["url"])
    _, (visit,) = await replay(gateway.base, ("web_visit", {"url": url, "region": "cn"}))
    body = answer(visit)
    assert set(body) == {"text"} and not visit.is_error
    title, source, *rest = body["text"].split("\n")
    assert title and source.startswith("Source: ") and "asyncio" in " ".join(rest).lower()
    assert len(body["text"]) <= 3000


async def test_upload_file_to_cloud_is_hidden_callable_and_kept_in_its_directory(gateway: Gateway) -> None:
    _, data = picture()
    (gateway.uploads / "shot.png").write_bytes(data)
    outside = gateway.uploads.parent / "secret.png"
    outside.write_bytes(data)
    (gateway.uploads / "link.png").symlink_to(outside)
    named = [str(gateway.uploads / "shot.png"), "shot.png", "../secret.png", str(outside), "link.png", "missing.png"]
    listed, results = await replay(gateway.base, *(("upload_file_to_cloud", {"file_path": name}) for name in named))
    assert "upload_file_to_cloud" not in listed
    by_path, by_name, *refused = results
    for result in (by_path, by_name):
        body = answer(result)
        assert not result.is_error and body["status"] == "ok" and body["url"].startswith(f"{gateway.base}/i/")
        assert (body["mime"], body["width"], body["height"], body["size"]) == ("image/png", 160, 120, len(data))
        assert httpx.get(body["url"]).content == data
    escaped, absolute, linked, missing = refused
    for result in (escaped, absolute, linked):
        check_error(result, "upload_file_to_cloud", "not a file inside the upload directory")
    check_error(missing, "upload_file_to_cloud", "no file 'missing.png'")


async def test_a_default_server_offers_the_profile_at_its_own_path(server: ServerProcess) -> None:
    listed, results = await replay(f"{server.url}/mcp/rollout-gateway", *CONTRACT_CALLS)
    check_schemas(listed)
    check_contract_calls(results, lambda shown: Image.open(io.BytesIO(base64.b64decode(shown))))  # inline: base64
    _, (upload,) = await replay(f"{server.url}/mcp/rollout-gateway", ("upload_file_to_cloud", {"file_path": "a.png"}))
    check_error(upload, "upload_file_to_cloud", "cloud storage")
    serp, _ = await replay(f"{server.url}/mcp/serp-chat")
    native, _ = await replay(f"{server.url}/mcp")
    assert set(serp) == {"serp_search", "serp_search_multi", "browse_url"} and "web_search" in native
    # each path's instructions name only its own surface's tools
    told = await instructions(f"{server.url}/mcp/rollout-gateway")
    assert "'rollout-gateway' tool profile" in told and "web_fetch" not in told
    assert "web_fetch(ref=N)" in await instructions(f"{server.url}/mcp")


def test_the_contract_over_stdio(web: FakeWeb, tmp_path: Path) -> None:
    env = server_env(web, tmp_path, **REVERSE)
    args = [*STDIO_ARGS, "--profile", "rollout-gateway"]  # or [tools] profile / WEBREACH_TOOLS__PROFILE
    parameters = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=os.fspath(tmp_path))
    listed, results = anyio.run(replay, parameters, *CONTRACT_CALLS)
    check_schemas(listed)
    check_contract_calls(results, lambda shown: Image.open(io.BytesIO(base64.b64decode(shown))))
    unknown = subprocess.run(
        [sys.executable, *STDIO_ARGS, "--profile", "rollout"], env=env, capture_output=True, text=True, timeout=60
    )
    assert unknown.returncode == 2 and "unknown tool profile 'rollout'" in unknown.stderr
    assert "rollout-gateway" in unknown.stderr and not unknown.stdout
