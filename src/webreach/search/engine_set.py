"""The engines of one set of settings: each engine's row and settings at hand (what listing, usable(), auto's order
and the log filter read), its instance and policy stack built when a search first asks it.

Building imports the engine's module (and, for a scraped engine, selectolax): an idle server holds none of them
(issue 38, idle memory). Two first calls at once, on threads or tasks, build one engine: the build runs under a
lock, and what is built is never replaced (Searching.reconfigure makes a new set).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from webreach.engines import EngineInfo

if TYPE_CHECKING:
    from webreach.config import EngineSettings
    from webreach.engines import Engine
    from webreach.policies import Search

# an engine's instance and its policy stack, from its row and settings
Build = Callable[[EngineInfo, "EngineSettings"], "tuple[Engine, Search]"]


class EngineSet:
    """Every engine of `infos` (by registry name, in the registry's order) under `settings_of(name)`, each built by
    `build` on first use."""

    def __init__(
        self, infos: Mapping[str, EngineInfo], settings_of: Callable[[str], EngineSettings], build: Build
    ) -> None:
        self.infos = infos
        self.settings: Mapping[str, EngineSettings] = {name: settings_of(name) for name in infos}
        # each row as its settings make it (SerpApi's `engine` option picks its index and parameters)
        self.configured: Mapping[str, EngineInfo] = {
            name: info.configured(self.settings[name]) for name, info in infos.items()
        }
        self._build = build
        self._built: dict[str, tuple[Engine, Search]] = {}
        self._lock = threading.Lock()

    def engine(self, name: str) -> Engine:
        """Engine `name` (a registry name), built on first use."""
        return self._built_one(name)[0]

    def search(self, name: str) -> Search:
        """Engine `name`'s policy stack, built with the engine on first use."""
        return self._built_one(name)[1]

    def built(self) -> list[str]:
        """The names of the engines built so far."""
        return list(self._built)

    def _built_one(self, name: str) -> tuple[Engine, Search]:
        found = self._built.get(name)  # the hot path: one dict read, no lock
        if found is None:
            with self._lock:
                found = self._built.get(name)
                if found is None:
                    found = self._built[name] = self._build(self.infos[name], self.settings[name])
        return found
