"""The provider registry (webreach/providers.py) is the single source of provider names: every door, service and
check that accepts a web engine, an image engine or a reverse-image backend takes its names from it, and a
provider added to a registry reaches every service that should see it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from webreach import engines
from webreach.config import Settings, StateSettings
from webreach.engines import Engine, Provider
from webreach.engines.bing import Bing
from webreach.engines.images_bing import ImagesBing
from webreach.errors import InvalidInputError
from webreach.frontends._cli_engine_reset import check_names
from webreach.gateway import Gateway
from webreach.images.hits import short_name
from webreach.images.reverse.tineye import TinEye
from webreach.models import SearchRequest
from webreach.providers import REVERSE_BACKENDS, Registry, default_registry
from webreach.testing import FakeWeb
from webreach.tools.image_tools import ImageEngineName
from webreach.tools.reverse_tools import ReverseBackendName


class ExtraWeb(Bing):
    """A web engine only the test's registry knows: Bing's parser under another name."""

    name: ClassVar[str] = "zz_web"


class ExtraImages(ImagesBing):
    name: ClassVar[str] = "images_zz"


class ExtraReverse(TinEye):
    name: ClassVar[str] = "zz_reverse"


@pytest.fixture
async def web() -> AsyncIterator[FakeWeb]:
    async with FakeWeb() as server:
        yield server


def settings_for(tmp_path: Path, **fields: Any) -> Settings:
    return Settings(state=StateSettings(path=tmp_path / "state.sqlite3"), **fields)


def extended() -> Registry:
    classes = {**engines.engine_classes(), "zz_web": ExtraWeb, "images_zz": ExtraImages}
    return Registry.of(classes, (*REVERSE_BACKENDS, ExtraReverse))


def test_the_registry_lists_every_provider_with_its_kind_key_and_section() -> None:
    registry = default_registry()
    assert registry.names("web") == engines.names("web")
    assert registry.names("image") == engines.names("images")
    assert registry.names("reverse") == [cls.name for cls in REVERSE_BACKENDS]
    assert list(registry.specs) == [*registry.names("web"), *registry.names("image"), *registry.names("reverse")]
    bing, images_bing, lens = (registry.specs[n] for n in ("bing", "images_bing", "serpapi_lens"))
    assert (bing.kind, bing.config_section, bing.needs_key, bing.shares_settings_of) == (
        "web", "engines.bing", False, None,
    )  # fmt: skip
    assert (images_bing.kind, images_bing.config_section, images_bing.shares_settings_of) == (
        "image", "engines.images_bing", "bing",
    )  # fmt: skip
    assert (lens.kind, lens.config_section, lens.needs_key, lens.shares_settings_of) == (
        "reverse", "images.reverse_settings.serpapi_lens", True, "serpapi",
    )  # fmt: skip
    assert all(spec.needs_key == spec.cls.needs_key for spec in registry.specs.values())


def test_two_providers_of_one_name_are_refused() -> None:
    with pytest.raises(RuntimeError, match="tineye"):
        Registry.of(engines.engine_classes(), (*REVERSE_BACKENDS, TinEye))


def test_tool_schemas_spell_out_the_registrys_names() -> None:
    registry = default_registry()
    assert sorted(ImageEngineName.__args__) == sorted(short_name(n) for n in registry.names("image"))
    assert list(ReverseBackendName.__args__) == ["auto", *registry.names("reverse")]


async def test_every_name_a_door_or_check_accepts_comes_from_the_registry(tmp_path: Path) -> None:
    registry = default_registry()
    async with Gateway.from_settings(settings_for(tmp_path)) as gateway:
        assert gateway.engine_names() == registry.names("web")  # search --engine, parse, config validation
        assert gateway.images.engine_names() == [short_name(n) for n in registry.names("image")]
        assert gateway.images.reverse.names() == registry.names("reverse")
        assert gateway.engines.breaker_names() == list(registry.specs)  # engines --reset
        assert [status.name for status in gateway.engines.statuses()] == list(registry.specs)  # `webreach engines`
        reverse_rules = [status for status in gateway.engines.statuses() if status.vertical == "reverse"]
    assert check_names(["all"], gateway.engines.breaker_names()) == list(registry.specs)
    assert reverse_rules and all(status.needs_key == registry.specs[status.name].needs_key for status in reverse_rules)


async def test_a_backends_rules_are_a_provider_not_an_engine(tmp_path: Path) -> None:
    async with Gateway.from_settings(settings_for(tmp_path)) as gateway:
        rules = [backend.rules for backend in gateway.images.reverse.backends.values()]
    assert rules and all(isinstance(r, Provider) and not isinstance(r, Engine) for r in rules)


async def test_a_provider_added_to_the_registry_reaches_every_service(web: FakeWeb, tmp_path: Path) -> None:
    settings = settings_for(
        tmp_path,
        engines={"zz_web": {"base_url": web.engine_url("bing")}},
        images={"reverse_backends": ["zz_reverse", "tineye"]},
    )
    async with Gateway.from_settings(settings, providers=extended()) as gateway:
        assert "zz_web" in gateway.engine_names()
        assert settings.unknown_engines(gateway.engine_names()) == []  # config validation accepts it
        assert "zz" in gateway.images.engine_names()
        assert gateway.images.reverse.names()[-1] == "zz_reverse"
        assert {"zz_web", "images_zz", "zz_reverse"} <= set(gateway.engines.breaker_names())
        listed = {status.name: status.vertical for status in gateway.engines.statuses()}
        for name in ("zz_web", "images_zz", "zz_reverse"):
            gateway.engines.reset(name)  # each has a breaker the control plane can close
        response = await gateway.search(SearchRequest(query="python asyncio", limit=3), engine="zz_web")
    assert (listed["zz_web"], listed["images_zz"], listed["zz_reverse"]) == ("web", "images", "reverse")
    assert response.results and {hit.engine for hit in response.results} == {"zz_web"}
    assert web.count("bing") == 1  # the added engine searched, through the fake web's Bing


async def test_a_registry_without_a_provider_refuses_its_name_everywhere(tmp_path: Path) -> None:
    classes = {name: cls for name, cls in engines.engine_classes().items() if name not in ("bing", "images_bing")}
    registry = Registry.of(classes, [cls for cls in REVERSE_BACKENDS if cls.name != "tineye"])
    settings = settings_for(tmp_path, images={"reverse_backends": ["yandex"]})
    async with Gateway.from_settings(settings, providers=registry) as gateway:
        assert "bing" not in gateway.engine_names() and "bing" not in gateway.images.engine_names()
        with pytest.raises(InvalidInputError, match="bing"):
            await gateway.search(SearchRequest(query="cats"), engine="bing")
        with pytest.raises(InvalidInputError, match="tineye"):
            gateway.engines.reset("tineye")
        with pytest.raises(InvalidInputError, match="tineye"):
            await gateway.images.reverse.search(b"", "image/png", url=None, limit=3, backend="tineye")
