"""Benchmark: a baseline commit ("before") against this tree ("after", uncommitted changes included), in one run.

Run: python -m bench.compare --baseline REV [--what serve,gateway,tests] [--rounds 1]
                             [--serve-args "--rounds 1"] [--gateway-args "--n 100"] [--pytest-args "-q ..."]

  serve    bench/serve.py: REST cached search vs the bare endpoint (target >= 0.4x), req/s, p50/p99 closed and open
  gateway  bench/gateway.py: overhead over raw HTTP, cache hit, multi vs slowest engine alone, hedged auto
  tests    `python -m pytest -q -p no:cacheprovider -x` (or --pytest-args): wall time, its summary line's counts

REV is checked out as a temporary detached `git worktree` beside this tree (so ../shared resolves alike), removed
at the end, also on an error or Ctrl-C. Each tree runs its OWN bench scripts and tests on its OWN src: cwd is the
tree, PYTHONPATH=<tree>/src:<tree>, and the interpreter is this venv's python behind a throwaway overlay venv
whose .pth puts <tree>/src ahead of this venv's site-packages (whose editable webreach may point at another
tree): bench servers and tests start `sys.executable` with a bare environment, without PYTHONPATH. Where each
tree imports webreach from is checked and printed, with both environments. Both trees get their bytecode (and
pytest's rewritten test modules) compiled first, so neither pays a first run's compilation. The baseline's
bench writes its default results file in the temporary tree, read there; the current one's gets --out.
Rounds alternate which tree goes first, so drift of the machine's speed falls on both alike. "before" and
"after" are medians over the rounds (each round's value in brackets); after/before is the median of each
round's own ratio. Prints a markdown table per part and writes bench/results/compare.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import venv
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
METRICS: dict[str, dict[str, tuple[str, ...]]] = {  # part: {metric: its path in the part's results file}
    "serve": {
        "REST / bare req/s (closed loop)": ("closed_loop", "rest", "vs_bare"),
        "MCP session / bare req/s": ("closed_loop", "mcp-session", "vs_bare"),
        "MCP 2026 / bare req/s": ("closed_loop", "mcp-2026", "vs_bare"),
        "MCP session CPU / anchor's": ("cpu_per_call", "mcp-session", "vs_anchor"),
        "MCP 2026 CPU / anchor's": ("cpu_per_call", "mcp-2026", "vs_anchor"),
        "bare req/s": ("closed_loop", "bare", "rps"),
        "REST req/s": ("closed_loop", "rest", "rps"),
        "REST p50 ms (closed)": ("closed_loop", "rest", "p50_ms"),
        "REST p99 ms (closed)": ("closed_loop", "rest", "p99_ms"),
        "open loop offered req/s": ("open_loop", "offered_rps"),
        "REST p50 ms (open)": ("open_loop", "endpoints", "rest", "p50_ms"),
        "REST p99 ms (open)": ("open_loop", "endpoints", "rest", "p99_ms"),
    },
    "gateway": {
        "gateway overhead p50 ms": ("overhead", "overhead_p50_ms"),
        "gateway p50 ms": ("overhead", "gateway_p50_ms"),
        "raw HTTP p50 ms": ("overhead", "raw_p50_ms"),
        "gateway p99 ms": ("overhead", "gateway_p99_ms"),
        "cache hit p50 ms": ("cache_hit", "cache_hit_p50_ms"),
        "cache hit p99 ms": ("cache_hit", "cache_hit_p99_ms"),
        "multi / slowest alone": ("multi", "multi_over_slowest"),
        "hedged auto p50 ms": ("hedged_auto", "auto_p50_ms"),
        "hedged auto max ms": ("hedged_auto", "auto_max_ms"),
    },
}
Values = dict[str, float | None]


@dataclass
class Tree:
    """One side of the comparison: a source tree and the interpreter that imports webreach from it."""

    label: str  # "before" or "after"
    root: Path
    python: Path
    out_dir: Path | None = None  # where its benches write (--out); None: their default files in the tree

    def env(self) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": os.pathsep.join([str(self.root / "src"), str(self.root)])}


def overlay_python(root: Path, home: Path) -> Path:
    """A venv at `home` on this venv's packages with `root`/src ahead of them; its python."""
    venv.EnvBuilder(symlinks=True, with_pip=False).create(home)
    site = Path(sysconfig.get_path("purelib", "venv", vars={"base": str(home), "platbase": str(home)}))
    ours = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    lines = [str(root / "src"), str(root), *(f"import site; site.addsitedir({path!r})" for path in ours)]
    (site / "_bench_compare_tree.pth").write_text("\n".join(lines) + "\n")
    return home / "bin" / "python"


