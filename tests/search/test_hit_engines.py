"""`engines` is filled in every mode (issue 41): auto and single-engine answers said `engines: []`, multi listed
every engine that found a result; now every hit names at least the engine that found it."""

from __future__ import annotations

import pytest

from webreach import Gateway, SearchRequest, Settings
from webreach.models import Hit
from webreach.testing import FakeWeb

pytestmark = pytest.mark.network


def test_a_hit_without_engines_lists_its_own_engine() -> None:
    assert Hit(rank=1, title="t", url="https://a.example/", engine="mojeek").engines == ("mojeek",)
    merged = Hit(rank=1, title="t", url="https://a.example/", engine="bing", engines=("bing", "brave"))
    assert merged.engines == ("bing", "brave")
    # a hit cached before the rule reads back with its engine too
    assert Hit.model_validate_json(merged.model_copy(update={"engines": ()}).model_dump_json()).engines == ("bing",)


@pytest.mark.parametrize("engine", ["auto", "mojeek", "multi"])
async def test_every_mode_fills_engines(engine: str) -> None:
    async with (
        FakeWeb() as web,
        Gateway.from_settings(Settings(fake_web=web.url, state={"backend": "memory"})) as gateway,
    ):
        response = await gateway.search(SearchRequest(query="python asyncio", limit=5), engine=engine)
    assert response.results
    for hit in response.results:
        assert hit.engines and hit.engine == hit.engines[0], hit
