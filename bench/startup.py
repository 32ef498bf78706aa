"""Start-up times side by side (issue 38): `python -c pass`, `ddgs --help`, `webreach --help` / `--version`, a cached
`webreach search` (on the fake web, its cache filled first, so no network) and `webreach mcp` answering
`initialize` against a minimal stdio server on the same mcp SDK (bench/_mcp_anchor_stdio.py).

Before (a checkout of main, e.g. `git worktree add /tmp/base-startup main`) and after (this tree) run in ONE run,
interleaved round by round, each through PYTHONPATH=<tree>/src; medians and min-max spreads of wall time.
Each tree's sources are compiled first (`compileall`, as pip does when it installs a package, and as ddgs's own
install is): a checkout run with PYTHONDONTWRITEBYTECODE set (this machine's shells) has no bytecode, and every
timed run then compiled webreach's ~150 modules from source, about a third of a cached search's CPU time.
"libraries only" imports what any webreach command that searches loads before webreach's own code (asyncio, click,
pydantic with pydantic-settings, httpx, which imports rich and pygments for its own command line): the floor under
a cached search while those stay its dependencies.

    PYTHONPATH=src .venv/bin/python bench/startup.py [--rounds 5] [--base /tmp/base-startup] [--ddgs PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}


# what a search's start-up imports before any webreach module: the floor while these stay its dependencies
LIBRARIES = "import asyncio, click, httpx, pydantic_settings\nclass M(pydantic_settings.BaseSettings):\n    x: int = 1"
Sample = tuple[float, float | None]  # wall seconds; CPU seconds (user + system) where the run has a clear end


def timed(argv: list[str], env: dict[str, str]) -> Sample:
    """Wall and CPU seconds for one command to run to its end (it must succeed): CPU stays comparable on a busy
    machine, where wall time does not."""
    start, used = time.perf_counter(), _children_cpu()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=120)
    return time.perf_counter() - start, _children_cpu() - used


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def initialize(argv: list[str], env: dict[str, str]) -> Sample:
    """Seconds from starting a stdio MCP server to its answer to `initialize` (then it is stopped); no CPU time:
    the process's own stops with the process, not with the answer."""
    start = time.perf_counter()
    server = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
        server.stdin.flush()
        line = server.stdout.readline()
        elapsed = time.perf_counter() - start
        if b'"result"' not in line:
            raise RuntimeError(f"no initialize answer from {argv}: {line[:200]!r}")
        return elapsed, None
    finally:
        server.stdin.close()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def start_fake_web(env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    """The fake web (`webreach fakeweb --port 0`) and its URL, for searches that never leave the machine."""
    web = subprocess.Popen(
        [sys.executable, "-m", "webreach", "fakeweb", "--port", "0"], env=env, stderr=subprocess.PIPE
    )
    assert web.stderr is not None
    line = web.stderr.readline().decode()
    if "fake web on" not in line:
        web.kill()
        raise RuntimeError(f"the fake web did not start: {line!r}")
    return web, line.rsplit(" ", 1)[-1].strip()


def tree_env(src: Path, home: Path, fake_web: str) -> dict[str, str]:
    """The environment of one tree: its source first on the path, its own data and cache (so its own cache)."""
    env = {**os.environ, "PYTHONPATH": str(src), "WEBREACH_FAKE_WEB": fake_web}
    env |= {"XDG_DATA_HOME": str(home / "data"), "XDG_CACHE_HOME": str(home / "cache"), "NO_COLOR": "1"}
    env["WEBREACH_CACHE__BACKEND"] = "sqlite"  # the cache outlives the process, so the timed searches are hits
    return env


def compile_sources(src: Path) -> None:
    """Bytecode for every module of a tree, as an installed package has it (pip compiles on install)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], check=True, timeout=600)


def cases(ddgs: str | None, trees: dict[str, dict[str, str]]) -> dict[str, Callable[[], Sample]]:
    py = sys.executable
    base_env = {**os.environ}
    runs: dict[str, Callable[[], Sample]] = {"python -c pass": lambda: timed([py, "-c", "pass"], base_env)}
    runs["libraries only"] = lambda: timed([py, "-c", LIBRARIES], base_env)
    if ddgs:
        runs["ddgs --help"] = lambda: timed([ddgs, "--help"], base_env)
    anchor = [py, str(HERE / "bench" / "_mcp_anchor_stdio.py")]
    runs["anchor stdio initialize"] = lambda: initialize(anchor, base_env)
    for label, env in trees.items():
        wr = [py, "-m", "webreach"]
        runs[f"{label}|webreach --help"] = lambda wr=wr, env=env: timed([*wr, "--help"], env)
        runs[f"{label}|webreach --version"] = lambda wr=wr, env=env: timed([*wr, "--version"], env)
        search = [*wr, "search", "python asyncio", "-e", "duckduckgo", "--format", "compact"]
        runs[f"{label}|cached webreach search"] = lambda search=search, env=env: timed(search, env)
        runs[f"{label}|webreach mcp initialize"] = lambda wr=wr, env=env: initialize([*wr, "mcp"], env)
    return runs


def table(samples: dict[str, list[float]], labels: list[str]) -> str:
    def cell(values: list[float]) -> str:
        if not values:
            return "-"
        return f"{statistics.median(values) * 1000:7.0f} ms ({min(values) * 1000:.0f}-{max(values) * 1000:.0f})"

    rows = [f"{'':28}" + "".join(f"{label:>26}" for label in labels)]
    for name in ("python -c pass", "libraries only", "ddgs --help", "anchor stdio initialize"):
        if name in samples:
            rows.append(f"{name:28}{cell(samples[name]):>26}")
    for what in ("webreach --help", "webreach --version", "cached webreach search", "webreach mcp initialize"):
        rows.append(f"{what:28}" + "".join(f"{cell(samples[f'{label}|{what}']):>26}" for label in labels))
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--base", type=Path, default=Path("/tmp/base-startup"), help="a checkout of main (before)")
    parser.add_argument("--ddgs", default=shutil.which("ddgs") or "/tmp/ddgs-venv/bin/ddgs")
    args = parser.parse_args()
    ddgs = args.ddgs if Path(args.ddgs).exists() else None
    sources = {"after": HERE / "src"} | ({"before": args.base / "src"} if (args.base / "src").is_dir() else {})
    for src in sources.values():
        compile_sources(src)
    with tempfile.TemporaryDirectory() as tmp:
        web, url = start_fake_web({**os.environ, "PYTHONPATH": str(HERE / "src")})
        try:
            trees = {label: tree_env(src, Path(tmp) / label, url) for label, src in sources.items()}
            runs = cases(ddgs, trees)
            for label in trees:  # fill each tree's cache: the timed searches are cache hits
                runs[f"{label}|cached webreach search"]()
            samples: dict[str, list[float]] = {name: [] for name in runs}
            cpu: dict[str, list[float]] = {name: [] for name in runs}
            for _ in range(args.rounds):
                for name, run in runs.items():
                    wall, used = run()
                    samples[name].append(wall)
                    cpu[name] += [used] if used is not None else []
        finally:
            web.terminate()
            web.wait(timeout=10)
    print(f"start-up, wall time: median (min-max) of {args.rounds} interleaved rounds; ddgs: {ddgs or 'not found'}")
    print(table(samples, list(sources)[::-1]))
    print("\nCPU time (user + system) of the same runs: median (min-max)")
    print(table(cpu, list(sources)[::-1]))


if __name__ == "__main__":
    main()
