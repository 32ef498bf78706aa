"""Start-up times side by side (issue 38): `python -c pass`, `ddgs --help`, `webreach --help` / `--version`, a cached
`webreach search` (on the fake web, its cache filled first, so no network) and `webreach mcp` answering
`initialize` against a minimal stdio server on the same mcp SDK (bench/_mcp_anchor_stdio.py). A tree with the CLI
answer memo (webreach/answer_memo.py) replays the cached search: its cache is filled and a cached run writes the
memo before any timed run, so every timed search of that tree is a replay (the base tree's are full cached runs).

Before (a checkout of main, e.g. `git worktree add /tmp/base-startup main`) and after (this tree) run in ONE run,
interleaved round by round, each through PYTHONPATH=<tree>/src; medians and min-max spreads of wall time.
Each tree's sources are compiled first (`compileall`, as pip does when it installs a package, and as ddgs's own
install is): a checkout run with PYTHONDONTWRITEBYTECODE set (this machine's shells) has no bytecode, and every
timed run then compiled webreach's ~150 modules from source, about a third of a cached search's CPU time.
"libraries only" imports what any webreach command that searches loads before webreach's own code (asyncio, click,
pydantic with pydantic-settings, httpx, which imports rich and pygments for its own command line): the floor under
a cached search while those stay its dependencies.

With --instructions, each command that runs to its end is also run once under valgrind (cachegrind, no cache
simulation, PYTHONHASHSEED=0) and its instructions counted: a figure that does not move with the machine's load,
where CPU time on a shared machine moves by a third from run to run (about 25 s of CPU per webreach run).

    PYTHONPATH=src .venv/bin/python bench/startup.py [--rounds 5] [--base /tmp/base-startup] [--ddgs PATH]
        [--instructions]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
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
Command = tuple[list[str], dict[str, str]]  # argv, environment


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


def instructions(argv: list[str], env: dict[str, str], *, warm: bool = False) -> int:
    """Instructions one run of `argv` executes (valgrind's cachegrind without cache simulation; hash seed fixed).
    `warm`: one run first, uncounted: valgrind's environment (LD_PRELOAD) and the fixed hash seed are part of the
    CLI answer memo's key, so the cached search's first run under valgrind writes its memo and the next replays."""
    valgrind = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    if warm:
        instructions(argv, env)
    done = subprocess.run(
        [*valgrind, *argv], env={**env, "PYTHONHASHSEED": "0"}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, check=True, timeout=900,
    )  # fmt: skip
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count from valgrind for {argv}: {done.stderr[-300:]!r}")
    return int(found.group(1).replace(",", ""))


def commands(ddgs: str | None, trees: dict[str, dict[str, str]]) -> dict[str, Command]:
    """The commands that run to their end (timed, and counted with --instructions), by row name."""
    py, base_env = sys.executable, {**os.environ}
    runs: dict[str, Command] = {"python -c pass": ([py, "-c", "pass"], base_env)}
    runs["libraries only"] = ([py, "-c", LIBRARIES], base_env)
    if ddgs:
        runs["ddgs --help"] = ([ddgs, "--help"], base_env)
    for label, env in trees.items():
        wr = [py, "-m", "webreach"]
        runs[f"{label}|webreach --help"] = ([*wr, "--help"], env)
        runs[f"{label}|webreach --version"] = ([*wr, "--version"], env)
        search = [*wr, "search", "python asyncio", "-e", "duckduckgo", "--format", "compact"]
        runs[f"{label}|cached webreach search"] = (search, env)
    return runs


def cases(ddgs: str | None, trees: dict[str, dict[str, str]]) -> dict[str, Callable[[], Sample]]:
    runs: dict[str, Callable[[], Sample]] = {
        name: functools.partial(timed, argv, env) for name, (argv, env) in commands(ddgs, trees).items()
    }
    py = sys.executable
    anchor = [py, str(HERE / "bench" / "_mcp_anchor_stdio.py")]
    runs["anchor stdio initialize"] = functools.partial(initialize, anchor, {**os.environ})
    for label, env in trees.items():
        runs[f"{label}|webreach mcp initialize"] = functools.partial(initialize, [py, "-m", "webreach", "mcp"], env)
    return runs


def table(samples: dict[str, list[float]], labels: list[str], *, counts: bool = False) -> str:
    def cell(values: list[float]) -> str:
        if not values:
            return "-"
        if counts:  # instructions, one run each
            return f"{values[0] / 1e6:,.0f} M"
        return f"{statistics.median(values) * 1000:7.0f} ms ({min(values) * 1000:.0f}-{max(values) * 1000:.0f})"

    rows = [f"{'':28}" + "".join(f"{label:>26}" for label in labels)]
    for name in ("python -c pass", "libraries only", "ddgs --help", "anchor stdio initialize"):
        if name in samples:
            rows.append(f"{name:28}{cell(samples[name]):>26}")
    for what in ("webreach --help", "webreach --version", "cached webreach search", "webreach mcp initialize"):
        cells = [cell(samples.get(f"{label}|{what}", [])) for label in labels]
        rows.append(f"{what:28}" + "".join(f"{text:>26}" for text in cells))
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--base", type=Path, default=Path("/tmp/base-startup"), help="a checkout of main (before)")
    parser.add_argument("--ddgs", default=shutil.which("ddgs") or "/tmp/ddgs-venv/bin/ddgs")
    parser.add_argument("--instructions", action="store_true", help="also count instructions (valgrind)")
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
            for label in trees:  # fill each tree's cache, then let a cached run write its answer memo (a tree
                for _ in range(2):  # that has one): every timed search is a cache hit, a replay where memoed
                    runs[f"{label}|cached webreach search"]()
            samples: dict[str, list[float]] = {name: [] for name in runs}
            cpu: dict[str, list[float]] = {name: [] for name in runs}
            for index in range(args.rounds):
                order = list(runs.items())
                for name, run in order[::-1] if index % 2 else order:  # alternate: no tree always goes first
                    wall, used = run()
                    samples[name].append(wall)
                    cpu[name] += [used] if used is not None else []
            counted: dict[str, list[float]] = {}
            if args.instructions:
                counted = {
                    name: [float(instructions(*command, warm=name.endswith("cached webreach search")))]
                    for name, command in commands(ddgs, trees).items()
                }
        finally:
            web.terminate()
            web.wait(timeout=10)
    print(f"start-up, wall time: median (min-max) of {args.rounds} interleaved rounds; ddgs: {ddgs or 'not found'}")
    print(table(samples, list(sources)[::-1]))
    print("\nCPU time (user + system) of the same runs: median (min-max)")
    print(table(cpu, list(sources)[::-1]))
    if counted:
        print("\nInstructions executed, one run each under valgrind (the same on a busy machine)")
        print(table(counted, list(sources)[::-1], counts=True))


if __name__ == "__main__":
    main()
