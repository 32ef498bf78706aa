"""Pruning variants of the block scorer, weighed as the gate weighs them: where precision is lost, can pruning win?

Run: python -m bench.block_scorer_variants VARIANT [--groups product,collection,...]
     (after python -m bench.block_scorer collect and folds)

bench/extraction_loss.py finds the loss on products, collections and listings on the precision side (boilerplate
kept inside the reading; perfect pruning would gain 0.06 there). These variants try to take it, each scored on the
tune half out of fold (models fitted on the other half of the tune pages) and, for the record, on the check half
(a model fitted on the whole tune half), as gains in word F1 over the rules' reading per kind group and threshold:

- shipped: the shipped all-blocks model (weights.json; tune chances from bench/block_scorer.py folds);
- reading: a model fitted only on the reading's own lines (the blocks pruning decides on), blocks weighted by
  their words (capped, as in the shipped fit);
- reading-pages: the same with each page's lines weighing the same in all (word F1 is a mean over pages);
- smooth-K: the shipped model's chances averaged, word-weighted, over each line and the K reading lines either
  side (boilerplate and content come in runs).
Nothing here is shipped; the findings are in docs/decisions.md.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
from typing import Any

import numpy as np

from bench.block_scorer import CACHE, FOLD_CACHE, FOLDS, MAX_WEIGHT, fitted
from bench.wcxb import word_scores
from webreach.extract.blocks.features import NUMERIC
from webreach.extract.blocks.scorer import UNSURE, BlockScorer, prune_lines

IN_READING = NUMERIC.index("in_reading")
GRID = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6)
GROUPS = "product,collection,listing,service,unsure"


def lines_matrix(rows: list[dict[str, Any]], per_page: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The reading's lines of `rows`: features, labels, weights (words capped; with `per_page`, each page's 100)."""
    xs, ys, ws = [], [], []
    for row in rows:
        inside = [i for i, block in enumerate(row["blocks"]) if block.numbers[IN_READING]]
        if inside:
            weights = np.minimum([row["blocks"][i].words for i in inside], MAX_WEIGHT).astype(np.float64)
            ws.append(weights / weights.sum() * 100 if per_page else weights)
            xs.append(np.array([row["blocks"][i].numbers for i in inside]))
            ys.append(np.array([row["labels"][i] for i in inside]))
    return np.vstack(xs), np.concatenate(ys), np.concatenate(ws)


def lines_chances(model: Any, row: dict[str, Any]) -> list[float]:
    """The model's chance for each line of the reading; 1 (never pruned) for the other blocks."""
    chances = [1.0] * len(row["blocks"])
    inside = [i for i, block in enumerate(row["blocks"]) if block.numbers[IN_READING]]
    if inside:
        scores = model.predict_proba(np.array([row["blocks"][i].numbers for i in inside]))[:, 1]
        for index, chance in zip(inside, scores, strict=True):
            chances[index] = float(chance)
    return chances


def smoothed(row: dict[str, Any], reach: int) -> list[float]:
    """The row's chances with each reading line's replaced by the word-weighted mean over `reach` lines each side."""
    chances = list(row["chances"])
    inside = [i for i, block in enumerate(row["blocks"]) if block.numbers[IN_READING]]
    words = np.array([max(1, row["blocks"][i].words) for i in inside], dtype=np.float64)
    raw = np.array([row["chances"][i] for i in inside])
    for place, index in enumerate(inside):
        window = slice(max(0, place - reach), place + reach + 1)
        chances[index] = float((words[window] * raw[window]).sum() / words[window].sum())
    return chances


def score(rows: list[dict[str, Any]], variant: str) -> None:
    """Set each row's "chances" as `variant` scores its blocks (tune: out of fold; check: fitted on all of tune)."""
    if variant == "shipped" or variant.startswith("smooth-"):
        out_of_fold, shipped = pickle.loads(FOLD_CACHE.read_bytes()), BlockScorer.load()
        for row in rows:
            tune = row["split"] == "tune"
            row["chances"] = out_of_fold.get(row["key"], []) if tune else shipped.probabilities(row["blocks"])
        if variant.startswith("smooth-"):
            for row in rows:
                row["chances"] = smoothed(row, int(variant.removeprefix("smooth-")))
        return
    per_page = variant == "reading-pages"
    tune = [row for row in rows if row["split"] == "tune"]
    for fold in range(FOLDS):
        model = fitted(*lines_matrix([row for i, row in enumerate(tune) if i % FOLDS != fold], per_page))
        for row in tune[fold::FOLDS]:
            row["chances"] = lines_chances(model, row)
    model = fitted(*lines_matrix(tune, per_page))
    for row in rows:
        if row["split"] == "check":
            row["chances"] = lines_chances(model, row)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("variant", help="shipped, reading, reading-pages or smooth-K (K lines each side)")
    parser.add_argument("--groups", default=GROUPS, help="kind groups to weigh (a sure kind's name, or unsure)")
    args = parser.parse_args()
    rows = pickle.loads(CACHE.read_bytes())
    for row in rows:
        row["group"] = row["page_kind"] if row["confident"] else UNSURE
        row["base"] = word_scores(row["truth"], row["rule"])[2]
    score(rows, args.variant)
    print(f"{args.variant}: gain in word F1 over the rules, tune (out of fold) / check, per threshold")
    for group in args.groups.split(","):
        mine = [row for row in rows if row["group"] == group]
        cells = []
        for threshold in GRID:
            gains = [_gain([row for row in mine if row["split"] == half], threshold) for half in ("tune", "check")]
            cells.append(f"{threshold}: {gains[0]:+.4f}/{gains[1]:+.4f}")
        pages = "/".join(str(sum(row["split"] == half for row in mine)) for half in ("tune", "check"))
        print(f"  {group:11} {pages:7} " + " ".join(cells))


def _gain(rows: list[dict[str, Any]], threshold: float) -> float:
    if not rows:
        return 0.0
    edited = (prune_lines(r["rule"], r["blocks"], r["chances"], threshold) for r in rows)
    return statistics.fmean(word_scores(r["truth"], text)[2] - r["base"] for r, text in zip(rows, edited, strict=True))


if __name__ == "__main__":
    main()
