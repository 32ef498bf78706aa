"""The package's source files parsed once per test run (several architecture tests read every module's AST;
parsing the tree costs about a second each time)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "src" / "webreach"


@functools.cache
def source_tree(path: Path) -> ast.Module:
    """The AST of one source file (read as UTF-8)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def source_trees() -> dict[str, ast.Module]:
    """Every module of the package by its path under src/webreach, in path order."""
    return {str(path.relative_to(SOURCE)): source_tree(path) for path in sorted(SOURCE.rglob("*.py"))}
