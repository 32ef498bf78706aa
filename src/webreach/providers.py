"""The provider registry: the one list of every provider (web engines, image engines, reverse-image backends) with
its name, kind, key requirement and config section; the search, image search and reverse search services, the
control plane and config validation all consult it.

Web and image engines are the rows of the engine table (engines/_catalog.py), whose modules load when an engine is
first built (one Engine per module: engines/__init__.py); the reverse-image backends are the rows of theirs
(images/reverse/_catalog.py, REVERSE_BACKENDS here), whose modules load when reverse image search or `webreach
engines` first asks for their classes. The Gateway takes a Registry (default: every provider), so a provider added
to one reaches web search, image search, reverse search and `webreach engines` alike. Image engines keep their
registry name (`images_bing`) and are called by their short name (`bing`) at the doors (images/hits.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal, cast

from webreach import engines
from webreach.engines import EngineInfo, Vertical
from webreach.images.reverse import _catalog
from webreach.images.reverse._catalog import REVERSE_BACKENDS as REVERSE_BACKENDS  # the backends' table
from webreach.images.reverse._catalog import ReverseInfo

if TYPE_CHECKING:
    from webreach.engines import Engine
    from webreach.images.reverse import ReverseBackend

ProviderKind = Literal["web", "image", "reverse"]
KINDS: tuple[ProviderKind, ...] = ("web", "image", "reverse")
# a reverse-image backend as the registry takes it: a row of the backends' table (its module imported on first
# use), or a class already imported (tests, plug-ins)
Reverse = ReverseInfo | type["ReverseBackend"]


@dataclass(frozen=True)
class ProviderSpec:
    """One provider: its registry name, what it serves, whether it needs a key, where it is configured (and the
    web engine whose settings it starts from, if any), and what the services instantiate: an engine's row of the
    engine table or a reverse-image backend's row of its table (their modules imported on first use), or a
    backend's class."""

    name: str
    kind: ProviderKind
    needs_key: bool
    config_section: str
    shares_settings_of: str | None
    engine: EngineInfo | None = None
    backend: Reverse | None = None

    @property
    def cls(self) -> type[Engine] | type[ReverseBackend]:
        """The class the services instantiate (an engine's module is imported here, on first use)."""
        if self.engine is not None:
            return engines.load(self.engine)
        assert self.backend is not None  # one of the two, by construction (of_engine, of_reverse)
        return _backend_class(self.backend)

    @classmethod
    def of_engine(cls, name: str, engine: EngineInfo) -> ProviderSpec:
        kind: ProviderKind = "web" if engine.vertical == "web" else "image"
        return cls(name, kind, engine.needs_key, f"engines.{name}", engine.shares_settings_of or None, engine=engine)

    @classmethod
    def of_reverse(cls, backend: Reverse) -> ProviderSpec:
        section = f"images.reverse_settings.{backend.name}"
        return cls(backend.name, "reverse", backend.needs_key, section, backend.web_engine, backend=backend)


@dataclass(frozen=True)
class Registry:
    """Every provider by registry name: web engines, then image engines (each sorted by name), then the
    reverse-image backends in their listed order. The Gateway holds one and hands it to its services."""

    specs: Mapping[str, ProviderSpec]

    @classmethod
    def of(cls, found: Mapping[str, EngineInfo | type[Engine]], reverse: Sequence[Reverse]) -> Registry:
        """The registry of these engines (by name: rows of the engine table, or classes already imported) and
        reverse backends (rows of their table, or classes); RuntimeError when two share a name."""
        infos = {name: e if isinstance(e, EngineInfo) else engines.info_of(e) for name, e in found.items()}
        specs = sorted(
            (ProviderSpec.of_engine(name, info) for name, info in infos.items()),
            key=lambda spec: (spec.kind != "web", spec.name),
        )
        specs += [ProviderSpec.of_reverse(backend) for backend in reverse]
        names = [spec.name for spec in specs]
        if len(set(names)) != len(names):
            raise RuntimeError(f"two providers share a name: {sorted({n for n in names if names.count(n) > 1})}")
        return cls(MappingProxyType({spec.name: spec for spec in specs}))

    def names(self, kind: ProviderKind) -> list[str]:
        """The registry names of one kind's providers, in the registry's order."""
        return [name for name, spec in self.specs.items() if spec.kind == kind]

    def engine_infos(self) -> Mapping[str, EngineInfo]:
        """The web and image engines' rows (what the search service builds a policy stack for), by registry name:
        everything about them but their code, which loads when an engine is first built."""
        return self._engine_infos

    @cached_property
    def _engine_infos(self) -> Mapping[str, EngineInfo]:
        # once per registry (it never changes): every search checks its engine names here, and filtering the specs
        # anew took 37 issubclass calls per name, 11 names per auto search: about a quarter of a cached MCP call's
        # CPU (bench/mcp_anchor.py, cProfile)
        return MappingProxyType({name: spec.engine for name, spec in self.specs.items() if spec.engine is not None})

    def engine_info(self, name: str, *, allow_modes: bool = True, vertical: Vertical | None = "web") -> EngineInfo:
        """Engine `name`'s row, of `vertical` (None: of any), or UnknownEngineError listing this registry's names."""
        return engines.engine_info(name, allow_modes=allow_modes, vertical=vertical, infos=self.engine_infos())

    def reverse_backends(self) -> Mapping[str, type[ReverseBackend]]:
        """The reverse-image backends (what reverse image search asks), by name, in the registry's order: their
        classes, so their modules are imported here (a web search never asks)."""
        return MappingProxyType(
            {name: _backend_class(spec.backend) for name, spec in self.specs.items() if spec.backend is not None}
        )


@cache
def default_registry() -> Registry:
    """The registry of every engine in the engine table (engines/_catalog.py) and every backend in the backends'
    table (images/reverse/_catalog.py), no module of either imported (built once: neither changes)."""
    return Registry.of(engines.ENGINES, REVERSE_BACKENDS)


def _backend_class(backend: Reverse) -> type[ReverseBackend]:
    return cast("type[ReverseBackend]", _catalog.load(backend)) if isinstance(backend, ReverseInfo) else backend
