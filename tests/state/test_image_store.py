"""The session image store: tokens, content addressing, TTL, caps, obs numbering, both backends."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from webreach.errors import InvalidInputError, UnknownImageTokenError
from webreach.state.image_store import ImageStore, StoredImage
from webreach.testing import FakeClock


def image(data: bytes, token: str = "") -> StoredImage:
    return StoredImage(token, data, "image/png", 2, 2)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path, clock: FakeClock) -> ImageStore:
    path = tmp_path / "state.sqlite3" if request.param == "sqlite" else None
    made = ImageStore(path, clock=clock, ttl=100, max_bytes=1000, max_images=5)
    request.addfinalizer(made.close)
    return made


def test_named_and_allocated_tokens(store: ImageStore) -> None:
    assert store.put("s", image(b"a" * 10, "<image_1>")) == "<image_1>"
    assert store.put("s", image(b"b" * 10)) == "<obs_1>"
    assert store.put("s", image(b"c" * 10, "<obs_7>")) == "<obs_7>"
    assert store.put("s", image(b"d" * 10)) == "<obs_8>"  # never a number the conversation used
    assert store.get("s", "<image_1>").data == b"a" * 10
    with pytest.raises(UnknownImageTokenError):
        store.get("other", "<image_1>")  # sessions never see each other's tokens


def test_bad_tokens_are_refused(store: ImageStore) -> None:
    for token in ("image_1", "<image_0>", "<img_1>", "<obs_1> "):
        with pytest.raises(InvalidInputError):
            store.get("s", token)


def test_tokens_expire_after_ttl(store: ImageStore, clock: FakeClock) -> None:
    store.put("s", image(b"x" * 10, "<image_1>"))
    clock.advance(60)
    store.get("s", "<image_1>")  # use restarts the TTL
    clock.advance(60)
    assert store.get("s", "<image_1>").data == b"x" * 10
    clock.advance(101)
    with pytest.raises(UnknownImageTokenError):
        store.get("s", "<image_1>")
    assert store.put("s", image(b"y" * 10)) == "<obs_1>"


def test_byte_and_count_caps_evict_least_recently_used(store: ImageStore) -> None:
    for k in range(1, 4):
        store.put("s", image(bytes([k]) * 400, f"<image_{k}>"))
    assert store.tokens("s") == ["<image_2>", "<image_3>"]  # 1,200 bytes > 1,000: the oldest went
    for k in range(4, 10):
        store.put("s", image(bytes([k]) * 10, f"<image_{k}>"))
    assert len(store.tokens("s")) == 5


def test_same_bytes_are_stored_once(tmp_path: Path) -> None:
    store = ImageStore(tmp_path / "s.sqlite3", clock=FakeClock())
    try:
        store.put("a", image(b"same", "<image_1>"))
        store.put("b", image(b"same", "<image_1>"))
    finally:
        store.close()
    with sqlite3.connect(tmp_path / "s.sqlite3") as conn:
        assert conn.execute("SELECT count(*) FROM image_blobs_v1").fetchone()[0] == 1
    conn.close()
