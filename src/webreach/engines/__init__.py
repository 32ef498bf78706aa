"""Engine discovery: every engine has a row in the engine table (engines/_catalog.py ENGINES) and a module in this
folder (not starting with "_") defining exactly one Engine, imported when it is first used.

The provider registry (webreach/providers.py) lists these beside the reverse-image backends; services, CLI choices,
tool-schema enums and docs consult it, from the table alone. The helpers a provider outside this package builds on
(Provider, the JSON and HTML readers) are exported here, so no other package imports this one's private modules;
they too load on first use (a module `__getattr__`), so importing this package loads the table and nothing else.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, cast

from webreach.engines._catalog import (
    ENGINES,
    ROW_FIELDS,
    EngineInfo,
    EngineKind,
    Vertical,
    check_configured,
    keyless,
    pace,
)
from webreach.errors import UnknownEngineError

if TYPE_CHECKING:  # what mypy and IDEs see; at run time each name is imported from its module on first use
    from webreach.clock import Clock
    from webreach.config import EngineSettings
    from webreach.engines._base import Engine, Tokens
    from webreach.engines._html import attribute, parse_html
    from webreach.engines._json import json_object
    from webreach.engines._provider import Provider

__all__ = [
    "ENGINES",
    "Engine",
    "EngineInfo",
    "EngineKind",
    "Provider",
    "Tokens",
    "Vertical",
    "attribute",
    "check_configured",
    "create",
    "engine_class",
    "engine_classes",
    "engine_info",
    "info_of",
    "json_object",
    "keyless",
    "load",
    "names",
    "pace",
    "parse_html",
]

# the helpers exported lazily, by the private module each lives in
_EXPORTS: Mapping[str, str] = MappingProxyType(
    {
        "Engine": "_base",
        "Tokens": "_base",
        "attribute": "_html",
        "parse_html": "_html",
        "json_object": "_json",
        "Provider": "_provider",
    }
)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def load(info: EngineInfo) -> type[Engine]:
    """The class of engine `info`, its module imported on first use (the import system makes that thread-safe)."""
    if info.loaded is not None:
        return cast("type[Engine]", info.loaded)
    module = importlib.import_module(info.module or f"{__name__}.{info.name}")
    found: type[Engine] = getattr(module, info.cls_name)
    return found


def info_of(engine: type[Engine]) -> EngineInfo:
    """The row of an engine class outside the table (a test's or a plug-in's): its ClassVars, as imported."""
    rules = {field: getattr(engine, field) for field in ROW_FIELDS}
    return EngineInfo(engine.name, engine.__name__, module=engine.__module__, loaded=engine, **rules)


@cache
def engine_classes() -> Mapping[str, type[Engine]]:
    """Every engine class by name, every engine module imported (what only a full check needs: parsing a saved
    page with auto, the doctor, tests); computed once, read-only."""
    return MappingProxyType({name: load(info) for name, info in ENGINES.items()})


def names(vertical: Vertical = "web", infos: Mapping[str, EngineInfo] | None = None) -> list[str]:
    """The engine names of one vertical (web search's by default; image search's are `images_<engine>`), sorted;
    of `infos` (the provider registry's) when given, else of the engine table's."""
    found = ENGINES if infos is None else infos
    return sorted(name for name, info in found.items() if info.vertical == vertical)


def engine_info(
    name: str,
    *,
    allow_modes: bool = True,
    vertical: Vertical | None = "web",
    infos: Mapping[str, EngineInfo] | None = None,
) -> EngineInfo:
    """The row of `name` (of `vertical`; None: of any) among `infos` (default: the engine table's), or
    UnknownEngineError listing the valid names: the one engine-name check, which imports no engine.

    The hint lists the routing modes auto and multi too when the caller accepts them (search does; parsing a
    saved page needs one real engine, so it passes allow_modes=False).
    """
    found = (ENGINES if infos is None else infos).get(name)
    if found is not None and vertical in (None, found.vertical):
        return found
    valid = names(vertical or "web", infos)
    raise UnknownEngineError([name], valid, modes=("auto", "multi") if allow_modes else ())


def engine_class(
    name: str,
    *,
    allow_modes: bool = True,
    vertical: Vertical | None = "web",
    infos: Mapping[str, EngineInfo] | None = None,
) -> type[Engine]:
    """The class for `name` (checked as engine_info checks it), its module imported."""
    return load(engine_info(name, allow_modes=allow_modes, vertical=vertical, infos=infos))


def create(
    name: str, settings: EngineSettings | None = None, *, user_agent: str = "Mozilla/5.0", clock: Clock | None = None
) -> Engine:
    """An engine instance configured with `settings`, reading the time (for date-based filters) from `clock`."""
    return engine_class(name, vertical=None)(settings, user_agent=user_agent, clock=clock)
