"""Hostile answers for every image engine: its recordings and real captures mutated, and documents generated from
scratch, end in image hits with usable URLs or one of the engine's typed errors, never another exception."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from secret_keys import TEST_KEY
from webreach import engines
from webreach.config import EngineSettings
from webreach.errors import WebreachError
from webreach.models import SearchRequest
from webreach.search.engine_caller import rebuilt_response
from webreach.testing.mutations import Case, generated, mutate, seed_cases

pytestmark = pytest.mark.fuzz

SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
EXAMPLES = 2000 if os.environ.get("WEBREACH_FUZZ") == "long" else 30
FUZZ = settings(
    max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES < 1000,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)  # fmt: skip
NAMES = engines.names("images")
CAPTURES = {"images_bing": "images/bing_images_html", "images_baidu": "images/baidu_images"}
TOKENS = {"vqd": "4-1", "cookie": "BAIDUID=1"}


def seeds(name: str) -> list[Case]:
    cases = seed_cases(name)
    folder = SHARED_DATA / CAPTURES.get(name, "-")
    for path in sorted(folder.glob("*.html")) if folder.is_dir() else ():
        cases.append(Case(200, ((b"content-type", b"text/html; charset=utf-8"),), path.read_bytes()))
    return cases


SEEDS = {name: seeds(name) for name in NAMES}


def read(name: str, case: Case) -> None:
    settings = EngineSettings(api_key=TEST_KEY, base_url="https://searx.example" if "searxng" in name else None)
    engine = engines.create(name, settings)
    request = engine.build_request(SearchRequest(query="q"), TOKENS)
    try:
        hits = engine.handle(rebuilt_response(case.status, case.headers, case.body, request))
    except WebreachError as error:
        assert error.code and str(error)
        return
    for hit in hits:
        assert hit.image is not None and hit.image.image_url.startswith(("http://", "https://"))
        for text in (hit.url, hit.title, hit.source or "", hit.image.image_url, hit.image.thumbnail_url or ""):
            text.encode("utf-8")  # a lone surrogate raises here


@pytest.mark.parametrize("name", NAMES)
@FUZZ
@given(data=st.data())
def test_mutated_answers_end_in_hits_or_a_typed_error(name: str, data: st.DataObject) -> None:
    seed = data.draw(st.sampled_from(SEEDS[name]), label="seed")
    rng = data.draw(st.randoms(use_true_random=False), label="rng")
    read(name, mutate(seed, rng, count=data.draw(st.integers(1, 3), label="mutations")))


@pytest.mark.parametrize("name", NAMES)
@settings(FUZZ, max_examples=max(EXAMPLES // 2, 1))
@given(rng=st.randoms(use_true_random=False))
def test_generated_answers_end_in_hits_or_a_typed_error(name: str, rng: random.Random) -> None:
    read(name, generated(rng))
