"""One owner per rule (issue 36), read from the source: the session header is named once, every tool's `limit`
field is built from models.TOOL_LIMITS, and the README's table of limits is that definition written out."""

from __future__ import annotations

import ast
from pathlib import Path

from source_trees import source_trees
from webreach.models import TOOL_LIMITS

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src" / "webreach"


def trees() -> dict[str, ast.Module]:
    return source_trees()


def test_the_session_header_is_named_once() -> None:
    owners = [
        name
        for name, tree in trees().items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign | ast.AnnAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name) and target.id == "SESSION_HEADER"
    ]
    assert owners == ["frontends/_asgi.py"]


def test_every_limit_field_comes_from_the_one_definition() -> None:
    # a `limit` declared with its own Field(...) (default, ge, le) would be a second definition of its bounds
    declared = {}
    for name, tree in trees().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.AnnAssign) and ast.unparse(item.target) == "limit" and item.value:
                        declared[f"{name}:{node.name}"] = ast.unparse(item.value)
    built = {where for where, value in declared.items() if _from_a_result_limit(value)}
    assert len(built) >= len(TOOL_LIMITS) + 1, declared  # every tool's arguments, and SearchRequest
    assert not [(where, value) for where, value in declared.items() if value.startswith("Field(")]


def test_the_readme_table_is_the_one_definition() -> None:
    readme = (ROOT / "README.md").read_text()
    for tool, limit in TOOL_LIMITS.items():
        assert f"| `{tool}` | {limit.default} | {limit.maximum} |" in readme, tool


def _from_a_result_limit(value: str) -> bool:
    """Whether a field's value is `<a ResultLimit>.field(...)`: TOOL_LIMITS["web_search"].field(...) and the like."""
    receiver, call, _ = value.partition(".field(")
    return bool(call) and ("TOOL_LIMITS[" in receiver or receiver.startswith("ResultLimit("))
