"""tools/ sees only the Gateway's public surface (issue 36): image operations through the backend protocol
(tools/backend.py: ImageOperations), never the concrete Images class, its pixel workers or storage, nor the ledger
behind Accounts."""

from __future__ import annotations

import ast
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[2] / "src" / "webreach" / "tools"
PAST_THE_SURFACE = {"ledger", "pixels", "storage", "database"}  # attributes of objects below the Gateway


def modules() -> list[tuple[str, ast.Module]]:
    return [(path.name, ast.parse(path.read_text())) for path in sorted(TOOLS.glob("*.py"))]


def test_no_tool_module_imports_the_concrete_images_class() -> None:
    imported = [
        (name, alias.name)
        for name, tree in modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "webreach.images.service"
        for alias in node.names
        if alias.name == "Images"
    ]
    assert imported == []


def test_no_tool_module_reaches_past_the_gateways_objects() -> None:
    reached = [
        (name, node.attr, node.lineno)
        for name, tree in modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in PAST_THE_SURFACE
    ]
    assert reached == []