def check_import(tree: Tree) -> str:
    """Where `tree`'s interpreter imports webreach from, with the run's environment and with a bare one."""
    for env in (tree.env(), {"PATH": os.environ.get("PATH", "")}):
        code = "import webreach; print(webreach.__file__)"
        done = subprocess.run([tree.python, "-c", code], cwd=tree.root, env=env, capture_output=True, text=True)
        location = done.stdout.strip()
        if done.returncode or not Path(location).is_relative_to(tree.root / "src"):
            raise RuntimeError(f"{tree.label}: webreach imported from {location!r}, not {tree.root}/src {done.stderr}")
    return location


def run(tree: Tree, command: list[str]) -> tuple[int, str, float]:
    """Run `command` in `tree` (own process group, all of it stopped if we are interrupted): code, output, s."""
    start = time.monotonic()
    pipes: dict[str, Any] = {"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT, "stdin": subprocess.DEVNULL}
    process = subprocess.Popen(
        [tree.python, *command], cwd=tree.root, env=tree.env(), text=True, **pipes, start_new_session=True
    )
    try:
        output, _ = process.communicate()
    except BaseException:  # Ctrl-C, SIGTERM: stop the run with its servers and load generators, as Ctrl-C would
        for stop in (signal.SIGINT, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(process.pid, stop)
                process.wait(timeout=10)
        raise
    return process.returncode, output, time.monotonic() - start


def pick(data: Any, path: tuple[str, ...]) -> float | None:
    for key in path:
        data = data.get(key) if isinstance(data, dict) else None
    return float(data) if isinstance(data, int | float) else None


def bench(tree: Tree, part: str, extra: list[str]) -> tuple[Values, float]:
    """Run `tree`'s bench/<part>.py; its metrics, read from the file it wrote, and its wall time."""
    written = tree.out_dir / f"{part}.json" if tree.out_dir else None
    started = time.time()
    code, output, seconds = run(tree, ["-m", f"bench.{part}", *extra, *(["--out", str(written)] if written else [])])
    if written is None:  # the baseline writes its default file (serve: serve-<http>-<loop>.json for other servers)
        files = (tree.root / "bench/results").glob(f"{part}*.json")
        written = max((file for file in files if file.stat().st_mtime >= started), key=os.path.getmtime, default=None)
    if code or written is None:
        raise RuntimeError(f"{tree.label} bench.{part} exited {code}, results file {written}:\n{output[-3000:]}")
    data = json.loads(written.read_text())
    return {metric: pick(data, path) for metric, path in METRICS[part].items()}, seconds


def tests(tree: Tree, pytest_args: list[str]) -> tuple[Values, float]:
    """Run the tree's test suite; its wall seconds and exit code, and the counts of pytest's summary line."""
    code, output, seconds = run(tree, ["-m", "pytest", *pytest_args])
    summary = (output.strip().splitlines() or [""])[-1]
    print(f"  {tree.label} pytest (exit {code}): {summary}")
    counts = dict.fromkeys(("passed", "failed", "skipped", "error"), 0.0)
    for count, word in re.findall(r"(\d+) (passed|failed|skipped|error)", summary):
        counts[word] += float(count)
    return {"wall s": seconds, "exit code": float(code), **counts}, seconds


def median(values: list[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return statistics.median(present) if present else None


def number(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.0f}" if not math.isfinite(value) or abs(value) >= 1000 or value.is_integer() else f"{value:.3g}"


def row(sides: dict[str, list[Values]], metric: str) -> dict[str, Any]:
    """A metric's values round by round, their medians, and the median of each round's after/before."""
    old, new = ([values[metric] for values in sides[side]] for side in ("before", "after"))
    ratios: list[float | None] = [b / a for a, b in zip(old, new, strict=True) if a and b is not None]
    medians = {"before_median": median(old), "after_median": median(new), "after_over_before": median(ratios)}
    return {"before": old, "after": new, **medians}


def compare(args: argparse.Namespace, before: Tree, after: Tree) -> dict[str, Any]:
    parts = [part.strip() for part in args.what.split(",") if part.strip()]
    for tree in (before, after):
        print(f"{tree.label}: webreach from {check_import(tree)} (run and bare environments)")
        run(tree, ["-m", "compileall", "-q", "src", "bench", "tests"])
        if "tests" in parts:  # pytest's assertion rewriting caches the rewritten test modules
            run(tree, ["-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"])
    measured: dict[str, dict[str, list[Values]]] = {part: {"before": [], "after": []} for part in parts}
    seconds: dict[str, dict[str, list[float]]] = {part: {"before": [], "after": []} for part in parts}
    for index in range(args.rounds):
        for part in parts:
            for tree in (before, after) if index % 2 == 0 else (after, before):
                if part == "tests":
                    values, took = tests(tree, shlex.split(args.pytest_args))
                else:
                    values, took = bench(tree, part, shlex.split(getattr(args, f"{part}_args")))
                measured[part][tree.label].append(values)
                seconds[part][tree.label].append(round(took, 1))
                print(f"[round {index + 1}/{args.rounds}] {part} {tree.label}: {took:.1f} s", flush=True)
    rows = {part: {metric: row(sides, metric) for metric in sides["before"][0]} for part, sides in measured.items()}
    return {"rounds": args.rounds, "run_seconds": seconds, "parts": rows}


def report(result: dict[str, Any], args: argparse.Namespace) -> None:
    before, after = result["before"], result["after"]
    changes = " with uncommitted changes" if after["uncommitted_changes"] else ""
    print(f"\nbefore: {before['rev']} ({before['commit'][:9]}); after: this tree ({after['commit'][:9]}{changes})")
    for part, rows in result["parts"].items():
        print(f"\n{part}\n\n| metric | before | after | after/before |\n|---|---:|---:|---:|")
        for metric, values in rows.items():
            cells = []
            for side in ("before", "after"):  # the median, then each round's value
                each = f" ({', '.join(map(number, values[side]))})" if args.rounds > 1 else ""
                cells.append(number(values[f"{side}_median"]) + each)
            ratio = values["after_over_before"]
            print(f"| {metric} | {cells[0]} | {cells[1]} | {'n/a' if ratio is None else f'{ratio:.2f}x'} |")
    rest = result["parts"].get("serve", {}).get("REST / bare req/s (closed loop)")
    if rest:
        met = ["met" if (rest[f"{side}_median"] or 0) >= 0.4 else "NOT met" for side in ("before", "after")]
        print(f"\nREST / bare >= 0.4x: before {met[0]}, after {met[1]}")
    failed = result["parts"].get("tests", {}).get("failed", {})
    if "-x" in args.pytest_args.split() and any(failed.get("before", []) + failed.get("after", [])):
        print("\ntests: with -x a run stops at its first failure, so its wall time covers only part of the suite")
    print("\nseconds per run: " + "; ".join(f"{part} {sides}" for part, sides in result["run_seconds"].items()))
    print(f"whole comparison (setup included): {result['total_seconds']} s")


def git(*command: str) -> str:
    return subprocess.run(["git", *command], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--baseline", required=True, help="git revision to compare the current tree against")
    parser.add_argument("--what", default="serve,gateway,tests", help="comma-separated: serve, gateway, tests")
    parser.add_argument("--rounds", type=int, default=1, help="rounds, alternating which tree goes first")
    parser.add_argument("--serve-args", default="", help="arguments for bench.serve in both trees")
    parser.add_argument("--gateway-args", default="", help="arguments for bench.gateway in both trees")
    parser.add_argument("--pytest-args", default="-q -p no:cacheprovider -x", help="arguments for pytest")
    args = parser.parse_args()
    if not {part.strip() for part in args.what.split(",")} <= {"serve", "gateway", "tests"}:
        parser.error(f"--what: {args.what!r} is not a list of serve, gateway, tests")
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even where started with SIGINT ignored
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so the temporary worktree is removed then too
    commit = git("rev-parse", "--verify", f"{args.baseline}^{{commit}}")
    checkout = Path(tempfile.mkdtemp(prefix=".bench-baseline-", dir=ROOT.parent))  # ../shared as for ROOT
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="webreach-compare-") as scratch:
            git("worktree", "add", "--detach", str(checkout), commit)
            before = Tree("before", checkout, overlay_python(checkout, Path(scratch, "before")))
            after = Tree("after", ROOT, overlay_python(ROOT, Path(scratch, "after")), Path(scratch, "results"))
            result = compare(args, before, after)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(checkout)], cwd=ROOT, capture_output=True)
        shutil.rmtree(checkout, ignore_errors=True)
        git("worktree", "prune")
    result["total_seconds"] = round(time.monotonic() - started, 1)
    result["before"] = {"rev": args.baseline, "commit": commit}
    dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    result["after"] = {"commit": git("rev-parse", "HEAD"), "uncommitted_changes": dirty}
    RESULTS.mkdir(exist_ok=True)  # written before the report, so a report bug never loses a long run
    (RESULTS / "compare.json").write_text(json.dumps({"arguments": vars(args), **result}, indent=2) + "\n")
    report(result, args)


if __name__ == "__main__":
    main()
