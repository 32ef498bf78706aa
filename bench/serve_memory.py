"""Benchmark: the idle memory (RSS) of `webreach serve` beside the anchor, a minimal server on the same MCP SDK.

Run: python -m bench.serve_memory [--rounds 5] [--idle 3] [--base /tmp/base-hedge3]

Each server starts in its own process, serves nothing, and after `--idle` seconds of idling its resident memory
(VmRSS, children included) is read from /proc. The anchor is bench/_mcp_anchor_http.py (the mcp SDK's streamable
HTTP manager in a Starlette app on uvicorn); webreach's is `run_http` as `webreach serve` starts it (one worker,
default settings, the fake web, its own data directory), from this tree ("after") and, when --base names a
checkout of main, from that one ("before"). Servers take turns within each round; each figure is the median over
the rounds (min-max beside it) and "vs anchor" the median of each round's own ratio.
Target (issue 38, Deliver 6): webreach's idle RSS <= 1.3x the anchor's.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench._serve_processes import serving
from webreach.testing.environment import process_env

HERE = Path(__file__).resolve().parent.parent
TARGET = 1.3
WEBREACH = (
    "from webreach.config import Settings; from webreach.frontends.http import run_http; "
    "run_http(Settings(), host='127.0.0.1', port=0)"
)


def rss_mb(pid: int) -> float:
    """Resident memory of `pid` and its children, in MB."""
    total = 0
    children = Path(f"/proc/{pid}/task/{pid}/children")
    kids = children.read_text().split() if children.exists() else []
    for each in [pid, *map(int, kids)]:
        status = Path(f"/proc/{each}/status")
        if status.exists():
            match = re.search(r"VmRSS:\s+(\d+) kB", status.read_text())
            total += int(match.group(1)) if match else 0
    return total / 1024


def idle_rss(command: list[str], env: dict[str, str] | None, idle: float) -> float:
    """Start `command` (from the repository's root), wait until it says it is serving, let it idle, read its RSS."""
    with serving(command, env, cwd=HERE) as (_, pid):
        time.sleep(idle)
        return rss_mb(pid)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--idle", type=float, default=3.0, help="seconds a server idles before its RSS is read")
    parser.add_argument("--base", type=Path, help="a checkout of main to measure beside this one (before)")
    args = parser.parse_args()
    sources = {"after": HERE / "src"} | ({"before": args.base / "src"} if args.base is not None else {})
    samples: dict[str, list[float]] = {"anchor": []} | {label: [] for label in sources}
    with tempfile.TemporaryDirectory() as tmp:
        anchor = [sys.executable, "-m", "bench._mcp_anchor_http"]  # run from the repository root
        for _ in range(args.rounds):
            samples["anchor"].append(idle_rss(anchor, None, args.idle))
            for label, src in sources.items():
                env = process_env(Path(tmp) / label, WEBREACH_FAKE_WEB="http://127.0.0.1:9", PYTHONPATH=str(src))
                samples[label].append(idle_rss([sys.executable, "-c", WEBREACH], env, args.idle))
    print("| server | idle RSS MB, median (min-max) | vs anchor (median of rounds) | target | met |")
    print("|---|---|---|---|---|")
    for label, values in samples.items():
        ratios = [value / anchor for value, anchor in zip(values, samples["anchor"], strict=True)]
        ratio = statistics.median(ratios)
        met = "" if label == "anchor" else ("yes" if ratio <= TARGET else "NO")
        cell = f"{statistics.median(values):.1f} ({min(values):.1f}-{max(values):.1f})"
        target = "" if label == "anchor" else f"<= {TARGET}x"
        print(f"| {label} | {cell} | {ratio:.2f}x | {target} | {met} |")


if __name__ == "__main__":
    main()
