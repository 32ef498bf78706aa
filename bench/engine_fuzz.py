"""Fuzz report for the engine parsers, and the hot-path cost of parsing real captures.

Run: python -m bench.engine_fuzz [--cases 2000] [--seed 1] [--engines bing,google] [--hot-path] [--repeat 7]

Fuzz: for each engine, `--cases` answers made by webreach.testing.mutations (its recordings and its real
captures in ../shared/data, mutated; one case in ten generated from scratch), each parsed through
Gateway.parse_saved with its raw headers and status, the path a live answer takes after the engine caller.
Per engine: cases, hits (answers with hits), typed errors, untyped exceptions (must be 0), cases over 0.5 s and
the maximum time. Untyped exceptions are listed with the mutations that made them.

Hot path (--hot-path): each real capture under ../shared/data/serp parsed by its engine, median of --repeat,
inline (Engine.handle in the loop's thread) and through EngineParsing.handle (a worker thread for answers over
INLINE_BYTES), both measured inside a running event loop.

`run_case` is the one-case entry point bench/fuzz.py can reuse: hits or the typed error, nothing else caught.
Writes bench/results/engine_fuzz.json (and engine_hot_path.json with --hot-path).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import httpx

from webreach import Gateway, engines
from webreach.config import Settings
from webreach.errors import WebreachError
from webreach.models import Hit
from webreach.search.parsing import EngineParsing
from webreach.testing.mutations import Case, generated, mutate, seed_cases

RESULTS = Path(__file__).parent / "results"
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SLOW = 0.5  # seconds


def offline_gateway() -> Gateway:
    """A gateway that only parses: memory state, no files, no network."""
    return Gateway(Settings(state={"backend": "memory"}, cache={"backend": "none"}))


def run_case(gateway: Gateway, engine: str, case: Case) -> list[Hit] | WebreachError:
    """Engine `engine`'s reading of one answer: its hits, or the typed error it raised. Any other exception
    propagates (that is the bug a fuzz run is looking for)."""
    try:
        return list(gateway.parse_saved(engine, case.body, status=case.status, headers=case.headers).results)
    except WebreachError as error:
        return error


@dataclass
class Row:
    engine: str
    cases: int = 0
    hits: int = 0
    typed_errors: int = 0
    untyped: int = 0
    over_half_second: int = 0
    max_seconds: float = 0.0
    slowest: str = ""
    failures: list[str] = field(default_factory=list)


def fuzz_engine(gateway: Gateway, engine: str, cases: int, seed: int, data_dir: Path) -> Row:
    """Run `cases` mutated answers through `engine` and count how each ended."""
    rng = random.Random(f"{seed}-{engine}")
    seeds = seed_cases(engine, data_dir=data_dir)
    row = Row(engine)
    for _ in range(cases):
        case = generated(rng) if rng.random() < 0.1 else mutate(rng.choice(seeds), rng)
        start = time.perf_counter()
        try:
            outcome = run_case(gateway, engine, case)
        except Exception as exc:  # the count the report exists for
            row.untyped += 1
            row.failures.append(f"{type(exc).__name__}: {str(exc)[:120]} after {'+'.join(case.mutations)}")
            outcome = None
        elapsed = time.perf_counter() - start
        row.cases += 1
        row.hits += isinstance(outcome, list) and bool(outcome)
        row.typed_errors += isinstance(outcome, WebreachError)
        row.over_half_second += elapsed > SLOW
        if elapsed > row.max_seconds:
            row.max_seconds, row.slowest = elapsed, f"{'+'.join(case.mutations)} ({len(case.body):,} bytes)"
    return row


def hot_path(repeat: int, data_dir: Path) -> list[dict[str, object]]:
    """Median parse time per capture, inline and through EngineParsing, inside a running event loop."""
    return asyncio.run(_hot_path(repeat, data_dir))


async def _hot_path(repeat: int, data_dir: Path) -> list[dict[str, object]]:
    parsing = EngineParsing()
    rows: list[dict[str, object]] = []
    try:
        for path in sorted((data_dir / "serp").glob("*/*.html")):
            name = path.parent.name
            if name not in engines.names():
                continue
            engine = engines.create(name)
            body = path.read_bytes()
            response = httpx.Response(200, headers={"content-type": "text/html; charset=utf-8"}, content=body)
            inline = [_timed(functools.partial(_outcome, engine.handle, response)) for _ in range(repeat)]
            off_loop = [await _timed_async(parsing, engine, response) for _ in range(repeat)]
            rows.append({"capture": f"{name}/{path.name}", "bytes": len(body),
                         "inline_ms": round(statistics.median(inline), 3),
                         "engine_parsing_ms": round(statistics.median(off_loop), 3)})  # fmt: skip
    finally:
        parsing.close()
    return rows


def _outcome(handle: Callable[[httpx.Response], object], response: httpx.Response) -> None:
    with contextlib.suppress(WebreachError):
        handle(response)


def _timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000


async def _timed_async(parsing: EngineParsing, engine: engines.Engine, response: httpx.Response) -> float:
    start = time.perf_counter()
    with contextlib.suppress(WebreachError):
        await parsing.handle(engine, response)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engines", default="")
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--hot-path", action="store_true")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    RESULTS.mkdir(exist_ok=True)
    if args.hot_path:
        rows = hot_path(args.repeat, args.data)
        print("| capture | bytes | inline ms | EngineParsing ms |\n|---|---:|---:|---:|")
        for r in rows:
            print(f"| {r['capture']} | {r['bytes']} | {r['inline_ms']} | {r['engine_parsing_ms']} |")
        (RESULTS / "engine_hot_path.json").write_text(json.dumps(rows, indent=2) + "\n")
        return
    names = args.engines.split(",") if args.engines else engines.names()
    gateway = offline_gateway()
    table = [fuzz_engine(gateway, name, args.cases, args.seed, args.data) for name in names]
    print("| engine | cases | with hits | typed errors | untyped | over 0.5 s | max s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for row in table:
        print(f"| {row.engine} | {row.cases} | {row.hits} | {row.typed_errors} | {row.untyped} "
              f"| {row.over_half_second} | {row.max_seconds:.3f} |")  # fmt: skip
    for row in table:
        print(f"{row.engine}: slowest case {row.slowest}", file=sys.stderr)
        for failure in row.failures[:5]:
            print(f"{row.engine}: {failure}", file=sys.stderr)
    out = {"cases_per_engine": args.cases, "seed": args.seed, "rows": [asdict(row) for row in table]}
    (RESULTS / "engine_fuzz.json").write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
