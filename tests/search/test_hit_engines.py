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


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("2024-07-30T00:00:00", "2024-07-30"),
        ("2024-07-30T00:00:00Z", "2024-07-30"),
        ("2024-07-30 00:00", "2024-07-30"),
        ("2024-07-30T00:00:00.000+00:00", "2024-07-30"),
        ("2024-07-30", "2024-07-30"),
        ("2024-07-30T09:15:00", "2024-07-30T09:15:00"),  # a time that says something stays
        ("2024-07-30T00:00:00+08:00", "2024-07-30T00:00:00+08:00"),  # another zone's midnight is another day in UTC
        ("3 days ago", "3 days ago"),
        (None, None),
    ],
)
def test_a_day_sent_as_midnight_reads_as_the_day(given: str | None, kept: str | None) -> None:
    """Issue 41: dates came as 2024-07-30T00:00:00 from some engines and 2024-07-30 from others."""
    assert Hit(rank=1, title="t", url="https://a.example/", engine="searxng", date=given).date == kept


async def test_searxng_days_read_like_every_other_engines() -> None:
    async with (
        FakeWeb() as web,
        Gateway.from_settings(Settings(fake_web=web.url, state={"backend": "memory"})) as gateway,
    ):
        response = await gateway.search(SearchRequest(query="python asyncio", limit=10), engine="searxng")
    dates = [hit.date for hit in response.results if hit.date]
    assert dates and all("T00:00:00" not in date for date in dates)
