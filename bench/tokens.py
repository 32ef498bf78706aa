"""Benchmark: tokens a model reads for the same results, full JSON (with URLs) versus compact text (with refs).

Run: python -m bench.tokens [--limit N]. For every real results page in ../shared/data/serp the engine's parser
builds the hits; the first N (the web_search default, 8) become a SearchResponse as a search would return it,
rendered both ways by webreach.tools and counted with the o200k_base tokenizer of bpe-openai (its vocabulary
ships with the package, so this runs offline). Refs are numbered from 1 as in a fresh session.
The JSON side is the tools' JSON output without refs (compact separators, UTF-8: the cheapest honest JSON).
Prints a table and writes bench/results/tokens.json. Target: compact uses >= 60% fewer tokens in total.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import httpx
from bpe_openai import get_encoding

from bench.captures import Capture, serp_captures
from webreach import engines
from webreach.config import EngineSettings
from webreach.errors import WebreachError
from webreach.models import EngineAttempt, Hit, SearchMeta, SearchResponse
from webreach.tools import SearchOutcome, search_json, search_text
from webreach.tools.arguments import DEFAULT_TOOL_LIMIT
from webreach.tools.render import to_text

RESULTS = Path(__file__).parent / "results"
TARGET_SAVING = 0.60


def parse(capture: Capture) -> list[Hit] | str:
    """The capture's hits, or the error code its parser raised."""
    engine = engines.create(capture.engine, EngineSettings())
    request = httpx.Request("GET", engine.url("/search"))
    response = httpx.Response(
        200, headers={"content-type": "text/html; charset=utf-8"}, content=capture.path.read_bytes(), request=request
    )
    try:
        return engine.handle(response)
    except WebreachError as exc:
        return exc.error_code


def as_response(capture: Capture, hits: list[Hit], limit: int) -> SearchResponse:
    """What web_search would return had `capture` answered an auto-mode search."""
    kept = tuple(hits[:limit])
    attempt = EngineAttempt(engine=capture.engine, status="ok", count=len(kept), latency_ms=412.0)
    meta = SearchMeta(mode="auto", engines_used=(capture.engine,), attempts=(attempt,), elapsed_ms=415.0)
    return SearchResponse(query=capture.path.stem.split("__")[-1], results=kept, meta=meta)


def measure(response: SearchResponse, count: Any) -> dict[str, Any]:
    outcome = [SearchOutcome(query=response.query, response=response)]
    urls = dict.fromkeys(hit.url for hit in response.results)
    refs = {url: ref for ref, url in enumerate(urls, 1)}
    json_tokens = len(count(to_text(search_json(outcome, None))))
    compact_tokens = len(count(search_text(outcome, refs)))
    return {
        "json_tokens": json_tokens,
        "compact_tokens": compact_tokens,
        "saving": round(1 - compact_tokens / json_tokens, 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=DEFAULT_TOOL_LIMIT, help="results per capture")
    args = parser.parse_args()
    encoding = get_encoding("o200k_base")
    rows = []
    for capture in serp_captures():
        hits = parse(capture)
        row: dict[str, Any] = {"engine": capture.engine, "file": capture.label}
        if isinstance(hits, str) or not hits:
            rows.append({**row, "results": 0, "skipped": hits or "no results"})
            continue
        response = as_response(capture, hits, args.limit)
        rows.append({**row, "results": len(response.results), **measure(response, encoding.encode)})
    measured = [r for r in rows if "saving" in r]
    total_json = sum(r["json_tokens"] for r in measured)
    total_compact = sum(r["compact_tokens"] for r in measured)
    summary = {
        "captures": len(measured),
        "skipped": len(rows) - len(measured),
        "json_tokens": total_json,
        "compact_tokens": total_compact,
        "saving": round(1 - total_compact / total_json, 4) if total_json else None,
        "worst_saving": min((r["saving"] for r in measured), default=None),
        "target": TARGET_SAVING,
        "tokenizer": "o200k_base (bpe-openai)",
        "results_per_capture": args.limit,
    }
    print_table(rows, summary)
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "tokens.json"
    out.write_text(json.dumps({"summary": summary, "captures": rows}, indent=2, ensure_ascii=False) + "\n")
    print(f"\nwrote {out.relative_to(Path.cwd()) if out.is_relative_to(Path.cwd()) else out}")


def print_table(rows: list[dict[str, Any]], summary: dict[str, Any]) -> None:
    print("| engine | capture | results | JSON tokens | compact tokens | saving |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        if "saving" not in r:
            print(f"| {r['engine']} | {r['file']} | 0 | | | skipped: {r['skipped']} |")
            continue
        print(
            f"| {r['engine']} | {r['file']} | {r['results']} | {r['json_tokens']} | {r['compact_tokens']} | "
            f"{r['saving']:.1%} |"
        )
    verdict = "meets" if summary["saving"] is not None and summary["saving"] >= TARGET_SAVING else "MISSES"
    print(
        f"| **total** | {summary['captures']} captures | | {summary['json_tokens']} | {summary['compact_tokens']} | "
        f"**{summary['saving']:.1%}** ({verdict} the {TARGET_SAVING:.0%} target; worst {summary['worst_saving']:.0%}) |"
    )


if __name__ == "__main__":
    main()
