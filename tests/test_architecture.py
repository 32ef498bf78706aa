"""The dependency direction of ARCHITECTURE.md section 2, checked on the import statements of src/.

    frontends -> tools -> gateway -> search | read -> routing | policies | net | extract -> state -> engines
    -> models | errors | config | clock | retry_after | nesting | bounded_json

ALLOWED lists every arrow between top-level packages, same layer included: an import not listed fails, so a
new arrow is a decision made here, in review, not an accident. The Search/EngineResult contract lives with the
policies (policies/contract.py): routing calls Searches, so routing -> policies is a same-layer arrow. Each
third-party SDK stays in its one module, and the modules import each other without a cycle.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

from source_trees import source_tree

SRC = Path(__file__).resolve().parents[1] / "src" / "webreach"

BOTTOM = {"models", "errors", "config", "clock", "retry_after", "nesting", "bounded_json", "local_files"}
BOTTOM |= {"engine_attempt"}  # EngineAttempt, below models and errors so neither imports the other back
BOTTOM |= {"defaults"}  # the defaults `webreach --help` shows without loading models (issue 38)
BOTTOM |= {"attribute_floods"}  # attribute floods cut before either HTML parser sees them (issue 35)
BOTTOM |= {"network_failure"}  # connect failures told apart, for engines (search) and the fake web (net) (issue 41)
BOTTOM |= {"telemetry"}  # OpenTelemetry spans when the OTEL_* variables ask (issue 37)
BOTTOM |= {"sqlite_wal"}  # WAL switched on while other processes open the same file (state/, accounts/)
BOTTOM |= {"schema_patterns"}  # the schemas' text patterns as Python reads them, and the empty-query message
BOTTOM |= {"ledger_url"}  # a ledger URL's SQLite file: accounts/ and the CLI answer memo read it alike
BOTTOM |= {"user_dirs"}  # the per-user directories, found before the settings load (the CLI answer memo, issue 38)
# every package -> the packages it may import
ALLOWED: dict[str, set[str]] = {
    "frontends": {"tools", "gateway", "testing", "answer_memo"} | BOTTOM,
    # the CLI's answer memo (issue 38): a replay remembers its refs through the state file's own SQL
    "answer_memo": {"state"} | BOTTOM,
    "tools": {"gateway", "state", "accounts", "images"} | BOTTOM,
    "gateway": {"search", "read", "policies", "extract", "net", "state", "accounts", "images", "configdb", "control"}
    | {"providers"}
    | BOTTOM,
    # the control plane beside the Gateway (engines' operations, the console's settings), over its search service
    "control": {"search", "policies", "images", "configdb", "state", "providers"} | BOTTOM,
    # the console's settings in the database (issue 15): on the ledger's database (accounts/database.py), owned by
    # the Gateway, which layers them into the settings it builds engines from
    "configdb": {"accounts"} | BOTTOM,
    # images (issue 14): decoding, crops, tokens in messages and image search; its store lives in state/, and
    # each image engine wraps the web engine of its name (keys, base URL, error classification)
    "images": {"state", "engines"} | BOTTOM,
    # the ledger: the Gateway owns it (one per gateway, closed with it), the tools' call policies meter through it
    "accounts": BOTTOM,
    "search": {"routing", "policies", "engines", "state", "providers"} | BOTTOM,
    # the one provider registry (web engines, image engines, reverse-image backends): the services consult it
    "providers": {"engines", "images"} | BOTTOM,
    # a third-party reader (Jina) is paced by the engines' token bucket, in their shared store (reader_pace.py)
    "read": {"net", "extract", "policies", "state"} | BOTTOM,
    "routing": {"policies"} | BOTTOM,
    "policies": {"state"} | BOTTOM,
    "net": {"clock", "errors", "retry_after", "network_failure"},
    "extract": {"errors", "models", "nesting", "attribute_floods", "bounded_json", "telemetry"},
    "state": BOTTOM,
    "engines": BOTTOM,
    # the fake web on the net seams; the fleet of the replica tests (testing/fleet.py) makes its agent in the ledger
    "testing": {"net", "clock", "accounts", "config"},
    "models": {"errors", "engine_attempt", "defaults", "schema_patterns"},
    "errors": {"engine_attempt"},  # AllEnginesFailedError carries the attempts
    "engine_attempt": set(),
    "defaults": set(),  # plain constants: the request limits and the canary query (issue 38)
    "config": {"errors", "defaults", "user_dirs"},  # defaults: plain constants (the drop-in profile names, issue 39)
    "clock": set(),
    "retry_after": set(),  # the one Retry-After reading: engines, net and read all use it
    # hostile markup and JSON made safe to parse, for the extractor and the engine parsers alike
    "nesting": set(),
    "attribute_floods": set(),
    "bounded_json": set(),
    "network_failure": {"errors"},  # connect failures told apart: engines (search) and the fake web (net)
    "local_files": {"errors"},  # the one bounded read of a user's local file: the CLI door and read/ use it
    "telemetry": {"engine_attempt"},  # an engine attempt's span
    "sqlite_wal": set(),  # SQLite in WAL mode, retried while another process switches the same file
    "user_dirs": set(),
    "ledger_url": set(),
    "schema_patterns": set(),
}
# the public API and the module entry point re-export from anywhere
UNCHECKED = {"__init__", "__main__"}
FORBIDDEN_FOR_FRONTENDS = {"accounts", "engines", "policies", "routing", "state", "search", "read", "net", "extract"}
# third-party SDKs and the only modules (or folders, ending in "/") that may import them
CONFINED = {
    # the CLI and its helper modules (_cli_*.py: option groups such as -v/-q and serve's log options)
    "click": ("frontends/cli.py", "frontends/_cli_", "frontends/_render.py"),
    "rich": ("frontends/_render.py",),
    "selectolax": ("engines/",),
    "trafilatura": ("extract/cascade.py",),
    "pypdf": ("extract/pdf.py",),
    "playwright": ("read/readers/browser.py", "read/readers/browser_routing.py"),
    # the stdio door's end-of-input handling and its line filter beside it
    "mcp": ("frontends/mcp.py", "frontends/_mcp_drain.py", "frontends/_mcp_lines.py", "frontends/_mcp_state.py"),
    # the HTTP door's own modules: the app, its docs, the admin gate, the admin endpoints and the agents' keys
    "starlette": (
        "frontends/_http_",  # the app, its routes, the tool calls and the runner (frontends/http.py gathers them)
        "frontends/_openapi.py",
        "frontends/_admin.py",
        "frontends/_admin_engines.py",
        "frontends/_admin_agents.py",
        "frontends/_admin_config.py",
        "frontends/_agent_auth.py",
        "frontends/_image_routes.py",  # GET /i/<id> and the multipart upload (issue 14)
        "frontends/_rest_errors.py",  # the REST envelope of the one error body
        "frontends/_readiness.py",  # GET /readyz (issue 37)
        "frontends/_metrics.py",  # GET /metrics (issue 37)
        "frontends/_console",  # the operator console's access rule and pages
    ),
    "jinja2": ("frontends/_console",),
    "prometheus_client": ("frontends/_metrics.py",),
    "uvicorn": ("frontends/_http_run.py", "frontends/_listening.py"),  # the server, and the protocol it listens with
    "protego": ("net/robots.py",),
    "platformdirs": ("user_dirs.py",),
    "PIL": ("images/", "testing/mutations.py"),  # the image fuzz builds its seed images (image_seeds)
    "boto3": ("images/storage.py",),
    "psycopg": ("accounts/postgres.py", "testing/postgres.py"),
    "cryptography": ("configdb/secret_box.py",),
    "cachetools": (
        "net/robots.py",
        "read/page_cache.py",
        "state/cache_store.py",
        "search/warm_up.py",
        "frontends/_recent_refs.py",
        "accounts/agent_cache.py",
    ),
}


def _modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py"))


def _part(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0].removesuffix(".py")


def _imports(path: Path) -> list[str]:
    """Every webreach module or package `path` imports, in every form: `import webreach.x`, `from webreach.x import
    y` (y when it is a module), `from webreach import x`, relative imports, and those under TYPE_CHECKING (an
    annotation-only import is still an arrow, and a cycle through one is still a cycle)."""
    modules = _module_names()
    own = _module_name(path)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    found: list[str] = []
    for node in ast.walk(source_tree(path)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.append(submodule if submodule in modules else base)
    return found


@functools.cache
def _module_names() -> frozenset[str]:
    return frozenset(_module_name(p) for p in _modules())


def _target(name: str) -> str | None:
    """The package an import of `name` reaches, None when it is not webreach's."""
    parts = name.split(".")
    if parts[0] != "webreach" or len(parts) < 2:
        return None
    return parts[1]


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_imports_follow_the_allowed_arrows(path: Path) -> None:
    part = _part(path)
    where = path.relative_to(SRC).as_posix()
    if part in UNCHECKED:
        return
    for name in _imports(path):
        assert name != "webreach", f"{where}: imports the package root (the public API); import the module instead"
        target = _target(name)
        if target is not None:
            if target.split(".")[0] == part:
                continue
            assert target in ALLOWED[part], f"{where}: {part} -> {target} is not an allowed arrow ({name})"
        elif name.split(".")[0] in CONFINED:
            allowed = CONFINED[name.split(".")[0]]
            assert where.startswith(allowed), f"{name} is imported only in {', '.join(allowed)}, not {where}"


