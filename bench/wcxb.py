"""The WCXB half of bench/extraction.py: the multi-type dev split, its fixed tune/check halves, its metric.

Data: ../shared/data/extraction/wcxb-dev (WCXB, Murrough-Foley/web-content-extraction-benchmark, CC-BY-4.0):
1,497 pages of seven types, html/NNNN.html.gz and ground-truth/NNNN.json (ground_truth.main_content, and
_internal.page_type.primary, the page's type). The metric is WCXB's own, exactly: word F1 per page over the
multisets of re.findall(r"\\w+", text.lower()), averaged over pages; a page whose truth is empty scores 1 when
the prediction is empty too, else 0. Precision and recall in the table are the per-page means of the same counts.

The split: a page belongs to the "tune" half when the first 8 hex digits of sha256(page id) are even, else to
"check" (716 / 781 pages, every type in both). Profiles and thresholds are chosen on tune only; check is the
held-out half that says whether those choices generalise.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import statistics
from collections import Counter
from pathlib import Path

from bench.captures import SHARED_DATA

WCXB = SHARED_DATA / "extraction" / "wcxb-dev"
WORD = re.compile(r"\w+")
SPLITS = ("tune", "check", "all")
PAGE_TYPES = ("article", "documentation", "service", "forum", "collection", "listing", "product")
# the published dev-split F1 of rs-trafilatura (PROVENANCE.md), the per-type targets
PUBLISHED = {"article": 0.932, "documentation": 0.932, "service": 0.844, "forum": 0.808, "collection": 0.716,
             "listing": 0.707, "product": 0.641, "all": 0.859}  # fmt: skip


def split_of(key: str) -> str:
    """The fixed half a page belongs to; see the module docstring."""
    return "tune" if int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % 2 == 0 else "check"


def load_wcxb(split: str = "all", limit: int | None = None) -> list[tuple[str, str, str, str, bytes, Path]]:
    """(key, url, page type, true text, html, path) of the split's pages, in id order."""
    pages = []
    for truth_file in sorted((WCXB / "ground-truth").glob("*.json")):
        key = truth_file.stem
        if split != "all" and split_of(key) != split:
            continue
        document = json.loads(truth_file.read_text(encoding="utf-8"))
        kind = document["_internal"]["page_type"]["primary"]
        truth = document["ground_truth"].get("main_content") or ""
        path = WCXB / "html" / f"{key}.html.gz"
        pages.append((key, document.get("url", ""), kind, truth, gzip.decompress(path.read_bytes()), path))
    return pages[:limit]


def word_scores(truth: str, predicted: str) -> tuple[float, float, float]:
    """(precision, recall, F1) of one page over lower-cased word multisets."""
    true, pred = Counter(WORD.findall(truth.lower())), Counter(WORD.findall(predicted.lower()))
    if not true:
        return (1.0, 1.0, 1.0) if not pred else (0.0, 1.0, 0.0)
    overlap = sum((true & pred).values())
    if not overlap:
        return 0.0, 0.0, 0.0
    precision, recall = overlap / sum(pred.values()), overlap / sum(true.values())
    return precision, recall, 2 * precision * recall / (precision + recall)


def per_type(kinds: list[str], truths: list[str], outputs: list[str]) -> dict[str, dict[str, float]]:
    """Mean precision, recall and F1 per page type, and over all pages ("all", the macro figure)."""
    scores: dict[str, list[tuple[float, float, float]]] = {}
    for kind, truth, output in zip(kinds, truths, outputs, strict=True):
        page = word_scores(truth, output)
        scores.setdefault(kind, []).append(page)
        scores.setdefault("all", []).append(page)
    return {
        kind: {
            "precision": round(statistics.fmean(s[0] for s in rows), 4),
            "recall": round(statistics.fmean(s[1] for s in rows), 4),
            "f1": round(statistics.fmean(s[2] for s in rows), 4),
            "pages": len(rows),
        }
        for kind, rows in scores.items()
    }


def render_wcxb(table: dict[str, dict[str, object]], split: str, pages: int) -> str:
    """One row per page type and system: P/R/F1, and for the system as a whole, ms and tokens per page."""
    lines = [
        f"WCXB dev, split {split}, {pages} pages (word F1; rs-trafilatura's published dev F1 for reference)",
        "",
        "| type | pages | system | F1 | precision | recall | median ms/page | tokens/page | published |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for kind in (*PAGE_TYPES, "all"):
        for name, row in table.items():
            types: dict[str, dict[str, float]] = row["types"]  # type: ignore[assignment]
            if kind not in types:
                continue
            cell = types[kind]
            timing: dict[str, float] = row["by_type"][kind]  # type: ignore[index]
            lines.append(
                f"| {kind} | {cell['pages']} | {name} | {cell['f1']:.3f} | {cell['precision']:.3f} "
                f"| {cell['recall']:.3f} | {timing['median_ms']:.1f} | {timing['tokens_per_page']:.0f} "
                f"| {PUBLISHED[kind]:.3f} |"
            )
    return "\n".join(lines)
