"""Benchmark: main-content extraction on the article-extraction-benchmark, webreach beside its baselines.

Run: python -m bench.extraction [--repeat N] [--limit N] [--sweep] [--wcxb [--split tune|check|all]]. Prints
a markdown table and writes bench/results/extraction.json. --wcxb scores the multi-type WCXB dev split instead
(bench/wcxb.py: data, its fixed tune/check halves, word F1) for webreach, trafilatura and readability, per page
type, and writes bench/results/extraction-wcxb-<split>.json. --sweep adds an untimed table: trafilatura's single
settings (how stage 1 was chosen) and the cascade's thresholds around its defaults (that the defaults sit on a
plateau, not a peak).

Data: ../shared/data/extraction/aeb (scrapinghub/article-extraction-benchmark, MIT): 181 gzipped HTML pages and
ground-truth.json ({sha256: {articleBody, url}}). The metric is that benchmark's own: tokens are
re.findall(r"\\w+", text); each text becomes a multiset of 4-token shingles (a text of 1-3 tokens is one
shingle, an empty one none); per page tp = sum of min(true, predicted) counts, fp = surplus predicted,
fn = missing true, then tp/fp/fn are divided by their sum so every page weighs the same. Precision is the mean of
tp/(tp+fp) over pages with tp+fp > 0, recall the mean of tp/(tp+fn) over pages with tp+fn > 0 (a page with
fp = fn = 0 scores 1), and F1 = 2PR/(P+R) of those two means.

Systems, side by side in one process on the same bytes:
- webreach: webreach.extract.cascade.extract(body, content_type="text/html", url=..., format="text"), the whole
  path a read takes (sniffing, charset, wall checks, cascade, metadata);
- trafilatura: trafilatura.extract(body), the library's plain default;
- trafilatura (no comments): trafilatura.extract(body, include_comments=False), the call the benchmark's own
  extractors/run_trafilatura.py makes (the published ~0.960 is this one: ground truth never includes comments);
- readability: readability-lxml's Document(body).summary(), flattened to text;
- webreach extract --jsonl (CLI, one process): the batch path, `python -m webreach extract --jsonl --format text`
  over every .html.gz file at once, run as a subprocess; its JSONL is scored like the rest, and scores as the
  in-process webreach row but where the page's URL is evidence (same extractor; the CLI decompresses the files
  itself and sniffs them without a Content-Type or the original URL: one AEB story, /news/<slug>, is an article
  by its URL in process and an unsure page from its file, 0.9690 against 0.9705). The run warns when they differ.
Times are per page, the median of --repeat runs, with the systems' order rotated page by page; the table gives
the median over pages. The CLI row's time is different in kind: the wall time of the whole process (interpreter
start-up and imports included) divided by the pages, the median of --repeat runs. Output tokens are o200k tokens
of each system's text (an estimate if bpe-openai is absent).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lxml.html
import trafilatura
from readability import Document  # type: ignore[import-untyped]

from bench.captures import SHARED_DATA
from bench.wcxb import SPLITS, WCXB, load_wcxb, per_type, render_wcxb, split_of
from webreach.errors import WebreachError
from webreach.extract import charset
from webreach.extract.blocks.scorer import BlockScorer, Edits, pruned_reading
from webreach.extract.cascade import ExtractOptions, extract, prepare
from webreach.read.window import load_tokenizer

AEB = SHARED_DATA / "extraction" / "aeb"
RESULTS = Path(__file__).parent / "results"
WORD = re.compile(r"\w+")
SHINGLE = 4


@dataclass(frozen=True)
class Page:
    key: str
    url: str
    html: bytes
    truth: str
    path: Path  # the .html.gz file the html came from
    kind: str = "article"  # WCXB's page type


@dataclass
class Run:
    """One system's outputs and timings over the corpus."""

    name: str
    outputs: list[str] = field(default_factory=list)
    millis: list[float] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)


def load_pages(root: Path = AEB, limit: int | None = None) -> list[Page]:
    truth = json.loads((root / "ground-truth.json").read_text(encoding="utf-8"))
    pages = []
    for key in sorted(truth)[:limit]:
        path = root / "html" / f"{key}.html.gz"
        body = gzip.decompress(path.read_bytes())
        pages.append(Page(key, truth[key].get("url", ""), body, truth[key].get("articleBody", ""), path))
    return pages


def shingles(text: str) -> Counter[tuple[str, ...]]:
    tokens = WORD.findall(text)
    if not tokens:
        return Counter()
    return Counter(tuple(tokens[i : i + SHINGLE]) for i in range(max(1, len(tokens) - SHINGLE + 1)))


