"""The Jina reader's pace (issue 39 Deliver 6): r.jina.ai at its free tier's 20 requests a minute without a key (200
with one, read.jina_rate_per_minute overriding both), a paced-out read refused at once as throttled with its wait,
never sent to Jina, and reader='auto' moving on to the next reader (the contract's order: Jina, then the others)."""

from __future__ import annotations

from pathlib import Path

import pytest

from net.harness import SAFE, harness
from secret_keys import JINA_KEY
from webreach import Gateway, Settings
from webreach.config import ReadSettings
from webreach.errors import WebreachError
from webreach.gateway import ReadOverrides
from webreach.models import ReadRequest
from webreach.net import AddressPolicy, Guard, StaticResolver
from webreach.read.readers import ReaderChain
from webreach.read.readers.direct import DirectReader
from webreach.read.readers.jina import JinaReader
from webreach.read.readers.reader_pace import ReaderPace
from webreach.read.service import Reading
from webreach.state.bucket_store import BucketStore, SqliteBucketStore
from webreach.testing import FakeWeb

pytestmark = pytest.mark.network
PUBLIC_DNS = {"public.test": "93.184.216.34", "site.test": "93.184.216.34"}  # to the Jina reader's guard


def paced(base_url: str, rate: float, store: BucketStore | None = None) -> JinaReader:
    guard = Guard(AddressPolicy(), StaticResolver(PUBLIC_DNS))
    return JinaReader(guard, base_url=base_url, timeout=2, pace=ReaderPace("jina", rate, store=store))


async def test_a_paced_out_read_is_throttled_and_never_sent() -> None:
    async with harness() as h:
        reader = paced(f"{h.web.url}/_pages/jina", rate=6)  # a burst of one, then one every 10 s
        try:
            first = await reader.read("https://public.test/one", ReadRequest.create(url="https://public.test/one"))
            with pytest.raises(WebreachError) as caught:
                await reader.read("https://public.test/two", ReadRequest.create(url="https://public.test/two"))
        finally:
            await reader.aclose()
    assert first.reader == "jina" and len(h.web.pages.requests) == 1  # the second never reached Jina
    assert caught.value.code == "throttled" and caught.value.retry_after is not None
    assert 2 < caught.value.retry_after <= 10 and "6 requests/min" in caught.value.message


async def test_auto_moves_on_from_a_paced_out_jina_to_the_next_reader() -> None:
    async with harness() as h:
        reader = paced(f"{h.web.url}/_pages/jina", rate=6)
        chain = ReaderChain({"jina": reader, "direct": DirectReader(h.fetcher)}, ["jina", "direct"])
        try:
            first = await chain.read(h.url("article"), ReadRequest.create(url=h.url("article")))
            second = await chain.read(h.url("article"), ReadRequest.create(url=h.url("article")))
        finally:
            await reader.aclose()
    assert (first.reader, second.reader) == ("jina", "direct")


@pytest.mark.parametrize(
    ("settings", "rate"),
    [({}, 20), ({"jina_api_key": JINA_KEY}, 200), ({"jina_rate_per_minute": 5}, 5)],
)
async def test_the_default_rates_are_jinas_published_tiers(settings: dict[str, object], rate: float) -> None:
    reading = Reading(ReadSettings.model_validate(settings))
    try:
        assert reading.jina.pace is not None and reading.jina.pace.rate_per_minute == rate
    finally:
        await reading.aclose()


async def test_processes_sharing_a_state_file_share_one_jina_pace(tmp_path: Path) -> None:
    """Two processes (two stores on one state file, as two replicas or CLI runs have) draw from one bucket: the
    second process's read is throttled too, so N replicas stay at Jina's rate together, not N times it."""
    stores = [SqliteBucketStore(tmp_path / "state.sqlite3") for _ in range(2)]
    async with harness() as h:
        one, two = (paced(f"{h.web.url}/_pages/jina", rate=6, store=store) for store in stores)
        try:
            await one.read("https://public.test/one", ReadRequest.create(url="https://public.test/one"))
            with pytest.raises(WebreachError) as caught:
                await two.read("https://public.test/two", ReadRequest.create(url="https://public.test/two"))
        finally:
            await one.aclose()
            await two.aclose()
            for store in stores:
                store.close()
    assert caught.value.code == "throttled" and len(h.web.pages.requests) == 1


async def test_two_gateways_on_one_state_file_share_jinas_pace(tmp_path: Path) -> None:
    """Two replicas (two Gateways on one [state] file) read through keyless Jina: the second replica's read finds
    the bucket the first one used, is throttled and never reaches Jina."""
    async with FakeWeb(limits=SAFE) as jina:
        configured = Settings(
            state={"backend": "sqlite", "path": str(tmp_path / "state.sqlite3")}, cache={"backend": "none"},
            read={"jina_base_url": f"{jina.url}/_pages/jina", "jina_rate_per_minute": 6},
        )  # fmt: skip
        overrides = ReadOverrides(resolve=("public.test:93.184.216.34",))
        one, two = (Gateway.from_settings(configured, read_overrides=overrides) for _ in range(2))
        async with one, two:
            page = await one.read(ReadRequest.create(url="http://public.test/one", reader="jina"))
            with pytest.raises(WebreachError) as caught:
                await two.read(ReadRequest.create(url="http://public.test/two", reader="jina"))
        served = len(jina.pages.requests)
    assert page.reader == "jina" and "public.test/one" in page.content
    assert caught.value.code == "throttled" and served == 1  # the second replica's read never reached Jina
