"""The public surface: one sorted __all__ that names every public object the package exports."""

from __future__ import annotations

import inspect

import webreach


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