def page_counts(truth: str, predicted: str) -> tuple[float, float, float]:
    """(tp, fp, fn) of one page, normalised to sum to 1."""
    true, pred = shingles(truth), shingles(predicted)
    tp, fp, fn = sum((true & pred).values()), sum((pred - true).values()), sum((true - pred).values())
    total = tp + fp + fn
    return (tp / total, fp / total, fn / total) if total else (0.0, 0.0, 0.0)


def score(truths: list[str], outputs: list[str]) -> dict[str, float]:
    counts = [page_counts(truth, output) for truth, output in zip(truths, outputs, strict=True)]
    precision = statistics.fmean(_ratio(tp, fp, fn, fp) for tp, fp, fn in counts if tp + fp > 0)
    recall = statistics.fmean(_ratio(tp, fp, fn, fn) for tp, fp, fn in counts if tp + fn > 0)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"f1": f1, "precision": precision, "recall": recall}


def _ratio(tp: float, fp: float, fn: float, miss: float) -> float:
    """tp / (tp + miss), 1 for a perfect page (fp = fn = 0), as the benchmark's precision_score/recall_score."""
    if fp == fn == 0:
        return 1.0
    return tp / (tp + miss) if tp + miss else 0.0


def webreach_text(page: Page) -> str:
    return extract(page.html, content_type="text/html", url=page.url, format="text").text


def webreach_article_cascade_text(page: Page) -> str:
    """The cascade as it was before page kinds: every page read as an article."""
    options = ExtractOptions(page_types=False)
    return extract(page.html, content_type="text/html", url=page.url, format="text", options=options).text


def webreach_rules_text(page: Page) -> str:
    """The cascade without its learned block scorer (stage 2g): the rules alone."""
    options = ExtractOptions(block_scorer=False)
    return extract(page.html, content_type="text/html", url=page.url, format="text", options=options).text


def trafilatura_text(page: Page) -> str:
    return trafilatura.extract(page.html) or ""


def trafilatura_benchmark_text(page: Page) -> str:
    return trafilatura.extract(page.html, include_comments=False) or ""


def readability_text(page: Page) -> str:
    # readability-lxml 0.8.4.1 runs str patterns over bytes input (TypeError, then Unparseable): give it text,
    # decoded as webreach decodes pages (declared charset, else detected)
    summary = Document(charset.decode(page.html, None, markup=True).text).summary()
    return " ".join(" ".join(lxml.html.fromstring(summary).itertext()).split())


SYSTEMS: dict[str, Callable[[Page], str]] = {
    "webreach": webreach_text,
    "trafilatura": trafilatura_text,
    "trafilatura (no comments)": trafilatura_benchmark_text,
    "readability": readability_text,
    "webreach, article cascade only": webreach_article_cascade_text,
    "webreach, without block scorer": webreach_rules_text,
}


WCXB_SYSTEMS = (
    "webreach",
    "webreach, without block scorer",
    "webreach, article cascade only",
    "trafilatura",
    "readability",
)


AEB_SYSTEMS = (
    "webreach",
    "webreach, without block scorer",
    "trafilatura",
    "trafilatura (no comments)",
    "readability",
)


def measure(pages: list[Page], repeat: int, names: tuple[str, ...] = AEB_SYSTEMS) -> list[Run]:
    """Run every system over every page, rotating the order per page so no system always goes first."""
    runs = [Run(name) for name in names]
    for page in pages[:5]:  # warm-up: compiled regexes, lazy imports
        for run in runs:
            _call(run.name, page)
    for index, page in enumerate(pages):
        order = runs[index % len(runs) :] + runs[: index % len(runs)]
        for run in order:
            samples, output = [], ""
            for _ in range(repeat):
                begin = time.perf_counter()
                output, failure = _call(run.name, page)
                samples.append((time.perf_counter() - begin) * 1000)
            if failure:
                run.failures[failure] += 1
            run.outputs.append(output)
            run.millis.append(statistics.median(samples))
    return runs


CLI_NAME = "webreach extract --jsonl (CLI, one process)"
CLI_TIMEOUT = 600.0


def measure_cli(pages: list[Page], repeat: int) -> Run:
    """One `webreach extract --jsonl` process over every page's file, `repeat` times; time per page is the median
    total wall time over the pages."""
    command = [sys.executable, "-m", "webreach", "extract", "--jsonl", "--format", "text"]
    command += [str(page.path) for page in pages]
    totals, rows, errors = [], {}, ""
    for _ in range(repeat):
        begin = time.perf_counter()
        # the CLI exits non-zero when a file fails; that file's JSONL row says why, so the code is not checked
        done = subprocess.run(command, capture_output=True, text=True, timeout=CLI_TIMEOUT, check=False)
        totals.append((time.perf_counter() - begin) * 1000)
        rows = {row["path"]: row for row in map(json.loads, done.stdout.splitlines())}
        errors = done.stderr
    run = Run(CLI_NAME)
    for page in pages:
        row = rows.get(str(page.path))
        if row is None:
            raise SystemExit(f"webreach extract gave no row for {page.path}: {errors[-2000:]}")
        if row["error"]:
            run.failures[row["error"]["code"]] += 1
        run.outputs.append(row["text"] or "")
        run.millis.append(statistics.median(totals) / len(pages))
    return run


