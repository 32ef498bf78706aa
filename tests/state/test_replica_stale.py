"""Stale-if-error for the fleet (issue 37): when an engine fails after the cached answer's fresh life, any replica
serves the fleet's last good answer, marked stale, instead of an error. Its own fleet: a 1 s fresh life."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from webreach.testing import FakeWeb

from .fleet import fleet, replica_of

pytestmark = [pytest.mark.network, pytest.mark.slow, pytest.mark.redis, pytest.mark.postgres]


@pytest.fixture
def web() -> Iterator[FakeWeb]:
    with FakeWeb.in_thread() as server:
        yield server


def test_a_failing_engine_gets_the_fleets_last_good_answer(web: FakeWeb, tmp_path: Path) -> None:
    call = {"query": "fleet stale", "engines": ["mojeek"]}  # stale-if-error is for the auto and multi modes
    with fleet(web, tmp_path, WEBREACH_CACHE__TTL_SECONDS="1") as replicas, replicas.client() as http:
        fresh = http.post("/v1/search_multi", json=call)
        time.sleep(1.5)  # past its fresh life
        web.set_scenario("mojeek", status=503)
        stale = [http.post("/v1/search_multi", json=call) for _ in range(2)]
    assert fresh.status_code == 200 and all(answer.status_code == 200 for answer in stale), [a.text for a in stale]
    assert len({replica_of(answer) for answer in [fresh, *stale]}) == 3
    for answer in stale:
        body = answer.json()
        assert body["meta"]["stale"] is True, body["meta"]
        assert [hit["url"] for hit in body["results"]] == [hit["url"] for hit in fresh.json()["results"]]
        assert body["meta"]["attempts"][0]["status"] != "ok"
