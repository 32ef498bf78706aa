"""The reverse-image backends' table (images/reverse/_catalog.py) owns each backend's name, key requirement and web
engine: every backend module has a row and every row its class, each class carries its row's values and no module
sets them itself; the registry lists the backends from the rows without importing a backend module."""

from __future__ import annotations

import ast
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

from webreach.images import reverse
from webreach.images.reverse._base import ReverseBackend
from webreach.images.reverse._catalog import REVERSE_BACKENDS, ReverseInfo, load
from webreach.providers import Registry, default_registry

PACKAGE = Path(reverse.__file__).parent
OWNED = ("name", "needs_key", "web_engine")  # what the table owns
NOT_BACKENDS = {"models", "prepare", "service"}  # the package's other modules


def backend_modules() -> list[str]:
    modules = (m.name for m in pkgutil.iter_modules([str(PACKAGE)]) if not m.name.startswith("_"))
    return sorted(name for name in modules if name not in NOT_BACKENDS)


def test_every_backend_module_has_a_row_and_every_row_a_module() -> None:
    assert sorted(row.module for row in REVERSE_BACKENDS) == backend_modules()
    assert len({row.name for row in REVERSE_BACKENDS}) == len(REVERSE_BACKENDS)


@pytest.mark.parametrize("row", REVERSE_BACKENDS, ids=lambda row: row.name)
def test_each_rows_class_carries_its_values(row: ReverseInfo) -> None:
    cls = load(row)
    assert issubclass(cls, ReverseBackend) and cls.__name__ == row.class_name
    assert (cls.name, cls.needs_key, cls.web_engine) == (row.name, row.needs_key, row.web_engine)


@pytest.mark.parametrize("module", ["_serpapi", *backend_modules()])
def test_no_backend_module_sets_what_the_table_owns(module: str) -> None:
    tree = ast.parse((PACKAGE / f"{module}.py").read_text())
    for node in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for statement in node.body:
            targets = statement.targets if isinstance(statement, ast.Assign) else []
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            assert not set(names) & set(OWNED), f"{module}.{node.name} sets {names}: the table owns them"


def test_the_registry_lists_rows_and_hands_out_classes() -> None:
    registry = default_registry()
    assert registry.names("reverse") == [row.name for row in REVERSE_BACKENDS]
    for row in REVERSE_BACKENDS:
        spec = registry.specs[row.name]
        assert (spec.needs_key, spec.shares_settings_of, spec.config_section) == (
            row.needs_key,
            row.web_engine,
            f"images.reverse_settings.{row.name}",
        )
        assert registry.reverse_backends()[row.name] is load(row) is spec.cls


def test_a_class_outside_the_table_keeps_its_own_values() -> None:
    class Extra(ReverseBackend):
        name = "extra_reverse"
        needs_key = True
        kind = "api"
        base_url = "https://extra.example"
        index = "extra"

        async def search(self, query, send):  # type: ignore[no-untyped-def]
            return []

    registry = Registry.of({}, (*REVERSE_BACKENDS, Extra))
    assert registry.reverse_backends()["extra_reverse"] is Extra and registry.specs["extra_reverse"].needs_key


LISTED = (
    "import json, sys\n"
    "from webreach.providers import default_registry\n"
    "registry = default_registry()\n"
    "names = registry.names('reverse')\n"
    "before = sorted(m for m in sys.modules if m.startswith('webreach.images.reverse.') and 'catalog' not in m)\n"
    "classes = sorted(registry.reverse_backends())\n"
    "print(json.dumps({'names': names, 'before': before, 'classes': classes}))\n"
)


def test_listing_the_registry_imports_no_backend_module() -> None:
    done = subprocess.run([sys.executable, "-c", LISTED], capture_output=True, text=True, check=True, timeout=120)
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["before"] == [] and seen["names"] == [row.name for row in REVERSE_BACKENDS]
    assert seen["classes"] == sorted(row.name for row in REVERSE_BACKENDS)