def _call(name: str, page: Page) -> tuple[str, str | None]:
    try:
        return SYSTEMS[name](page), None
    except WebreachError as exc:  # a refused page scores as an empty output
        return "", exc.code


def summarise(pages: list[Page], runs: list[Run]) -> dict[str, dict[str, object]]:
    tokenizer = load_tokenizer()
    truths = [page.truth for page in pages]
    table: dict[str, dict[str, object]] = {}
    for run in runs:
        table[run.name] = {
            **{k: round(v, 4) for k, v in score(truths, run.outputs).items()},
            "median_ms": round(statistics.median(run.millis), 2),
            "tokens_per_page": round(statistics.fmean(tokenizer.count(text) for text in run.outputs), 1),
            "tokens_estimated": tokenizer.estimated,
            "failures": dict(run.failures),
        }
    return table


def render(table: dict[str, dict[str, object]], pages: int) -> str:
    lines = [
        f"article-extraction-benchmark, {pages} pages",
        "",
        "| system | F1 | precision | recall | median ms/page | output tokens/page (o200k) | failures |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, row in table.items():
        failures = ", ".join(f"{k} {v}" for k, v in row["failures"].items()) or "-"  # type: ignore[attr-defined]
        lines.append(
            f"| {name} | {row['f1']:.4f} | {row['precision']:.4f} | {row['recall']:.4f} | {row['median_ms']:.1f} "
            f"| {row['tokens_per_page']:.0f} | {failures} |"
        )
    if CLI_NAME in table:
        lines += ["", f"{CLI_NAME}: ms/page is the whole process's wall time (start-up included) / pages."]
    return "\n".join(lines)


TRAFILATURA_SETTINGS: dict[str, dict[str, Any]] = {
    "balanced": {},
    "precision": {"favor_precision": True},
    "recall": {"favor_recall": True},
    "fast": {"fast": True},
    "precision + fast": {"favor_precision": True, "fast": True},
}


def sweep(pages: list[Page]) -> list[dict[str, object]]:
    """Accuracy (untimed) of trafilatura's single settings and of the cascade's thresholds around the defaults."""
    truths = [page.truth for page in pages]
    rows: list[dict[str, object]] = []
    for label, flags in TRAFILATURA_SETTINGS.items():
        outputs = [trafilatura.extract(p.html, include_comments=False, **flags) or "" for p in pages]
        rows.append({"config": f"trafilatura {label}, no comments", **_rounded(score(truths, outputs))})
    grid = [ExtractOptions(fallback=False)] + [
        ExtractOptions(min_chars=m, fallback_gain=g) for m in (300, 600, 1000, 1500) for g in (1.5, 2.0, 3.0)
    ]
    for options in grid:
        results = [extract(p.html, content_type="text/html", url=p.url, format="text", options=options) for p in pages]
        label = (
            f"cascade min_chars={options.min_chars} gain={options.fallback_gain}"
            if options.fallback
            else ("cascade, stage 1 only")
        )
        stages = Counter(result.extractor for result in results)
        rows.append({"config": label, **_rounded(score(truths, [r.text for r in results])), "stages": dict(stages)})
    return rows


def _rounded(metrics: dict[str, float]) -> dict[str, float]:
    return {key: round(value, 4) for key, value in metrics.items()}


def render_sweep(rows: list[dict[str, object]]) -> str:
    lines = ["| configuration | F1 | precision | recall | pages per stage |", "|---|---|---|---|---|"]
    for row in rows:
        stages = ", ".join(f"{k} {v}" for k, v in row.get("stages", {}).items()) or "-"  # type: ignore[attr-defined]
        lines.append(f"| {row['config']} | {row['f1']:.4f} | {row['precision']:.4f} | {row['recall']:.4f} | {stages} |")
    return "\n".join(lines)


def run_wcxb(split: str, limit: int | None, repeat: int) -> None:
    """The WCXB tables: per page type, webreach beside trafilatura and readability on the same bytes; with
    --split all, one measurement gives the tune half, the check half and the whole split."""
    if not WCXB.is_dir():
        raise SystemExit(f"benchmark data not found at {WCXB}")
    pages = [Page(key, url, body, truth, path, kind) for key, url, kind, truth, body, path in load_wcxb(split, limit)]
    runs = measure(pages, repeat, WCXB_SYSTEMS)
    tokenizer = load_tokenizer()
    tokens = {run.name: [tokenizer.count(text) for text in run.outputs] for run in runs}
    result: dict[str, object] = {"benchmark": "wcxb-dev", "split": split, "pages": len(pages), "repeat": repeat}
    for half in ("tune", "check", "all") if split == "all" else (split,):
        chosen = [i for i, page in enumerate(pages) if half in ("all", split_of(page.key))]
        table = {run.name: wcxb_row(run, tokens[run.name], [pages[i] for i in chosen], chosen) for run in runs}
        print(render_wcxb(table, half, len(chosen)) + "\n")
        result[half] = table
    result["block_scorer"] = scorer_cost(pages, runs)
    print(render_scorer_cost(result["block_scorer"]))  # type: ignore[arg-type]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"extraction-wcxb-{split}.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


def scorer_cost(pages: list[Page], runs: list[Run]) -> dict[str, float]:
    """The block scorer's share of the time: on the pages it is asked about (the kinds edits.json names), the median
    ms of its stage alone (stage 2g on the prepared page and the rules' reading) against the median ms of the whole
    read."""
    whole = next(run for run in runs if run.name == "webreach")
    rules = next(run for run in runs if run.name == "webreach, without block scorer")
    stage, reads = [], []
    BlockScorer.load(), Edits.shipped()  # read once a process: not a page's cost
    for index, page in enumerate(pages):
        reading = prepare(charset.decode(page.html, None, markup=True).text, page.url, "text", ExtractOptions())
        kind = reading.kind
        if Edits.shipped().thresholds(kind) == (None, None):
            continue
        begin = time.perf_counter()
        pruned_reading(reading.tree, kind, reading.json_ld, rules.outputs[index], "text")
        stage.append((time.perf_counter() - begin) * 1000)
        reads.append(whole.millis[index])
    if not stage:
        return {"pages": 0, "stage_ms": 0.0, "read_ms": 0.0, "share": 0.0}
    median_stage, median_read = statistics.median(stage), statistics.median(reads)
    share = round(median_stage / median_read, 3)
    total = round(sum(stage) / sum(whole.millis), 4)
    return {"pages": len(stage), "stage_ms": round(median_stage, 2), "read_ms": round(median_read, 2),
            "share": share, "share_of_all_pages": total}  # fmt: skip


def render_scorer_cost(cost: dict[str, float]) -> str:
    return (
        f"block scorer: asked on {cost['pages']} pages (its kinds), median {cost['stage_ms']:.1f} ms of a "
        f"{cost['read_ms']:.1f} ms read there ({cost['share']:.0%}); {cost.get('share_of_all_pages', 0):.1%} of "
        "all pages' time"
    )


def wcxb_row(run: Run, tokens: list[int], pages: list[Page], chosen: list[int]) -> dict[str, object]:
    """One system's scores, median ms and tokens per page type over the pages at `chosen`."""
    kinds = [page.kind for page in pages]
    by_type: dict[str, dict[str, float]] = {}
    for kind in {*kinds, "all"}:
        mine = [index for index, page in zip(chosen, pages, strict=True) if kind in (page.kind, "all")]
        by_type[kind] = {
            "median_ms": round(statistics.median(run.millis[i] for i in mine), 2),
            "tokens_per_page": round(statistics.fmean(tokens[i] for i in mine), 1),
        }
    types = per_type(kinds, [page.truth for page in pages], [run.outputs[i] for i in chosen])
    return {"types": types, "by_type": by_type, "failures": dict(run.failures)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per page and system (median kept)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N pages (quick check)")
    parser.add_argument("--sweep", action="store_true", help="also score settings and thresholds (untimed)")
    parser.add_argument("--wcxb", action="store_true", help="the multi-type WCXB dev split instead of AEB")
    parser.add_argument("--split", choices=SPLITS, default="all", help="WCXB half: tune, check or all")
    args = parser.parse_args()
    if args.wcxb:
        run_wcxb(args.split, args.limit, max(1, args.repeat))
        return
    if not AEB.is_dir():
        raise SystemExit(f"benchmark data not found at {AEB}")
    pages = load_pages(limit=args.limit)
    runs = measure(pages, max(1, args.repeat))
    runs.append(measure_cli(pages, max(1, args.repeat)))
    table = summarise(pages, runs)
    print(render(table, len(pages)))
    in_process = next(run for run in runs if run.name == "webreach")
    cli_same = runs[-1].outputs == in_process.outputs  # same extractor, same bytes: the batch path must agree
    if not cli_same:
        print(f"warning: {CLI_NAME} output differs from the in-process webreach output", file=sys.stderr)
    RESULTS.mkdir(exist_ok=True)
    result: dict[str, object] = {
        "benchmark": "article-extraction-benchmark",
        "pages": len(pages),
        "repeat": args.repeat,
        "cli_output_identical": cli_same,
    }
    result["systems"] = table
    if args.sweep:
        rows = sweep(pages)
        print()
        print(render_sweep(rows))
        result["sweep"] = rows
    (RESULTS / "extraction.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
