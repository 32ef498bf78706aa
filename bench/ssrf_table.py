"""SSRF table summary: runs every case of tests/net/ssrf_cases.py through the guard, offline.

Prints cases per category with blocked/allowed counts and how many got their expected verdict (a Markdown table
for the closing note), lists any case that did not, and writes bench/results/ssrf_table.json.

    python bench/ssrf_table.py
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the case table lives beside the test that runs it

from net.ssrf_cases import CASES  # noqa: E402
from net.ssrf_core import render, summarize, verdict  # noqa: E402


async def main() -> int:
    outcomes = [(case, await verdict(case)) for case in CASES]
    rows = summarize(outcomes)
    print(render(rows))
    misses = [(case, got) for case, got in outcomes if got != case.expect]
    for case, got in misses:
        print(f"UNEXPECTED {case.id}: {case.url!r} expected {case.expect}, got {got}")
    result = {
        "cases": len(CASES),
        "unexpected": len(misses),
        "categories": [asdict(row) for row in rows],
        "outcomes": [{"id": case.id, "url": case.url, "expect": case.expect, "got": got} for case, got in outcomes],
    }
    out = ROOT / "bench" / "results" / "ssrf_table.json"
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"\n{len(CASES)} cases, {len(misses)} unexpected; wrote {out.relative_to(ROOT)}")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