def test_every_package_has_its_arrows_listed() -> None:
    parts = {_part(p) for p in _modules()} - UNCHECKED
    assert parts == set(ALLOWED)


def test_front_doors_stay_above_the_gateway() -> None:
    assert not (ALLOWED["frontends"] & FORBIDDEN_FOR_FRONTENDS)
    assert "tools" not in ALLOWED["gateway"], "the Gateway knows nothing of tools"


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def test_no_import_cycles() -> None:
    """Imports (TYPE_CHECKING ones included) form no cycle between modules; a package counts as its __init__."""
    modules = {_module_name(p): p for p in _modules()}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges = set()
        for imported in _imports(path):
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                edges.add(imported)
        graph[name] = edges
    cycle = _find_cycle(graph)
    assert cycle is None, " -> ".join(cycle or [])


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 visiting, 2 done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_import_linter_contracts_are_kept() -> None:
    """The contracts in pyproject.toml ([tool.importlinter]: layers, doors, tools, root, acyclic), which `.ci/run`
    also runs as `lint-imports`: import-linter reads every import form, TYPE_CHECKING ones included. In a child
    process: import-linter configures logging in the process it runs in, which silenced later tests' loggers."""
    lint = "from importlinter.cli import lint_imports_command; lint_imports_command()"
    root = SRC.parents[1]  # pyproject.toml's folder: import-linter reads its contracts there
    done = subprocess.run(
        [sys.executable, "-c", lint, "--no-cache"], cwd=root, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_module_opens_with_a_docstring() -> None:
    missing = [str(p.relative_to(SRC)) for p in _modules() if ast.get_docstring(source_tree(p)) is None]
    assert missing == []
