"""The engine registry: every module in this folder (not starting with "_") defines exactly one Engine.

The registry is the only list of engine names; CLI choices, tool-schema enums and docs derive from it.
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
from webreach.engines._base import Engine, EngineKind, Tokens, Vertical
from webreach.errors import UnknownEngineError

__all__ = [
    "Engine",
    "EngineKind",
    "Tokens",
    "Vertical",
    "create",
    "engine_class",
    "engine_classes",
    "names",
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


def names(vertical: Vertical = "web") -> list[str]:
    """The engine names of one vertical (web search's by default; image search's are `images_<engine>`), sorted."""
    return [name for name, cls in engine_classes().items() if cls.vertical == vertical]


def engine_class(name: str, *, allow_modes: bool = True, vertical: Vertical | None = "web") -> type[Engine]:
    """The class for `name` (of `vertical`; None: of any), or InvalidInputError listing the valid names.

    The hint lists the routing modes auto and multi too when the caller accepts them (search does; parsing a
    saved page needs one real engine, so it passes allow_modes=False).
    """
    found = engine_classes().get(name)
    if found is not None and vertical in (None, found.vertical):
        return found
    raise UnknownEngineError([name], names(vertical or "web"), modes=("auto", "multi") if allow_modes else ())


def create(
    name: str, settings: EngineSettings | None = None, *, user_agent: str = "Mozilla/5.0", clock: Clock | None = None
) -> Engine:
    """An engine instance configured with `settings`, reading the time (for date-based filters) from `clock`."""
    return engine_class(name, vertical=None)(settings, user_agent=user_agent, clock=clock)
