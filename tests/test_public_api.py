"""The public surface: one sorted __all__ that names every public object the package exports."""

from __future__ import annotations

import inspect

import webreach
from webreach import errors


def test_all_is_sorted_and_unique() -> None:
    assert webreach.__all__ == sorted(set(webreach.__all__))


def test_all_is_complete() -> None:
    public = {name for name, obj in vars(webreach).items() if not name.startswith("_") and not inspect.ismodule(obj)}
    public -= {"annotations"}
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
