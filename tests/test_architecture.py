"""The dependency direction of ARCHITECTURE.md section 2, checked on the import statements of src/.

frontends -> gateway -> routing | policies | fetch | tools | state -> engines -> models | errors | config
Front doors never import engines, policies or routing; engines import only the bottom layer; each
third-party SDK stays in its one module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "webreach"

# the layer a top-level module or package belongs to; higher numbers may import lower ones
LAYERS = {
    "frontends": 5,
    "gateway": 4,
    "searching": 4,
    "tools": 4,
    "routing": 3,
    "policies": 3,
    "fetch": 3,
    "state": 3,
    "engine_client": 3,
    "testing": 3,
    "engines": 2,
    "clock": 1,
    "models": 1,
    "errors": 0,
    "config": 0,
}
FORBIDDEN_FOR_FRONTENDS = {"engines", "policies", "routing", "engine_client", "state", "searching"}
# third-party SDKs and the only modules (or folders, ending in "/") that may import them
CONFINED = {
    "click": ("frontends/cli.py", "frontends/_render.py"),
    "rich": ("frontends/_render.py",),
    "selectolax": ("engines/",),
    "trafilatura": ("fetch/extract.py",),
    "pypdf": ("fetch/pdf.py",),
    "playwright": ("fetch/readers/browser.py", "fetch/readers/browser_routing.py"),
    "mcp": ("frontends/mcp.py",),
    "starlette": ("frontends/http.py", "frontends/_openapi.py"),
    "uvicorn": ("frontends/http.py",),
}


def _modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py"))


def _part(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0].removesuffix(".py")


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node except those under `if TYPE_CHECKING:` (annotations only, no runtime dependency)."""
    nodes: list[ast.AST] = []
    pending = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            continue
        nodes.append(node)
        pending.extend(ast.iter_child_nodes(node))
    return nodes


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
    return found


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_imports_respect_the_layers(path: Path) -> None:
    part = _part(path)
    where = path.relative_to(SRC).as_posix()
    if part in ("__init__", "__main__"):
        return  # the package root re-exports the public API; __main__ starts the CLI
    for name in _imports(path):
        top = name.split(".")
        if top[0] == "webreach" and len(top) > 1:
            target = top[1]
            if target == part or target not in LAYERS:
                continue
            assert LAYERS[target] <= LAYERS[part], f"{part} must not import {name} (a higher layer)"
            if part == "frontends":
                assert target not in FORBIDDEN_FOR_FRONTENDS, f"front doors talk to the gateway, not {name}"
        elif top[0] in CONFINED:
            allowed = CONFINED[top[0]]
            assert where.startswith(allowed), f"{top[0]} is imported only in {', '.join(allowed)}, not {where}"


def test_every_module_opens_with_a_docstring() -> None:
    missing = [str(p.relative_to(SRC)) for p in _modules() if ast.get_docstring(ast.parse(p.read_text())) is None]
    assert missing == []
