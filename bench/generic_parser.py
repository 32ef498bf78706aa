"""Benchmark: the generic parser ALONE (engine selectors switched off) over every real capture in ../shared/data/serp.

Run: python -m bench.generic_parser [--mutate] [--details]. Prints one row per engine and writes
bench/results/generic_parser[-mutated].json.

Expected hits are what the engine's own parser finds on the page (the parsers every real capture is tested
against). Per engine: pages, hits expected, hits found, matched (found URLs the engine parser also found),
URL precision (matched / found), recall (matched / expected), and what the generic parser gets wrong: URLs it
invents (not among the engine's hits) and pages it answers although they are blocked or hold no results (which
must stay 0). --mutate renames every class and id first (what a markup change does to the engine's selectors).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import httpx

from bench.captures import SHARED_DATA
from webreach import engines
from webreach.config import EngineSettings
from webreach.errors import WebreachError
from webreach.testing import rename_classes

RESULTS = Path(__file__).parent / "results"
BLOCKED_ENGINE = {"baidu": "baidu", "ddg": "duckduckgo", "google": "google", "sogou": "sogou", "bing": "bing"}


@dataclass
class Row:
    """One engine's totals."""

    engine: str
    pages: int = 0
    expected: int = 0
    found: int = 0
    matched: int = 0
    false_pages: int = 0  # blocked / no-results / shell pages the generic parser answered anyway
    other_form: int = 0  # an engine hit's title with another URL form (Baidu: /link?url= where the engine read mu)
    invented: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.matched / self.found if self.found else 1.0

    @property
    def recall(self) -> float:
        return self.matched / self.expected if self.expected else 1.0


def pages(data: Path) -> list[tuple[str, Path]]:
    """(engine, page) for every real capture, blocked pages included (engine from the file name)."""
    found = []
    for path in sorted((data / "serp").glob("*/*.html")):
        folder = path.parent.name
        if folder == "_blocked":
            folder = next(engine for key, engine in BLOCKED_ENGINE.items() if key in path.name)
        found.append((folder, path))
    return found


def _norm(url: str) -> str:
    return url.rstrip("/")


def measure(engine_name: str, path: Path, row: Row, *, mutated: bool) -> None:
    """Add one page to its engine's row."""
    engine = engines.create(engine_name, EngineSettings())
    body = path.read_text(encoding="utf-8", errors="replace")
    request = httpx.Request("GET", engine.url("/search"))

    def response(text: str) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/html"}, content=text.encode(), request=request)

    try:
        hits = engine.parse(response(body))
        state = "results" if hits else "no-results"
    except WebreachError as exc:
        hits, state = [], exc.code
    expected = {_norm(hit.url) for hit in hits}
    titles = {hit.title for hit in hits}
    generic = engine.generic_parse(response(rename_classes(body) if mutated else body))
    found = {_norm(hit.url) for hit in generic}
    row.other_form += sum(1 for hit in generic if _norm(hit.url) not in expected and hit.title in titles)
    row.pages += 1
    row.expected += len(expected)
    row.found += len(found)
    row.matched += len(found & expected)
    row.invented += sorted(found - expected)
    if not expected and found:
        row.false_pages += 1
        row.notes.append(f"{path.name}: {state} page gave {len(found)} hits")
    elif len(found & expected) < len(expected):
        row.notes.append(f"{path.name}: {len(found & expected)}/{len(expected)} found ({state})")


def table(rows: list[Row]) -> str:
    lines = [
        "| engine | pages | hits expected | hits found | matched | URL precision | recall | invented URLs "
        "| of which an engine hit's title, other URL form | blocked/empty pages answered |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row.engine} | {row.pages} | {row.expected} | {row.found} | {row.matched} | {row.precision:.3f} "
            f"| {row.recall:.3f} | {len(row.invented)} | {row.other_form} | {row.false_pages} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutate", action="store_true", help="rename every class and id first")
    parser.add_argument("--details", action="store_true", help="print the invented URLs and per-page misses")
    args = parser.parse_args()
    if not (SHARED_DATA / "serp").is_dir():
        raise SystemExit(f"no captures at {SHARED_DATA / 'serp'}")
    rows: dict[str, Row] = {}
    for engine_name, path in pages(SHARED_DATA):
        measure(engine_name, path, rows.setdefault(engine_name, Row(engine_name)), mutated=args.mutate)
    ordered = sorted(rows.values(), key=lambda r: r.engine)
    total = Row("ALL")
    for row in ordered:
        for name in ("pages", "expected", "found", "matched", "false_pages", "other_form"):
            setattr(total, name, getattr(total, name) + getattr(row, name))
        total.invented += row.invented
    print(table([*ordered, total]))
    if args.details:
        for row in ordered:
            for line in row.notes + [f"invented: {url}" for url in row.invented]:
                print(f"  {row.engine}: {line}")
    RESULTS.mkdir(exist_ok=True)
    name = "generic_parser-mutated.json" if args.mutate else "generic_parser.json"
    summary = [{**asdict(row), "precision": row.precision, "recall": row.recall} for row in [*ordered, total]]
    (RESULTS / name).write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
