"""Engine discovery: every module in this folder (not starting with "_") defines exactly one Engine.

The provider registry (webreach/providers.py) lists these beside the reverse-image backends; services, CLI choices,
tool-schema enums and docs consult it. The helpers a provider outside this package builds on (Provider, the JSON
and HTML readers) are exported here, so no other package imports this one's private modules.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Mapping
from functools import cache
from types import MappingProxyType

from webreach.clock import Clock
from webreach.config import EngineSettings
from webreach.engines._base import Engine, Tokens
from webreach.engines._html import attribute, parse_html
from webreach.engines._json import json_object
from webreach.engines._provider import EngineKind, Provider, Vertical
from webreach.errors import UnknownEngineError

__all__ = [
    "Engine",
    "EngineKind",
    "Provider",
    "Tokens",
    "Vertical",
    "attribute",
    "create",
    "engine_class",
    "engine_classes",
    "json_object",
    "names",
    "parse_html",
]


@cache
def engine_classes() -> Mapping[str, type[Engine]]:
    """Every engine class by name, found by scanning this package (computed once, read-only: modules don't change)."""
    found: dict[str, type[Engine]] = {}
    for module_info in pkgutil.iter_modules(__path__):
        if module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        classes = [
            obj
            for obj in vars(module).values()
            if inspect.isclass(obj)
            and issubclass(obj, Engine)
            and obj.__module__ == module.__name__
            and not inspect.isabstract(obj)
        ]
        if len(classes) != 1 or classes[0].name != module_info.name:
            raise RuntimeError(f"engines/{module_info.name}.py must define one Engine named {module_info.name!r}")
        found[module_info.name] = classes[0]
    return MappingProxyType(dict(sorted(found.items())))


def names(vertical: Vertical = "web", classes: Mapping[str, type[Engine]] | None = None) -> list[str]:
    """The engine names of one vertical (web search's by default; image search's are `images_<engine>`), sorted;
    of `classes` (the provider registry's) when given, else of this package's."""
    found = engine_classes() if classes is None else classes
    return [name for name, cls in found.items() if cls.vertical == vertical]


def engine_class(
    name: str,
    *,
    allow_modes: bool = True,
    vertical: Vertical | None = "web",
    classes: Mapping[str, type[Engine]] | None = None,
) -> type[Engine]:
    """The class for `name` (of `vertical`; None: of any) among `classes` (default: this package's), or
    UnknownEngineError listing the valid names: the one engine-name check.

    The hint lists the routing modes auto and multi too when the caller accepts them (search does; parsing a
    saved page needs one real engine, so it passes allow_modes=False).
    """
    found = (engine_classes() if classes is None else classes).get(name)
    if found is not None and vertical in (None, found.vertical):
        return found
    valid = names(vertical or "web", classes)
    raise UnknownEngineError([name], valid, modes=("auto", "multi") if allow_modes else ())


def create(
    name: str, settings: EngineSettings | None = None, *, user_agent: str = "Mozilla/5.0", clock: Clock | None = None
) -> Engine:
    """An engine instance configured with `settings`, reading the time (for date-based filters) from `clock`."""
    return engine_class(name, vertical=None)(settings, user_agent=user_agent, clock=clock)
