"""The engine-name check and its error have one definition (errors.UnknownEngineError), used by every layer."""

from __future__ import annotations

import pytest

from webreach import engines
from webreach.errors import InvalidInputError, UnknownEngineError
from webreach.tools.definitions import check_engine


def test_the_check_passes_names_and_modes_and_refuses_the_rest() -> None:
    assert UnknownEngineError.check("bing", ["bing", "mojeek"]) == "bing"
    assert UnknownEngineError.check("auto", ["bing"], modes=("auto",)) == "auto"
    with pytest.raises(UnknownEngineError) as caught:
        UnknownEngineError.check("nosuch", {"mojeek", "bing"}, modes=("auto",))
    error = caught.value
    assert isinstance(error, InvalidInputError) and error.code == "invalid_input"
    assert (error.names, error.valid) == (("nosuch",), ("bing", "mojeek"))  # a set is listed sorted
    assert error.message == "unknown engine 'nosuch'" and error.hint == "Valid engines: auto, bing, mojeek."


def test_several_unknown_names_and_a_trailing_choice() -> None:
    error = UnknownEngineError(["a", "b"], ["bing"], also="; or all for every engine")
    assert error.message == "unknown engines 'a', 'b'"
    assert error.hint == "Valid engines: bing; or all for every engine."


def test_the_registry_and_the_tools_raise_the_same_error() -> None:
    with pytest.raises(UnknownEngineError) as registry:
        engines.engine_class("nosuch")
    assert registry.value.hint is not None and registry.value.hint.startswith("Valid engines: auto, multi, ")
    with pytest.raises(UnknownEngineError) as tools:
        check_engine("multi", ["bing"])
    assert tools.value.hint == "Use web_search_multi to ask several engines at once. Valid engines: auto, bing."
