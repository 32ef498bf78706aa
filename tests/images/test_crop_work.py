"""Crops off the event loop, decoded once per image (a bounded LRU), and answers that name every box they did not cut
as given (issue 35): a call with no crop made is an error naming each refused box; clamped boxes are named."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from PIL import Image, ImageChops

from webreach import Gateway, Settings
from webreach.config import StateSettings
from webreach.errors import InvalidInputError, UnknownImageTokenError
from webreach.frontends.mcp import build_server, tools_over_gateway
from webreach.images.decode import decode
from webreach.images.pixels import WORKER_NICENESS, DecodedCache
from webreach.tools import Toolbox


def settings(tmp_path: Path, **images: Any) -> Settings:
    return Settings(state=StateSettings(path=tmp_path / "state.sqlite3"), images=images)


def photo(width: int, height: int, seed: int = 1) -> Image.Image:
    """A noisy picture (so encoding works as on a photo), different for each seed."""
    noise = Image.frombytes("RGB", (width, height), bytes((i * seed * 7919) % 251 for i in range(width * height * 3)))
    return noise


def encoded(image: Image.Image, kind: str = "JPEG") -> bytes:
    out = io.BytesIO()
    image.save(out, format=kind, quality=90)
    return out.getvalue()


def messages(data: bytes, token: str = "<image_1>", mime: str = "image/jpeg") -> list[dict[str, Any]]:
    url = f"data:{mime};base64," + base64.b64encode(data).decode()
    return [{"role": "user", "content": [{"type": "text", "text": token},
                                         {"type": "image_url", "image_url": {"url": url}}]}]  # fmt: skip


@pytest.mark.slow  # a second or more (measured 2026-11-28): the full suite runs it
async def test_crops_run_off_the_loop_while_other_coroutines_run(tmp_path: Path) -> None:
    async with Gateway.from_settings(settings(tmp_path)) as gateway:
        await gateway.images.register("s", messages(encoded(photo(2000, 1500))))
        ticks: list[bool] = []

        async def probe() -> None:  # a loop-lag probe: runs only when the loop is free
            for _ in range(3):
                ticks.append(crops.done())
                await asyncio.sleep(0)

        crops = asyncio.gather(*(gateway.images.crop("s", {"<image_1>": [0, 0, 1500, 1000]}) for _ in range(3)))
        await asyncio.gather(crops, probe())
    # the probe ran while the three crops were still under way: they never held the loop
    assert ticks[0] is False
    assert all(outcome.image is not None for (outcome,) in crops.result())


async def test_one_decode_serves_every_crop_of_an_image(tmp_path: Path) -> None:
    first, second = photo(300, 200, seed=1), photo(300, 200, seed=2)
    async with Gateway.from_settings(settings(tmp_path)) as gateway:
        images = gateway.images
        await images.register("s", messages(encoded(first, "PNG"), mime="image/png"))
        assert images.pixels.cache.size == 300 * 200 * 3  # registering decoded it once, and kept the pixels
        for box in ([0, 0, 100, 100], [50, 50, 250, 150]):
            (outcome,) = await images.crop("s", {"<image_1>": box})
            assert outcome.image is not None
        assert images.pixels.cache.size == 300 * 200 * 3
        # the token registered again with other bytes: the crop is of the new image, not the cached one
        await images.register("s", messages(encoded(second, "PNG"), mime="image/png"))
        (outcome,) = await images.crop("s", {"<image_1>": [10, 10, 60, 60]})
    assert outcome.image is not None
    cut = Image.open(io.BytesIO(outcome.image.data)).convert("RGB")
    assert ImageChops.difference(cut, second.crop((10, 10, 60, 60))).getbbox() is None


def test_the_decoded_cache_keeps_its_budget_least_recently_used_out() -> None:
    pictures = {name: decode(encoded(photo(100, 100, seed=seed), "PNG")) for seed, name in enumerate("abcd", 1)}
    cache = DecodedCache(max_bytes=2 * 100 * 100 * 3)  # room for two
    cache.put(("s", "a"), "da", pictures["a"])
    cache.put(("s", "b"), "db", pictures["b"])
    assert cache.get(("s", "a"), "da") is pictures["a"]  # a is now the most recently used
    cache.put(("s", "c"), "dc", pictures["c"])  # b goes
    assert cache.get(("s", "b"), "db") is None and cache.get(("s", "a"), "da") is pictures["a"]
    assert cache.get(("s", "a"), "other bytes") is None  # the same token over other bytes is a miss
    assert cache.size == 2 * 100 * 100 * 3
    DecodedCache(max_bytes=1000).put(("s", "d"), "dd", pictures["d"])  # larger than the budget: not kept
    small = DecodedCache(max_bytes=1000)
    small.put(("s", "d"), "dd", pictures["d"])
    assert small.size == 0 and small.get(("s", "d"), "dd") is None


async def test_a_call_with_no_crop_made_is_an_error_naming_each_box(tmp_path: Path) -> None:
    data = encoded(photo(200, 100), "PNG")
    async with Gateway.from_settings(settings(tmp_path)) as gateway:
        tools = Toolbox.over(gateway)
        arguments = {"messages": messages(data, mime="image/png"), "crops": {"<image_1>": [0, 0, 4, 4]}}
        tiny = await tools.call("crop_images", json.dumps(arguments), session="s", output="json")
        mixed = await tools.call(
            "crop_images", '{"crops": {"<image_1>": [300, 0, 400, 50], "<image_5>": [0, 0, 10, 10]}}', session="s"
        )
        unknown = await tools.call("crop_images", '{"crops": {"<image_5>": [0, 0, 10, 10]}}', session="s")
    assert tiny.is_error and isinstance(tiny.error, InvalidInputError)
    assert tiny.error.message == (
        "no crop was made: <image_1> [0, 0, 4, 4]: the crop is 4x4 pixels; each side must be at least 8"
    )
    assert mixed.is_error and isinstance(mixed.error, InvalidInputError)
    assert "<image_1> [300, 0, 400, 50]: the box [300, 0, 400, 50] lies outside the 200x100 image" in mixed.text
    assert "<image_5> [0, 0, 10, 10]: " in mixed.text
    # every refusal of one kind: the call carries that kind's code and hint
    assert unknown.is_error and isinstance(unknown.error, UnknownImageTokenError)
    assert unknown.error.message.startswith("no crop was made: <image_5> [0, 0, 10, 10]: ")


async def test_clamped_and_relative_boxes_are_named(tmp_path: Path) -> None:
    data = encoded(photo(200, 100), "PNG")
    async with Gateway.from_settings(settings(tmp_path)) as gateway:
        tools = Toolbox.over(gateway)
        arguments = {"messages": messages(data, mime="image/png"), "crops": {"<image_1>": [150, -20, 260, 60]}}
        clamped = await tools.call("crop_images", json.dumps(arguments), session="s")
        both = await tools.call(
            "crop_images", '{"crops": {"<image_1>": [0.5, 0.5, 1, 1], "<obs_1>": [0, 0, 30, 30]}}', session="s",
            output="json",
        )  # fmt: skip
    assert clamped.text == (
        "<image_1> -> <obs_1> (50x60) [ran past the 200x100 image: clamped to pixels [150, 0, 200, 60]]"
    )
    crops = json.loads(both.text)["crops"]
    assert crops["<image_1>"]["notes"] == ["read as relative (0..1) under units=auto: pixels [100, 50, 200, 100]"]
    assert "notes" not in crops["<obs_1>"]  # a box inside the image, in pixels, is cut as given


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_no_crop_made_is_is_error_over_mcp(tmp_path: Path, mode: str) -> None:
    data = encoded(photo(200, 100), "PNG")
    server = build_server(lambda: tools_over_gateway(settings(tmp_path)), default_session="test")
    async with Client(server, mode=mode, raise_exceptions=True) as mcp:
        arguments = {"messages": messages(data, mime="image/png"), "crops": {"<image_1>": [0, 0, 0.01, 0.01]}}
        result = await mcp.call_tool("crop_images", arguments)
    assert result.is_error
    body = json.loads(result.content[0].text)
    assert body["code"] == "invalid_input" and body["tool"] == "crop_images"
    assert body["message"].startswith("no crop was made: <image_1> [0, 0, 0.01, 0.01]: the crop is 2x1 pixels")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice values are Linux's")
async def test_pixel_work_runs_on_worker_threads_that_yield_the_cpu_to_the_loop(tmp_path: Path) -> None:
    def where() -> tuple[bool, int]:
        return threading.current_thread() is threading.main_thread(), os.getpriority(
            os.PRIO_PROCESS, threading.get_native_id()
        )

    async with Gateway.from_settings(settings(tmp_path)) as gateway:
        on_main, niceness = await gateway.images.pixels.run(where)
    assert not on_main
    assert niceness == os.getpriority(os.PRIO_PROCESS, 0) + WORKER_NICENESS or niceness == 19
