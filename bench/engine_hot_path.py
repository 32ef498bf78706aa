"""The hot-path cost of parsing real captures: each capture under ../shared/data/serp parsed by its engine.

Run: python -m bench.engine_hot_path [--repeat 7]

Median of --repeat, inline (Engine.handle in the loop's thread) and through EngineParsing.handle (a worker thread
for answers over INLINE_BYTES), both measured inside a running event loop. Writes
bench/results/engine_hot_path.json. (Fuzzing the engines is bench/fuzz.py's engine target.)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from webreach import engines
from webreach.errors import WebreachError
from webreach.search.parsing import EngineParsing

RESULTS = Path(__file__).parent / "results"
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


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
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    RESULTS.mkdir(exist_ok=True)
    rows = hot_path(args.repeat, args.data)
    print("| capture | bytes | inline ms | EngineParsing ms |\n|---|---:|---:|---:|")
    for r in rows:
        print(f"| {r['capture']} | {r['bytes']} | {r['inline_ms']} | {r['engine_parsing_ms']} |")
    (RESULTS / "engine_hot_path.json").write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
