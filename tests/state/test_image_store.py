"""The session image store: tokens, content addressing, TTL, caps, obs numbering, on every backend (memory, SQLite
and Redis: a real redis-server the fixture starts on loopback), and two stores sharing one Redis."""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from webreach.config import StateSettings
from webreach.errors import InvalidInputError, UnknownImageTokenError
from webreach.state.image_store import ImageStore, ImageTokens, StoredImage
from webreach.state.redis_connection import open_redis
from webreach.state.redis_image_store import RedisImageStore
from webreach.testing import FakeClock


def image(data: bytes, token: str = "") -> StoredImage:
    return StoredImage(token, data, "image/png", 2, 2)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=["sqlite", "memory", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path, clock: FakeClock) -> AsyncIterator[ImageTokens]:
    caps = {"clock": clock, "ttl": 100, "max_bytes": 1000, "max_images": 5}
    if request.param != "redis":
        made = ImageStore(tmp_path / "state.sqlite3" if request.param == "sqlite" else None, **caps)  # type: ignore[arg-type]
        yield made
        made.close()
        return
    url: str = request.getfixturevalue("redis_url")
    connection = open_redis(StateSettings(backend="redis", url=url, key_prefix=f"t{uuid.uuid4().hex[:12]}:"))  # type: ignore[arg-type]
    yield RedisImageStore(connection, **caps)  # type: ignore[arg-type]
    await connection.aclose()


async def test_named_and_allocated_tokens(store: ImageTokens) -> None:
    assert await store.put("s", image(b"a" * 10, "<image_1>")) == "<image_1>"
    assert await store.put("s", image(b"b" * 10)) == "<obs_1>"
    assert await store.put("s", image(b"c" * 10, "<obs_7>")) == "<obs_7>"
    assert await store.put("s", image(b"d" * 10)) == "<obs_8>"  # never a number the conversation used
    assert (await store.get("s", "<image_1>")).data == b"a" * 10
    with pytest.raises(UnknownImageTokenError):
        await store.get("other", "<image_1>")  # sessions never see each other's tokens


async def test_bad_tokens_are_refused(store: ImageTokens) -> None:
    for token in ("image_1", "<image_0>", "<img_1>", "<obs_1> "):
        with pytest.raises(InvalidInputError):
            await store.get("s", token)


async def test_tokens_expire_after_ttl(store: ImageTokens, clock: FakeClock) -> None:
    await store.put("s", image(b"x" * 10, "<image_1>"))
    clock.advance(60)
    await store.get("s", "<image_1>")  # use restarts the TTL
    clock.advance(60)
    assert (await store.get("s", "<image_1>")).data == b"x" * 10
    clock.advance(101)
    with pytest.raises(UnknownImageTokenError):
        await store.get("s", "<image_1>")
    assert await store.put("s", image(b"y" * 10)) == "<obs_1>"


async def test_byte_and_count_caps_evict_least_recently_used(store: ImageTokens) -> None:
    for k in range(1, 4):
        await store.put("s", image(bytes([k]) * 400, f"<image_{k}>"))
    assert await store.tokens("s") == ["<image_2>", "<image_3>"]  # 1,200 bytes > 1,000: the oldest went
    for k in range(4, 10):
        await store.put("s", image(bytes([k]) * 10, f"<image_{k}>"))
    assert len(await store.tokens("s")) == 5


async def test_same_bytes_are_stored_once(tmp_path: Path) -> None:
    store = ImageStore(tmp_path / "s.sqlite3", clock=FakeClock())
    try:
        await store.put("a", image(b"same", "<image_1>"))
        await store.put("b", image(b"same", "<image_1>"))
    finally:
        store.close()
    with sqlite3.connect(tmp_path / "s.sqlite3") as conn:
        assert conn.execute("SELECT count(*) FROM image_blobs_v1").fetchone()[0] == 1
    conn.close()


