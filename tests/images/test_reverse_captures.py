"""Reverse-image parsers against every real capture in shared/data/images for these backends (SerpApi
google_reverse_image and yandex_images); backends without a capture are tested over the fake web's recordings,
written from their documented shapes (tests/images/test_reverse_search.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from webreach.clock import SystemClock
from webreach.config import EngineSettings
from webreach.images.reverse.serpapi_google_reverse import SerpApiGoogleReverse
from webreach.images.reverse.serpapi_yandex import SerpApiYandex
from webreach.providers import default_registry
from webreach.tools.reverse_tools import ReverseBackendName

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "images"
GOOGLE = sorted((DATA / "serpapi_google_reverse_image").glob("*.derived.json"))
YANDEX = sorted((DATA / "serpapi_yandex_images").glob("*.derived.json"))
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data/images is not here (see PROVENANCE.md)")


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def linked(items: list[dict[str, Any]], key: str) -> int:
    return sum(1 for item in items if str(item.get(key) or "").startswith("http"))


@needs_data
@pytest.mark.parametrize("path", GOOGLE, ids=lambda p: p.name.split(".")[2])
def test_serpapi_google_reverse_captures(path: Path) -> None:
    data = load(path)
    backend = SerpApiGoogleReverse(EngineSettings(), user_agent="test", clock=SystemClock())
    hits = backend.parse(data)
    exact = [hit for hit in hits if hit.match == "exact"]
    visual = [hit for hit in hits if hit.match == "visual"]
    # every page result and every similar image with an address becomes a hit
    assert len(exact) == linked(data["image_results"], "link") > 0
    assert len(visual) == len([i for i in data["inline_images"] if str(i.get("source", "")).startswith("http")]) > 0
    first = data["image_results"][0]
    assert (exact[0].title, exact[0].page_url, exact[0].source) == (first["title"], first["link"], first["source"])
    assert all(hit.image_url and hit.image_url.startswith("http") for hit in visual)


@needs_data
@pytest.mark.parametrize("path", YANDEX, ids=lambda p: p.name.split(".")[0][:20] + p.name.split(".")[2][:10])
def test_serpapi_yandex_captures(path: Path) -> None:
    data = load(path)
    backend = SerpApiYandex(EngineSettings(), user_agent="test", clock=SystemClock())
    hits = backend.parse(data)
    exact = [hit for hit in hits if hit.match == "exact"]
    visual = [hit for hit in hits if hit.match == "visual"]
    assert len(exact) == linked(data["image_results"], "link") > 0
    assert len(visual) == linked(data["similar_images"], "link") > 0
    first = data["image_results"][0]
    assert exact[0].image_url == first["original_image"]["link"]
    assert exact[0].width == first["original_image"]["width"]
    # a similar image's own address is the img_url of its Yandex link
    assert sum(1 for hit in visual if hit.image_url) >= len(visual) // 2


def test_the_schema_enum_lists_every_backend() -> None:
    assert list(ReverseBackendName.__args__) == ["auto", *default_registry().reverse_backends()]
