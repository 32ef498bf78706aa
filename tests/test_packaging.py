"""The wheel ships the package with its public fake web (webreach.testing), and leaves out the test-only tooling
that tests/ and bench/ import from the source tree: the throwaway PostgreSQL cluster and the fuzz mutations."""

from __future__ import annotations

import re
from pathlib import Path

from hatchling.builders.wheel import WheelBuilder

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "webreach"
TEST_ONLY = {
    "webreach/testing/postgres.py",
    "webreach/testing/redis.py",
    "webreach/testing/mutations.py",
    "webreach/testing/balancer.py",
    "webreach/testing/fleet.py",
    "webreach/testing/environment.py",
    "webreach/testing/server_process.py",
}
IMPORTS_TEST_ONLY = re.compile(
    r"webreach\.testing(?:\.| import )(?:postgres|mutations)\b"  # absolute: from webreach.testing(.| import )x
    r"|from \.(?:postgres|mutations) "  # relative, inside webreach.testing
)


def _wheel_files() -> set[str]:
    """What `pip wheel .` packs, read from the same hatch configuration without building it."""
    return {included.distribution_path for included in WheelBuilder(str(ROOT)).recurse_included_files()}


def _shipped_sources() -> set[str]:
    return {path.relative_to(PACKAGE.parent).as_posix() for path in PACKAGE.rglob("*.py")} - TEST_ONLY


def test_the_wheel_leaves_out_the_test_only_tooling() -> None:
    files = _wheel_files()
    assert TEST_ONLY.isdisjoint(files)
    assert _shipped_sources() <= files  # every other module ships, the fake web included
    assert "webreach/testing/fakeweb.py" in files
    assert any(name.startswith("webreach/testing/recordings/") for name in files)


def test_no_shipped_module_imports_the_test_only_tooling() -> None:
    importers = [
        name for name in sorted(_shipped_sources()) if IMPORTS_TEST_ONLY.search((PACKAGE.parent / name).read_text())
    ]
    assert importers == []