async def test_a_token_put_by_one_store_is_read_by_another_on_the_same_redis(redis_url: str) -> None:
    settings = StateSettings(backend="redis", url=redis_url, key_prefix=f"t{uuid.uuid4().hex[:12]}:")  # type: ignore[arg-type]
    first, second = open_redis(settings), open_redis(settings)  # two replicas: two clients, two pools
    try:
        one, other = RedisImageStore(first), RedisImageStore(second)
        assert await one.put("s", image(b"shared", "<image_1>")) == "<image_1>"
        assert await other.put("s", image(b"crop")) == "<obs_1>"
        assert await one.put("s", image(b"crop 2")) == "<obs_2>"  # never the same <obs_i> twice
        assert (await other.get("s", "<image_1>")).data == b"shared"
        link = await one.link(b"public", "image/png", ttl=60)
        found = await other.linked(link)
        assert found is not None and found[:2] == (b"public", "image/png") and 0 < found[2] <= 60
    finally:
        await first.aclose()
        await second.aclose()


async def test_bytes_another_session_names_survive_this_sessions_eviction(store: ImageTokens) -> None:
    await store.put("a", image(b"shared" * 100, "<image_1>"))
    await store.put("b", image(b"shared" * 100, "<image_1>"))  # the same 600 bytes, stored once
    await store.put("a", image(b"n" * 600, "<image_2>"))  # 1,200 > 1,000: a's <image_1> is evicted
    assert await store.tokens("a") == ["<image_2>"]
    assert (await store.get("b", "<image_1>")).data == b"shared" * 100  # b still names those bytes


async def test_redis_deletes_a_blob_once_no_session_names_it(redis_url: str) -> None:
    prefix = f"t{uuid.uuid4().hex[:12]}:"
    connection = open_redis(StateSettings(backend="redis", url=redis_url, key_prefix=prefix))  # type: ignore[arg-type]
    store = RedisImageStore(connection, max_bytes=1000)
    blob = f"{prefix}img:blob:{image(b's' * 600).digest}"
    try:
        await store.put("a", image(b"s" * 600, "<image_1>"))
        await store.put("b", image(b"s" * 600, "<image_1>"))
        await store.put("a", image(b"n" * 600, "<image_2>"))  # a lets go; b still names the bytes
        assert await connection.client.exists(blob) == 1
        await store.put("b", image(b"m" * 600, "<image_2>"))  # b lets go too: nobody names them
        assert await connection.client.exists(blob) == 0
        assert 0 < await connection.client.pttl(f"{prefix}img:blob:{image(b'm' * 600).digest}") <= 86_400_000
    finally:
        await connection.aclose()


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("redis", marks=pytest.mark.redis)])
async def test_two_stores_racing_never_hand_out_one_obs_twice(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Two replicas registering crops of one session at once: 2 x 40 tokens, all distinct, numbered 1..80."""
    if backend == "sqlite":  # two stores on one state file: two processes on one machine
        one, other = (ImageStore(tmp_path / "state.sqlite3") for _ in range(2))
        stores: tuple[ImageTokens, ImageTokens] = (one, other)
    else:
        settings = StateSettings(  # type: ignore[arg-type]
            backend="redis",
            url=request.getfixturevalue("redis_url"),
            key_prefix=f"t{uuid.uuid4().hex[:12]}:",
            timeout=5,  # 80 puts opening ~80 connections at once: the 0.5 s default missed once on a loaded machine
        )
        connections = (open_redis(settings), open_redis(settings))  # two replicas: two clients, two pools
        stores = (RedisImageStore(connections[0]), RedisImageStore(connections[1]))
    try:
        puts = [stores[n % 2].put("s", image(f"crop {n}".encode())) for n in range(80)]
        tokens = await asyncio.gather(*puts)
    finally:
        for store in stores:
            store.close()
        if backend == "redis":
            for connection in connections:
                await connection.aclose()
    assert sorted(tokens, key=lambda t: int(t[5:-1])) == [f"<obs_{n}>" for n in range(1, 81)]
