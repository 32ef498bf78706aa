"""Three replicas behind a real load balancer share one truth (issue 37): an engine's pace holds for the fleet, a
CAPTCHA seen by one suspends the engine on all, a search answered by one is a hit on the others, a ref given by one
reads on another, an idempotency key replays across replicas. Real `webreach serve` processes, real Redis and
PostgreSQL, HAProxy running deploy/haproxy.cfg, the fake web counting what reaches the engines."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from PIL import Image

from webreach.testing import FakeWeb

from .fleet import REPLICAS, Fleet, eventually, fleet, replica_of

pytestmark = [pytest.mark.network, pytest.mark.slow, pytest.mark.redis, pytest.mark.postgres]

PACED = "bing"  # 6 a minute: a burst of one, the next token in 10 s (mojeek, used by many tests, is not paced)


@pytest.fixture(scope="module")
def web() -> Iterator[FakeWeb]:
    with FakeWeb.in_thread() as server:
        yield server


@pytest.fixture(scope="module")
def replicas(web: FakeWeb, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    paces = {"WEBREACH_ENGINES__BING__RATE_PER_MINUTE": "6", "WEBREACH_ENGINES__MOJEEK__RATE_PER_MINUTE": "600"}
    with fleet(web, tmp_path_factory.mktemp("fleet"), **paces) as running:
        yield running


def test_the_balancer_spreads_calls_over_every_replica(replicas: Fleet) -> None:
    with replicas.client() as http:
        answers = [http.get("/healthz") for _ in range(2 * REPLICAS)]
        ready = http.get("/readyz")
    assert all(answer.status_code == 200 for answer in answers)
    assert {replica_of(answer) for answer in answers} == {f"replica{n}" for n in range(1, REPLICAS + 1)}
    assert ready.json()["status"] == "ready", ready.text


def test_a_search_answered_by_one_replica_is_a_hit_on_the_others(replicas: Fleet, web: FakeWeb) -> None:
    before = web.count("mojeek")
    with replicas.client() as http:
        answers = [http.post("/v1/search", json={"query": "fleet cache", "engine": "mojeek"}) for _ in range(REPLICAS)]
    bodies = [answer.json() for answer in answers]
    assert all(answer.status_code == 200 for answer in answers), bodies
    assert len({replica_of(answer) for answer in answers}) == REPLICAS
    assert [body["meta"]["attempts"][0]["cached"] for body in bodies] == [False, True, True], bodies
    assert {tuple(hit["url"] for hit in body["results"]) for body in bodies} == {
        tuple(hit["url"] for hit in bodies[0]["results"])
    }
    assert web.count("mojeek") - before == 1, "one upstream request for the fleet"


def test_an_engines_pace_holds_for_the_fleet(replicas: Fleet, web: FakeWeb) -> None:
    before = web.count(PACED)
    with replicas.client() as http:
        answers = [http.post("/v1/search", json={"query": f"paced {n}", "engine": PACED}) for n in range(2 * REPLICAS)]
    assert len({replica_of(answer) for answer in answers}) == REPLICAS
    assert [answer.status_code for answer in answers] == [200] + [503] * (2 * REPLICAS - 1), [a.text for a in answers]
    refused = [answer.json() for answer in answers[1:]]
    assert {body["code"] for body in refused} == {"throttled"}
    assert all(float(answer.headers["retry-after"]) >= 1 for answer in answers[1:])
    assert web.count(PACED) - before == 1, "the replicas spent one token between them"


def test_a_captcha_seen_by_one_replica_suspends_the_engine_on_all(replicas: Fleet, web: FakeWeb) -> None:
    web.set_scenario("duckduckgo", fault="captcha")
    try:
        before = web.count("duckduckgo")
        with replicas.client() as http:
            first = http.post("/v1/search", json={"query": "fleet captcha", "engine": "duckduckgo"})
            assert first.json()["code"] == "captcha", first.text
            # within about a second every replica knows (the breakers' sync beat is 0.5 s)
            eventually(lambda: _all_suspended(replicas), within=5)
    finally:
        web.reset("duckduckgo")
    assert web.count("duckduckgo") - before == 1, "no second CAPTCHA upstream"


def _all_suspended(replicas: Fleet) -> bool:
    """Whether one call on each replica (round robin) answers suspended without asking the engine."""
    with replicas.client() as http:
        answers = [http.post("/v1/search", json={"query": "again", "engine": "duckduckgo"}) for _ in range(REPLICAS)]
    return all(answer.json().get("code") == "suspended" for answer in answers)


def test_a_ref_given_by_one_replica_reads_on_every_other(replicas: Fleet, web: FakeWeb) -> None:
    with replicas.client(session="fleet-refs") as http:
        searched = http.post("/v1/search", json={"query": "fleet refs", "engine": "mojeek"})
        reads = [http.post("/v1/fetch", json={"ref": 1}) for _ in range(REPLICAS)]
    first = searched.json()["results"][0]
    assert first["ref"] == 1, first
    assert {replica_of(read) for read in reads} | {replica_of(searched)} == {f"replica{n}" for n in range(1, 4)}
    for read in reads:
        assert read.status_code == 200, read.text
        assert read.json()["url"] == first["url"], read.json()


def test_an_idempotency_key_replays_on_another_replica(replicas: Fleet) -> None:
    call = {"query": "fleet once", "engine": "mojeek"}
    with replicas.client() as http:
        balance, _ = replicas.balance()
        answers = [http.post("/v1/search", json=call, headers={"Idempotency-Key": "fleet-1"}) for _ in range(REPLICAS)]
    bodies = [answer.json() for answer in answers]
    assert len({replica_of(answer) for answer in answers}) == REPLICAS
    assert all(answer.status_code == 200 for answer in answers), bodies
    charged = bodies[0]["cost"]["charged"]
    assert charged > 0 and [body["cost"]["charged"] for body in bodies[1:]] == [0, 0], [b["cost"] for b in bodies]
    assert all(body["results"] == bodies[0]["results"] for body in bodies)
    after, journal = replicas.balance()
    assert after == journal == balance - charged, "charged once across the fleet"


def test_a_partial_multi_failure_is_not_kept_for_the_fleet(replicas: Fleet, web: FakeWeb) -> None:
    call = {"query": "fleet partial", "engines": ["mojeek", "yahoo"]}
    web.set_scenario("mojeek", status=503, times=2)  # fails the first call (a retry included), then answers
    try:
        before = web.counts()
        with replicas.client() as http:
            partial = http.post("/v1/search_multi", json=call)
            again = http.post("/v1/search_multi", json=call)
            whole = http.post("/v1/search_multi", json=call)
    finally:
        web.reset("mojeek")
    asked = {engine: web.count(engine) - before.get(engine, 0) for engine in ("mojeek", "yahoo")}
    assert len({replica_of(answer) for answer in (partial, again, whole)}) == REPLICAS
    statuses = [
        {a["engine"]: (a["status"], a["cached"]) for a in r.json()["meta"]["attempts"]} for r in (partial, again, whole)
    ]
    assert statuses[0]["mojeek"][0] != "ok" and statuses[0]["yahoo"] == ("ok", False), statuses
    assert statuses[1] == {"mojeek": ("ok", False), "yahoo": ("ok", True)}, again.json()["meta"]
    assert statuses[2] == {"mojeek": ("ok", True), "yahoo": ("ok", True)}, statuses
    assert asked["yahoo"] == 1 and asked["mojeek"] >= 2, asked


def test_an_image_token_added_on_one_replica_crops_on_the_others(replicas: Fleet) -> None:
    picture = io.BytesIO()
    Image.new("RGB", (40, 30), "navy").save(picture, format="PNG")
    with replicas.client(session="fleet-images") as http:
        added = http.post("/v1/images", files={"file": ("p.png", picture.getvalue(), "image/png")})
        assert added.status_code == 200, added.text
        token = added.json()["token"]
        crops = [http.post("/v1/crop_images", json={"crops": {token: [0, 0, 20, 15]}}) for _ in range(REPLICAS)]
    assert {replica_of(answer) for answer in [added, *crops]} == {f"replica{n}" for n in range(1, REPLICAS + 1)}
    made = [answer.json()["crops"][token] for answer in crops]
    assert all(answer.status_code == 200 for answer in crops), [answer.text for answer in crops]
    assert [crop["token"] for crop in made] == ["<obs_2>", "<obs_3>", "<obs_4>"]  # one numbering for the fleet
    assert {(crop["width"], crop["height"]) for crop in made} == {(20, 15)}
