"""Fuzz and stall report: N mutated cases per target, and a liveness check of a real server under hostile work.

Run: python -m bench.fuzz [--cases N] [--targets a,b,...] [--quick] [--no-liveness] [--seed S]

Targets: every engine
by name (or "engines" for all web engines, "image_engines" for all image engines), extractor, charset, retry_after,
images, and the doors rest, mcp_http, mcp_stdio, cli (or "doors"). Default: 2,000 cases per target (the extractor
5,000 unless --cases). --quick runs 20 cases per target (or --cases) over a few engines, without the liveness check
(the test in tests/test_bench_fuzz.py runs it so this file cannot rot). --budget: seconds before a door case counts
as a hang.

Per target the table shows: cases, typed errors (WebreachError, or a door's typed error answer), untyped failures
(any other exception; at a door a 500, a JSON-RPC -32603, a traceback on stderr or a hang past the case's budget; 0
is required), cases over 0.5 s, the longest case, how many in-process cases took over 2 s and were timed a second
time (a case slow only because other processes held the shared cores is fast the second time; a slow shape is slow
both times), the longest case after that (each re-timed case at the shorter of its two times), and the process's
peak RSS after the target (the doors: the server's; door cases are not re-timed, except the CLI's real processes).
Inputs: webreach.testing.mutations (the one source the hypothesis tests use too); in-process targets:
bench/fuzz_targets.py; doors: bench/fuzz_doors.py; liveness: bench/fuzz_liveness.py. Writes bench/results/fuzz.json.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import logging
import random
import time
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from bench.fuzz_common import LIMIT, Row, own_peak_rss_mb
from webreach import engines
from webreach.errors import WebreachError

RESULTS = Path(__file__).parent / "results"
IN_PROCESS = ("extractor", "charset", "retry_after", "images")
DOORS = ("rest", "mcp_http", "mcp_stdio", "cli")


def where(exc: BaseException) -> str:
    """The exception's type and the innermost webreach function it passed through (the place to fix)."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [frame for frame in frames if "/webreach/" in frame.filename] or frames
    frame = ours[-1]
    return f"{type(exc).__name__} in {Path(frame.filename).stem}.{frame.name}"


def run_in_process(name: str, cases: Iterable[Callable[[], Any]]) -> Row:
    """Each case timed; one over LIMIT runs once more, so a case slow only because the machine was busy (other
    processes on shared cores) is told apart from a slow shape, which is slow every time. Both are reported."""
    row = Row(name)
    loop = asyncio.new_event_loop()
    try:
        for case in cases:
            seconds, outcome, kind = timed(case, loop)
            settled = None
            if seconds > LIMIT:
                row.retimed += 1
                settled = min(seconds, timed(case, loop)[0])
            row.record(seconds, outcome, kind, settled)
    finally:
        loop.close()
    row.peak_rss_mb = own_peak_rss_mb()
    return row


def timed(case: Callable[[], Any], loop: asyncio.AbstractEventLoop) -> tuple[float, str, str]:
    """(seconds, outcome, kind) of one run of `case`."""
    started = time.perf_counter()
    outcome, kind = "ok", ""
    try:
        result = case()
        if inspect.isawaitable(result):
            loop.run_until_complete(result)
    except WebreachError:
        outcome = "typed"
    except Exception as exc:  # the finding this report exists for
        outcome, kind = "untyped", where(exc)
    return time.perf_counter() - started, outcome, kind


def in_process_row(target: str, count: int, rng: random.Random) -> Row:
    from bench import fuzz_targets

    if target == "extractor":
        return run_in_process(target, fuzz_targets.extractor_cases(count, rng))
    if target == "charset":
        return run_in_process(target, fuzz_targets.charset_cases(count, rng))
    if target == "retry_after":
        return run_in_process(target, fuzz_targets.retry_after_cases(count, rng))
    if target == "images":
        return run_in_process(target, fuzz_targets.image_cases(count, rng))
    return run_in_process(f"engine {target}", fuzz_targets.engine_cases(target, count, rng))


def as_json(row: Row) -> dict[str, Any]:
    fields = {name: value for name, value in vars(row).items() if name != "untyped_kinds"}
    return {**fields, "untyped_kinds": dict(row.untyped_kinds)}


def table(rows: list[Row]) -> str:
    lines = [
        "| target | cases | typed errors | untyped | over 0.5 s | max s | over 2 s, timed again | max s after | "
        "peak RSS MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row.target} | {row.cases} | {row.typed} | {row.untyped} | {row.slow} | {row.max_seconds:.2f} "
            f"| {row.retimed} | {row.settled_max:.2f} | {row.peak_rss_mb:.0f} |"
        )
    kinds = [f"- {row.target}: {dict(row.untyped_kinds)}" for row in rows if row.untyped_kinds]
    notes = [f"- {row.target}: {row.note}" for row in rows if row.note]
    return "\n".join(lines + (["", "Untyped by kind:", *kinds] if kinds else []) + (["", *notes] if notes else []))


def expand(targets: str, quick: bool) -> list[str]:
    names = engines.names()
    chosen: list[str] = []
    for part in (p.strip() for p in targets.split(",") if p.strip()):
        if part == "engines":
            chosen += ["bing", "exa", "baidu"] if quick else names
        elif part == "image_engines":
            chosen += engines.names("images")[:2] if quick else engines.names("images")
        elif part == "doors":
            chosen += list(DOORS)
        elif part in names or part in engines.names("images") or part in IN_PROCESS or part in DOORS:
            chosen.append(part)
        else:
            raise SystemExit(
                f"unknown target {part!r}: engines, image_engines, doors, {', '.join([*names, *IN_PROCESS, *DOORS])}"
            )
    return list(dict.fromkeys(chosen))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=None, help="cases per target (default 2,000; extractor 5,000)")
    parser.add_argument("--targets", default="engines,image_engines,extractor,charset,retry_after,images,doors")
    parser.add_argument("--quick", action="store_true", help="20 cases per target, a few engines, no liveness")
    parser.add_argument("--no-liveness", action="store_true")
    parser.add_argument("--cli-subprocess", type=int, default=None, help="CLI cases run as real processes")
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--budget", type=float, default=40.0, help="seconds a door case may take before it is a hang")
    parser.add_argument("--output", type=Path, default=RESULTS / "fuzz.json")
    args = parser.parse_args(argv)
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its repair notes on mutated PDFs are not findings
    rng = random.Random(args.seed)
    rows: list[Row] = []
    door_targets = []
    for target in expand(args.targets, args.quick):
        count = args.cases or (20 if args.quick else 5000 if target == "extractor" else 2000)
        if target in DOORS:
            door_targets.append((target, count))
            continue
        rows.append(in_process_row(target, count, rng))
        print(table(rows[-1:]).splitlines()[-1], flush=True)
    if door_targets:
        from bench.fuzz_doors import run_doors

        subprocess_cases = args.cli_subprocess if args.cli_subprocess is not None else (3 if args.quick else 50)
        for row in run_doors(door_targets, rng, cli_subprocess=subprocess_cases, budget=args.budget):
            rows.append(row)
            print(table([row]).splitlines()[2], flush=True)
    print("\n" + table(rows))
    report: dict[str, Any] = {"rows": [as_json(row) for row in rows]}
    if not (args.quick or args.no_liveness):
        from bench.fuzz_liveness import liveness

        report["liveness"] = liveness()
        print("\n" + report["liveness"]["table"])
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=1, default=str) + "\n")


if __name__ == "__main__":
    main()
