"""Benchmark: parse time per real capture, webreach's parsers side by side with ddgs's where ddgs installs.

Run: python -m bench.parse [--repeat N]. Prints a table and writes bench/results/parse.json.
ddgs is optional (pip install -e '.[bench]'); its columns are blank when it is absent or has no such engine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from bench.captures import Capture, serp_captures
from webreach import engines
from webreach.config import EngineSettings
from webreach.errors import WebreachError

RESULTS = Path(__file__).parent / "results"


def time_call(call: Callable[[], Any], repeat: int) -> tuple[Any, float]:
    """The call's last result and its median wall time in ms."""
    samples = []
    result: Any = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = call()
        samples.append((time.perf_counter() - start) * 1000)
    return result, statistics.median(samples)


def webreach_parser(capture: Capture) -> Callable[[], int | str]:
    engine = engines.create(capture.engine, EngineSettings())
    body = capture.path.read_bytes()
    request = httpx.Request("GET", engine.url("/search"))

    def parse() -> int | str:
        response = httpx.Response(
            200, headers={"content-type": "text/html; charset=utf-8"}, content=body, request=request
        )
        try:
            return len(engine.handle(response))
        except WebreachError as exc:
            return exc.code

    return parse


def ddgs_parser(capture: Capture) -> Callable[[], int] | None:
    try:
        from ddgs.engines import ENGINES  # type: ignore[import-not-found]
    except ImportError:
        return None
    engine_cls = ENGINES.get("text", {}).get(capture.engine)
    if engine_cls is None:
        return None
    engine = engine_cls()
    text = capture.path.read_text(encoding="utf-8", errors="replace")

    def parse() -> int:
        results = engine.post_extract_results(engine.extract_results(text))
        return len([r for r in results if getattr(r, "href", "")])

    return parse


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    rows = []
    for capture in serp_captures():
        hits, ms = time_call(webreach_parser(capture), args.repeat)
        ddgs = ddgs_parser(capture)
        ddgs_hits, ddgs_ms = time_call(ddgs, args.repeat) if ddgs else (None, None)
        rows.append(
            {
                "engine": capture.engine,
                "file": capture.label,
                "expected": capture.expected,
                "webreach_hits": hits,
                "webreach_ms": round(ms, 3),
                "ddgs_hits": ddgs_hits,
                "ddgs_ms": None if ddgs_ms is None else round(ddgs_ms, 3),
            }
        )
    print_table(rows)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "parse.json").write_text(json.dumps(rows, indent=2))


def print_table(rows: list[dict[str, Any]]) -> None:
    header = "| engine | capture | expected | webreach hits | webreach ms | ddgs hits | ddgs ms | speed-up |"
    print(header)
    print("|---" * (header.count("|") - 1) + "|")
    for r in rows:
        ratio = f"{r['ddgs_ms'] / r['webreach_ms']:.1f}x" if r["ddgs_ms"] and r["webreach_ms"] else ""
        print(
            f"| {r['engine']} | {r['file']} | {r['expected']} | {r['webreach_hits']} | {r['webreach_ms']:.2f} | "
            f"{'' if r['ddgs_hits'] is None else r['ddgs_hits']} | "
            f"{'' if r['ddgs_ms'] is None else format(r['ddgs_ms'], '.2f')} | {ratio} |"
        )


if __name__ == "__main__":
    main()
