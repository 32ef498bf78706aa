"""The reverse-image backends' table: what the provider registry lists of each backend (its name, whether it needs
a key, the web engine whose settings it starts from) and where its class lives, known before its module loads.

The table owns those three values: `ReverseBackend.__init_subclass__` (_base.py) copies a row onto its class when
the module is imported, so no backend module sets them itself (tests/images/test_reverse_catalog.py checks both). A
web search never imports a backend module; reverse image search and `webreach engines` do (`load`).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class ReverseInfo:
    """One reverse-image backend: its registry name, its key requirement, the web engine whose [engines.NAME]
    settings (key, proxy) it starts from, and its class (`module`.`class_name` in this package)."""

    name: str
    module: str
    class_name: str
    needs_key: bool = False
    web_engine: str | None = None


# in the order `webreach engines` lists them (the registry's order)
REVERSE_BACKENDS: tuple[ReverseInfo, ...] = (
    ReverseInfo("serpapi_lens", "serpapi_lens", "SerpApiLens", needs_key=True, web_engine="serpapi"),
    ReverseInfo(
        "serpapi_google_reverse", "serpapi_google_reverse", "SerpApiGoogleReverse", needs_key=True, web_engine="serpapi"
    ),
    ReverseInfo("serpapi_yandex", "serpapi_yandex", "SerpApiYandex", needs_key=True, web_engine="serpapi"),
    ReverseInfo("bing_visual", "bing_visual", "BingVisual", web_engine="bing"),
    ReverseInfo("yandex", "yandex", "Yandex"),
    ReverseInfo("tineye", "tineye", "TinEye"),
    ReverseInfo("searxng_tineye", "searxng_tineye", "SearxngTineye", web_engine="searxng"),
)


def row_of(module: str, class_name: str) -> ReverseInfo | None:
    """The row of the class `class_name` defined in module `module` (a full module name), if it has one."""
    for row in REVERSE_BACKENDS:
        if (f"{__package__}.{row.module}", row.class_name) == (module, class_name):
            return row
    return None


def load(row: ReverseInfo) -> type:
    """The backend class of `row` (its module imported here, on first use): a ReverseBackend, which this bottom
    module does not import (the base class imports it)."""
    module = importlib.import_module(f"{__package__}.{row.module}")
    backend: type = getattr(module, row.class_name)
    return backend
