"""A Redis outage never fails a search: the cache misses, the buckets pace in this process, one warning is logged,
and the stores use Redis again once it is back, without a restart."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from pathlib import Path

import pytest
from PIL import Image

from webreach import Gateway, Settings, Toolbox
from webreach.config import StateSettings
from webreach.errors import ImageStoreError, SessionStoreError, UnknownImageTokenError
from webreach.models import Hit
from webreach.state.bucket_store import Pace
from webreach.state.cache_store import CacheEntry
from webreach.state.image_store import StoredImage
from webreach.state.redis_bucket_store import RedisBucketStore
from webreach.state.redis_cache_store import RedisCacheStore
from webreach.state.redis_connection import open_redis
from webreach.state.redis_image_store import RedisImageStore
from webreach.testing.redis import RedisUnavailable, restartable_redis

pytestmark = pytest.mark.redis
T0 = 1_700_000_000.0
ENTRY = CacheEntry((Hit(rank=1, title="t", url="https://example.org/", engine="mojeek"),), T0, T0 + 60, T0 + 600)


async def test_stores_carry_on_through_an_outage_and_recover(caplog: pytest.LogCaptureFixture) -> None:
    try:
        started = restartable_redis()
        server = started.__enter__()
    except RedisUnavailable as missing:
        pytest.skip(str(missing))
    try:
        connection = open_redis(StateSettings(backend="redis", url=server.url, timeout=0.5))  # type: ignore[arg-type]
        cache, buckets, pace = RedisCacheStore(connection), RedisBucketStore(connection), Pace(60, 1)
        await cache.set("k", ENTRY)
        assert await cache.get("k", now=T0) == ENTRY
        server.stop()
        with caplog.at_level(logging.WARNING, logger="webreach.state.redis_connection"):
            assert await cache.get("k", now=T0) is None
            await cache.set("k", ENTRY)  # dropped, not raised
            assert await buckets.reserve("baidu", pace, now=T0, max_wait=0) == (True, 0.0)
            assert (await buckets.reserve("baidu", pace, now=T0, max_wait=0))[0] is False, "paced in memory"
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert len(warnings) == 2 and all("could not" in w for w in warnings), warnings
        server.start()  # an empty Redis on the same port: the client reconnects by itself
        await cache.set("k", ENTRY)
        assert await cache.get("k", now=T0) == ENTRY
        assert await buckets.reserve("baidu", pace, now=T0, max_wait=0) == (True, 0.0)
        await connection.aclose()
    finally:
        started.__exit__(None, None, None)


async def test_image_tokens_fail_typed_through_an_outage_and_recover(tmp_path: Path) -> None:
    picture = io.BytesIO()
    Image.new("RGB", (40, 30), (30, 200, 30)).save(picture, format="PNG")
    crop = json.dumps({"crops": {"<obs_1>": [0, 0, 20, 15]}})
    try:
        started = restartable_redis()
        server = started.__enter__()
    except RedisUnavailable as missing:
        pytest.skip(str(missing))
    try:
        state = StateSettings(backend="redis", url=server.url, timeout=0.5, path=tmp_path / "state.sqlite3")  # type: ignore[arg-type]
        async with Gateway.from_settings(Settings(state=state)) as gateway:
            tools = Toolbox.over(gateway)
            assert (await gateway.images.upload("s", picture.getvalue())).token == "<obs_1>"
            server.stop()
            down = await tools.call("crop_images", crop, session="s")
            server.start()  # an empty Redis: the token is gone, but the store works again without a restart
            gone = await tools.call("crop_images", crop, session="s")
            assert (await gateway.images.upload("s", picture.getvalue())).token == "<obs_1>"
            back = await tools.call("crop_images", crop, session="s", output="json")
    finally:
        started.__exit__(None, None, None)
    assert isinstance(down.error, ImageStoreError) and isinstance(down.error, SessionStoreError)
    assert (down.error.code, down.error.retryable) == ("session_store_unavailable", True)
    assert "image store" in down.text and "pass the image itself" in down.text, down.text
    assert "refs" not in down.text.lower(), "a crop's advice, not a search's (was: read the result by its url)"
    assert isinstance(gone.error, UnknownImageTokenError)
    assert not back.is_error and json.loads(back.text)["crops"]["<obs_1>"]["token"] == "<obs_2>"


async def test_a_hung_redis_fails_image_calls_typed_within_the_state_timeout() -> None:
    """SIGSTOP: the connection stays open and nothing answers; [state] timeout bounds each call (wait_for is only
    the test's own guard against a hang, not a timing assertion)."""
    try:
        started = restartable_redis()
        server = started.__enter__()
    except RedisUnavailable as missing:
        pytest.skip(str(missing))
    try:
        connection = open_redis(StateSettings(backend="redis", url=server.url, timeout=0.3))  # type: ignore[arg-type]
        store = RedisImageStore(connection)
        picture = StoredImage("", b"bytes", "image/png", 1, 1)
        assert await store.put("s", picture) == "<obs_1>"
        server.pause()
        try:
            with pytest.raises(ImageStoreError):
                await asyncio.wait_for(store.get("s", "<obs_1>"), 60)
            with pytest.raises(ImageStoreError):
                await asyncio.wait_for(store.put("s", picture), 60)
        finally:
            server.resume()
        assert (await store.get("s", "<obs_1>")).data == b"bytes"  # answered again, data intact, no restart
        await connection.aclose()
    finally:
        started.__exit__(None, None, None)
