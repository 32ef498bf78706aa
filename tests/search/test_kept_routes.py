"""Searching keeps the candidates and the routed request per request object (search/orders.py Orders.routes): the
same request asked another way (another engine, mode or vertical, a list of engines, a Chinese query's language
defaults) gets its own, and a live change of settings starts them anew."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from webreach.config import Settings
from webreach.errors import InvalidInputError
from webreach.gateway import Gateway
from webreach.models import SearchRequest
from webreach.testing import FakeWeb


@pytest.fixture(scope="module")
def web() -> Iterator[FakeWeb]:
    with FakeWeb.in_thread() as server:
        yield server


def settings_at(tmp_path: Path, web: FakeWeb) -> Settings:
    return Settings(fake_web=web.url, state={"backend": "memory"}, secret_key_file=tmp_path / "secret.key")  # type: ignore[arg-type]


async def test_one_request_object_asked_every_way_is_routed_as_asked(tmp_path: Path, web: FakeWeb) -> None:
    request = SearchRequest(query="python asyncio", limit=3)
    async with Gateway.from_settings(settings_at(tmp_path, web)) as gateway:
        named = await gateway.search(request, engine="mojeek")
        other = await gateway.search(request, engine="duckduckgo")
        auto = await gateway.search(request)
        listed = await gateway.search(request, engines=["mojeek"])
        multi = await gateway.search(request, engine="multi", engines=["mojeek", "duckduckgo"])
        again = [await gateway.search(request, engine=name) for name in ("mojeek", "duckduckgo")]
        with pytest.raises(InvalidInputError):
            await gateway.search(request, engine="nope")

    assert (named.meta.mode, named.meta.engines_used) == ("engine", ("mojeek",))
    assert (other.meta.mode, other.meta.engines_used) == ("engine", ("duckduckgo",))
    assert auto.meta.mode == "auto" and listed.meta.mode == "auto" and listed.meta.engines_used == ("mojeek",)
    assert multi.meta.mode == "multi" and {a.engine for a in multi.meta.attempts} == {"mojeek", "duckduckgo"}
    assert [(a.meta.engines_used, a.meta.attempts[0].cached) for a in again] == [
        (("mojeek",), True),
        (("duckduckgo",), True),
    ]


async def test_a_chinese_query_is_routed_with_its_language_defaults_every_time(tmp_path: Path, web: FakeWeb) -> None:
    request = SearchRequest(query="异步编程", limit=3)
    async with Gateway.from_settings(settings_at(tmp_path, web)) as gateway:
        first = await gateway.search(request, engine="bing")
        second = await gateway.search(request, engine="bing")
    assert second.meta.attempts[0].cached and second.results == first.results
    # language and region were not asked for: never reported as ignored, on the first call or the kept one
    assert first.meta.attempts[0].unsupported == second.meta.attempts[0].unsupported == ()
