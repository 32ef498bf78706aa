"""The fake web serves both steps of a two-step engine: its `warm_up` recording at the engine's root, the scenario's
case everywhere else; a fault or a status reaches both steps."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from webreach.testing import RECORDINGS_DIR, FakeWeb, load_recording

pytestmark = pytest.mark.network


@pytest.fixture
async def web() -> AsyncIterator[FakeWeb]:
    async with FakeWeb() as server:
        yield server


async def test_the_root_gets_the_warm_up_and_other_paths_the_case(web: FakeWeb) -> None:
    folder = RECORDINGS_DIR / "images_duckduckgo"
    async with httpx.AsyncClient(base_url=web.engine_url("images_duckduckgo"), trust_env=False) as client:
        root = await client.get("/", params={"q": "red panda", "iax": "images"})
        search = await client.get("/i.js", params={"q": "red panda", "vqd": "4-1"})
        web.set_scenario("images_duckduckgo", case="no_results")
        root_again = await client.get("/")
        empty = await client.get("/i.js")
        web.set_scenario("images_duckduckgo", status=503)
        both = [(await client.get(path)).status_code for path in ("/", "/i.js")]
    assert root.content == root_again.content == load_recording(folder / "warm_up.http").body
    assert search.content == load_recording(folder / "results.http").body
    assert empty.content == load_recording(folder / "no_results.http").body
    assert both == [503, 503]
    assert [request.path for request in web.requests("images_duckduckgo")][:2] == [
        "/images_duckduckgo/",
        "/images_duckduckgo/i.js",
    ]


async def test_an_engine_without_a_warm_up_recording_answers_its_case_at_the_root(web: FakeWeb) -> None:
    async with httpx.AsyncClient(base_url=web.engine_url("mojeek"), trust_env=False) as client:
        root = await client.get("/")
    assert root.content == load_recording(RECORDINGS_DIR / "mojeek" / "results.http").body
