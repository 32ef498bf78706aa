"""Benchmark: tokens a model reads for the same results, full JSON (with URLs) versus compact text (with refs).

Run: python -m bench.tokens [--limit N]. For every real results page in ../shared/data/serp the engine's parser
builds the hits; the first N (the web_search default, 8) become a SearchResponse as a search would return it for
the page's real query (PROVENANCE.md's, else the one the page's <title> shows), rendered both ways by
webreach.tools and counted with the o200k_base tokenizer of bpe-openai (its vocabulary ships with the package, so
this runs offline). Refs are numbered from 1 as in a fresh session.
The JSON side is the tools' JSON output without refs (compact separators, UTF-8: the cheapest honest JSON).
Prints a table and writes bench/results/tokens.json. Target: compact uses >= 60% fewer tokens on every capture
(tests/tools/test_token_target.py holds the renderer to it).
"""

from __future__ import annotations

import argparse
import html
import json
import re
from pathlib import Path
from typing import Any

import httpx
from bpe_openai import get_encoding

from bench.captures import SHARED_DATA, Capture, serp_captures
from webreach import engines
from webreach.config import EngineSettings
from webreach.errors import WebreachError
from webreach.models import EngineAttempt, Hit, SearchMeta, SearchResponse
from webreach.tools import SearchOutcome, search_json, search_text
from webreach.tools.arguments import DEFAULT_TOOL_LIMIT
from webreach.tools.render import to_text

RESULTS = Path(__file__).parent / "results"
TARGET_SAVING = 0.60
# PROVENANCE.md rows: | `file` | ... query 'what was searched (a note on the page)' ... |
PROVENANCE_QUERY = re.compile(r"^\| `(?:[^`]*/)?([^`/]+)` \|.*?\bquery '([^']+?)(?: \([^']*\))?'")
# a results page's <title>: the query, then the engine's name: "coffee - Google Search", "Python_百度搜索"
TITLE_QUERY = re.compile(r"<title[^>]*>\s*(.+?)(?: - | – |_| at )[^<]*</title>", re.IGNORECASE | re.DOTALL)


def queries(provenance: Path) -> dict[str, str]:
    """File name -> the query PROVENANCE.md says the page answers."""
    found: dict[str, str] = {}
    for line in provenance.read_text(encoding="utf-8").splitlines():
        match = PROVENANCE_QUERY.match(line)
        if match:
            found[match.group(1)] = match.group(2)
    return found


def query_of(capture: Capture, known: dict[str, str]) -> str:
    """The capture's real query: PROVENANCE.md's, else the page title's, else the file's name."""
    if capture.label in known:
        return known[capture.label]
    title = TITLE_QUERY.search(capture.path.read_text(encoding="utf-8", errors="replace"))
    return html.unescape(title.group(1)).strip() if title else capture.path.stem


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
        return exc.code


def as_response(capture: Capture, hits: list[Hit], limit: int, query: str) -> SearchResponse:
    """What web_search would return had `capture` answered an auto-mode search for `query`."""
    kept = tuple(hits[:limit])
    attempt = EngineAttempt(engine=capture.engine, status="ok", count=len(kept), latency_ms=412.0)
    meta = SearchMeta(mode="auto", engines_used=(capture.engine,), attempts=(attempt,), elapsed_ms=415.0)
    return SearchResponse(query=query, results=kept, meta=meta)


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
    known = queries(SHARED_DATA / "PROVENANCE.md")
    rows = []
    for capture in serp_captures():
        hits = parse(capture)
        row: dict[str, Any] = {"engine": capture.engine, "file": capture.label, "query": query_of(capture, known)}
        if isinstance(hits, str) or not hits:
            rows.append({**row, "results": 0, "skipped": hits or "no results"})
            continue
        response = as_response(capture, hits, args.limit, row["query"])
        rows.append({**row, "results": len(response.results), **measure(response, encoding.encode)})
    summary = summarize(rows, args.limit)
    print_table(rows, summary)
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "tokens.json"
    out.write_text(json.dumps({"summary": summary, "captures": rows}, indent=2, ensure_ascii=False) + "\n")
    print(f"\nwrote {out.relative_to(Path.cwd()) if out.is_relative_to(Path.cwd()) else out}")


def summarize(rows: list[dict[str, Any]], limit: int) -> dict[str, Any]:
    measured = [r for r in rows if "saving" in r]
    total_json = sum(r["json_tokens"] for r in measured)
    total_compact = sum(r["compact_tokens"] for r in measured)
    below = [r["file"] for r in measured if r["saving"] < TARGET_SAVING]
    return {
        "captures": len(measured),
        "skipped": len(rows) - len(measured),
        "json_tokens": total_json,
        "compact_tokens": total_compact,
        "saving": round(1 - total_compact / total_json, 4) if total_json else None,
        "min_saving": min((r["saving"] for r in measured), default=None),
        "target": TARGET_SAVING,
        "below_target": below,
        "every_capture_meets_target": bool(measured) and not below,
        "tokenizer": "o200k_base (bpe-openai)",
        "results_per_capture": limit,
    }


def print_table(rows: list[dict[str, Any]], summary: dict[str, Any]) -> None:
    print("| engine | capture | query | results | JSON tokens | compact tokens | saving |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        start = f"| {r['engine']} | {r['file']} | {r['query'][:30]} |"
        if "saving" not in r:
            print(f"{start} 0 | | | skipped: {r['skipped']} |")
            continue
        mark = "" if r["saving"] >= TARGET_SAVING else " (below target)"
        print(f"{start} {r['results']} | {r['json_tokens']} | {r['compact_tokens']} | {r['saving']:.1%}{mark} |")
    print(
        f"| **total** | {summary['captures']} captures | | | {summary['json_tokens']} | {summary['compact_tokens']} | "
        f"**{summary['saving']:.1%}** |"
    )
    below = summary["below_target"]
    verdict = "every capture meets it" if summary["every_capture_meets_target"] else f"{len(below)} below it"
    print(f"\nmin saving {summary['min_saving']:.1%}; target {TARGET_SAVING:.0%} on every capture: {verdict}")
    for name in below:
        print(f"  below target: {name}")


if __name__ == "__main__":
    main()
