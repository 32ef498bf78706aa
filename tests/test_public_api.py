"""The public surface: one sorted __all__ that names every public object the package exports."""

from __future__ import annotations

import importlib
import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

import webreach
from webreach import errors
from webreach.testing import FakeWeb


def test_all_is_sorted_and_unique() -> None:
    assert webreach.__all__ == sorted(set(webreach.__all__))


def test_all_is_complete() -> None:
    """Every public name the package holds (after each lazy one has loaded) is in __all__."""
    for name in webreach.__all__:
        getattr(webreach, name)
    public = {name for name, obj in vars(webreach).items() if not name.startswith("_") and not inspect.ismodule(obj)}
    public -= {"annotations", "TYPE_CHECKING", "Any"}  # the lazy loader's own imports
    assert public == set(webreach.__all__)


def test_every_exported_error_is_in_the_tree() -> None:
    for name in webreach.__all__:
        obj = getattr(webreach, name)
        if name.endswith("Error"):
            assert issubclass(obj, webreach.WebreachError)


def test_the_whole_error_tree_is_exported() -> None:
    tree = {
        name
        for name, obj in vars(errors).items()
        if inspect.isclass(obj) and issubclass(obj, errors.WebreachError) and obj.__module__ == errors.__name__
    }
    assert tree <= set(webreach.__all__)


def test_the_read_side_is_public() -> None:
    assert {"ReadRequest", "Page", "FetchError", "RobotsDisallowedError"} <= set(webreach.__all__)


def test_every_public_name_resolves_from_its_module() -> None:
    """The lazy table (webreach._EXPORTS) names every public name, each from the module it lives in."""
    assert set(webreach._EXPORTS) == set(webreach.__all__)
    for name, module in webreach._EXPORTS.items():
        assert getattr(webreach, name) is getattr(importlib.import_module(module), name)
    assert set(webreach.__all__) <= set(dir(webreach))


@pytest.mark.slow  # a second or more (measured 2026-11-28): the full suite runs it
def test_every_public_name_loads_lazily_in_a_fresh_interpreter() -> None:
    """In a fresh interpreter each name resolves on first use, `webreach.search` stays the function after the
    webreach.search package loads, and an unknown name is an AttributeError."""
    script = (
        "import importlib, inspect, webreach\n"
        "import webreach.search.canary\n"
        "assert inspect.isfunction(webreach.search), webreach.search\n"
        "for name in webreach.__all__:\n"
        "    assert getattr(webreach, name) is getattr(importlib.import_module(webreach._EXPORTS[name]), name), name\n"
        "assert inspect.isfunction(webreach.search)\n"
        "try:\n    webreach.NoSuchName\nexcept AttributeError:\n    pass\nelse:\n    raise AssertionError\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)


@pytest.mark.parametrize(
    ("model", "fields", "field"),
    [
        ("SearchRequest", {"query": ""}, "query"),
        ("SearchRequest", {"query": "x", "limit": 0}, "limit"),
        ("SearchRequest", {"query": "x", "nope": 1}, "nope"),
        ("ReadRequest", {"url": "https://example.org/", "max_chars": 5}, "max_chars"),
    ],
)
def test_constructing_a_request_with_bad_fields_is_a_webreach_error(
    model: str, fields: dict[str, object], field: str
) -> None:
    # the README promises every error is a WebreachError: pydantic's ValidationError must not leak out
    with pytest.raises(webreach.InvalidInputError) as raised:
        getattr(webreach, model)(**fields)
    assert isinstance(raised.value, webreach.WebreachError)
    assert raised.value.message.startswith(f"{field}:")


def test_fetch_is_the_synchronous_read_beside_search(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBREACH_CONFIG", os.devnull)
    monkeypatch.setenv("WEBREACH_STATE__BACKEND", "memory")
    with FakeWeb.in_thread() as web:
        monkeypatch.setenv("WEBREACH_FAKE_WEB", web.url)
        page = webreach.fetch(f"{web.url}/_pages/article", max_chars=2000)
    assert isinstance(page, webreach.Page) and page.status == 200 and page.content
    with pytest.raises(webreach.InvalidInputError):
        webreach.fetch("https://example.org/", max_chars=5)
