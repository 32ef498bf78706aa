"""Train and weigh the learned block scorer (webreach/extract/blocks) on WCXB dev: features, labels, fit, gate.

Run: python -m bench.block_scorer collect   (every dev page's blocks and rule reading, cached in CACHE)
     python -m bench.block_scorer train     (fits on the tune half only; writes the package's weights file)
     python -m bench.block_scorer folds     (out-of-fold scores of the tune half, for the gate's choices)
     python -m bench.block_scorer gate      (per kind and threshold, word F1 of the rule reading pruned, then
                                             added to, by the scorer: tune half to choose, check half to see;
                                             writes the choice to the package's edits.json, which the cascade
                                             follows, and the table to bench/results/block-scorer-gate.json)

Labels: a block is content when its words, joined, occur in the page's true text (WCXB ground_truth.main_content,
lower-cased words joined the same way). Blocks weigh their word count (capped at MAX_WEIGHT) in the fit, as word F1
weighs them. The model is TREES gradient-boosted trees of depth DEPTH over features.py's numbers (scikit-learn, a
bench-only extra; fixed seed), exported as node arrays the package walks in numpy. Only the tune half
(bench/wcxb.split_of) is ever fitted or used to choose a threshold, and the thresholds are chosen on out-of-fold
scores (folds), never on scores of the model that saw those pages' labels. Iterate with OMP_NUM_THREADS=1 on a
shared machine.
"""

from __future__ import annotations

import argparse
import json
import pickle
import re
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bench.wcxb import PAGE_TYPES, load_wcxb, split_of, word_scores
from webreach.errors import WebreachError
from webreach.extract import charset
from webreach.extract.blocks.features import NUMERIC, page_blocks
from webreach.extract.blocks.scorer import EDITS, UNSURE, WEIGHTS, BlockScorer, add_lines, line_key, prune_lines
from webreach.extract.cascade import ExtractOptions, extract, prepare

CACHE = Path("/tmp/webreach-block-scorer3.pkl")
FOLD_CACHE = Path("/tmp/webreach-block-scorer3-folds.pkl")
FOLDS = 2
WORD = re.compile(r"\w+")
MAX_WEIGHT = 40.0
TREES = 150
DEPTH = 4
RATE = 0.1
SEED = 42
PRUNE_GRID = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6)  # 0.5, 0.6: the tune optimum sat on 0.4, the edge
ADD_GRID = (0.5, 0.6, 0.7, 0.8, 0.9)
GAIN = 0.002
MIN_PAGES = 20  # a group with fewer tune pages is left to the rules: a gain on 3 pages is noise
GATE_TABLE = Path(__file__).parent / "results" / "block-scorer-gate.json"
GATE_RULE = (
    f"bench/block_scorer.py gate: per kind group of {MIN_PAGES}+ tune pages, the threshold gaining most (>= {GAIN}) "
    "on the tune half scored out of fold; the check half never chooses"
)


def collect() -> None:
    """Every dev page: its split, true type, truth, rule reading (scorer off) and blocks with labels."""
    rows = []
    for number, (key, url, kind, truth, body, _) in enumerate(load_wcxb("all")):
        options = ExtractOptions(block_scorer=False)
        try:
            rule = extract(body, content_type="text/html", url=url, format="text", options=options).text
        except WebreachError:
            rule = ""
        reading = prepare(charset.decode(body, None, markup=True).text, url, "text", ExtractOptions())
        lines = [line_key(line) for line in rule.split("\n")]
        blocks = page_blocks(reading.tree, reading.kind, reading.json_ld, lines)
        joined = " " + " ".join(word.lower() for word in WORD.findall(truth)) + " "
        labels = [float(f" {block.key} " in joined) for block in blocks]
        rows.append({"key": key, "split": split_of(key), "kind": kind, "truth": truth, "rule": rule,
                     "page_kind": reading.kind.name, "confident": reading.kind.confident,
                     "blocks": blocks, "labels": labels})  # fmt: skip
        if number % 100 == 0:
            print(number, file=sys.stderr)
    CACHE.write_bytes(pickle.dumps(rows))


def matrix(rows: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Numeric features, labels, weights (each block's word count, capped)."""
    blocks = [block for row in rows for block in row["blocks"]]
    numbers = np.array([block.numbers for block in blocks], dtype=np.float64)
    labels = np.array([label for row in rows for label in row["labels"]])
    weights = np.minimum(np.array([block.words for block in blocks], dtype=np.float64), MAX_WEIGHT)
    return numbers, labels, weights


def train() -> None:
    """Fit the ensemble on the tune half, check that the exported model scores exactly as the fitted one, ship it."""
    rows = [row for row in pickle.loads(CACHE.read_bytes()) if row["split"] == "tune"]
    x, y, w = matrix(rows)
    model = fitted(x, y, w)
    exported = export(model)
    scorer = BlockScorer(**{k: np.array(v) if isinstance(v, list) else v for k, v in exported.items()
                            if k not in ("numeric", "trained_on")})  # type: ignore[arg-type]  # fmt: skip
    gap = float(np.abs(scorer.logits(x) - model.decision_function(x)).max())
    accuracy = float(np.average((model.predict_proba(x)[:, 1] > 0.5) == (y > 0.5), weights=w))
    print(f"tune half: {len(rows)} pages, {len(y)} blocks, word-weighted accuracy {accuracy:.3f}, export gap {gap:.2e}")
    if gap > 1e-4:
        raise SystemExit("the exported model does not score as the fitted one")
    WEIGHTS.write_text(json.dumps(exported, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{WEIGHTS}: {WEIGHTS.stat().st_size / 1000:.0f} KB")


def fitted(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> Any:
    """The ensemble fitted to blocks `x`, labels `y`, weights `w` (fixed seed: the same data, the same trees)."""
    from sklearn.ensemble import HistGradientBoostingClassifier  # a bench-only extra: imported where used

    model = HistGradientBoostingClassifier(
        max_iter=TREES, max_depth=DEPTH, learning_rate=RATE, l2_regularization=1.0, min_samples_leaf=40,
        early_stopping=False, random_state=SEED,
    )  # fmt: skip
    return model.fit(x, y, sample_weight=w)


def folds() -> None:
    """Out-of-fold chances for the tune half (FOLDS models, each fitted on the other pages of the tune half), so
    that the gate chooses its thresholds on scores the model did not see the labels of (written to FOLD_CACHE)."""
    rows = [row for row in pickle.loads(CACHE.read_bytes()) if row["split"] == "tune"]
    chances: dict[str, list[float]] = {}
    for fold in range(FOLDS):
        x, y, w = matrix([row for index, row in enumerate(rows) if index % FOLDS != fold])
        model = fitted(x, y, w)
        for row in rows[fold::FOLDS]:
            if row["blocks"]:
                numbers = np.array([block.numbers for block in row["blocks"]])
                chances[row["key"]] = [float(p) for p in model.predict_proba(numbers)[:, 1]]
        print(f"fold {fold} done", file=sys.stderr)
    FOLD_CACHE.write_bytes(pickle.dumps(chances))


def export(model: Any) -> dict[str, Any]:
    """The fitted trees as padded node arrays (a leaf's children are itself), the form scorer.BlockScorer walks."""
    trees = [predictors[0].nodes for predictors in model._predictors]
    width = max(len(nodes) for nodes in trees)
    feature, threshold, left, right, value = (np.zeros((len(trees), width)) for _ in range(5))
    for index, nodes in enumerate(trees):
        count, leaf = len(nodes), nodes["is_leaf"].astype(bool)
        own = np.arange(count)
        feature[index, :count] = np.where(leaf, 0, nodes["feature_idx"])
        threshold[index, :count] = np.where(leaf, 0.0, nodes["num_threshold"])
        left[index, :count] = np.where(leaf, own, nodes["left"])
        right[index, :count] = np.where(leaf, own, nodes["right"])
        value[index, :count] = np.where(leaf, nodes["value"], 0.0)
    return {
        "numeric": list(NUMERIC),
        "feature": feature.astype(int).tolist(),
        "threshold": threshold.tolist(),  # exact: a rounded threshold moves blocks across it
        "left": left.astype(int).tolist(),
        "right": right.astype(int).tolist(),
        "value": np.round(value, 6).tolist(),
        "base": float(np.ravel(model._baseline_prediction)[0]),
        "depth": DEPTH,
        "trained_on": "WCXB dev tune half (bench/wcxb.split_of), bench/block_scorer.py train",
    }


def gate() -> None:
    """Per page kind group, the tune half's best pruning threshold, then on top of it the best adding threshold (each
    kept when it gains GAIN or more on tune, scored out of fold); writes the choice to the package's EDITS (what the
    cascade does) and the whole table to GATE_TABLE, then prints word F1 per true type and half: the rules' reading
    against the reading the scorer edited at the chosen thresholds (the check half is only looked at)."""
    rows = pickle.loads(CACHE.read_bytes())
    scorer = BlockScorer.load()
    out_of_fold = pickle.loads(FOLD_CACHE.read_bytes()) if FOLD_CACHE.exists() else {}
    if not out_of_fold:
        raise SystemExit("no out-of-fold scores of the tune half: run folds first")
    for row in rows:
        row["chances"] = out_of_fold.get(row["key"]) or (scorer.probabilities(row["blocks"]) if row["blocks"] else [])
        row["group"] = row["page_kind"] if row["confident"] else UNSURE
        row["base"] = word_scores(row["truth"], row["rule"])[2]
        row["edited"] = row["rule"]
    table: dict[str, Any] = {"trained_on": "tune half", "gain": GAIN, "min_pages": MIN_PAGES}
    for name, edit, grid in (("prune", prune_lines, PRUNE_GRID), ("add", add_lines, ADD_GRID)):
        chosen, cells = choose(rows, edit, grid)
        print(f"{name}: chosen on tune: {chosen}")
        table[name] = {"chosen": chosen, "groups": cells}
        for row in rows:
            if row["group"] in chosen:
                row["edited"] = edit(row["edited"], row["blocks"], row["chances"], chosen[row["group"]])
    table["types"] = {}
    for half in ("tune", "check"):
        mine = [row for row in rows if row["split"] == half]
        for kind in (*PAGE_TYPES, "all"):
            of = [row for row in mine if kind in ("all", row["kind"])]
            before = statistics.fmean(r["base"] for r in of)
            after = statistics.fmean(word_scores(r["truth"], r["edited"])[2] for r in of)
            table["types"].setdefault(half, {})[kind] = {"pages": len(of), "rules": round(before, 4),
                                                         "scorer": round(after, 4)}  # fmt: skip
            print(f"{half:5} {kind:13} n={len(of):4} rules {before:.4f} scorer {after:.4f} ({after - before:+.4f})")
    edits = {"prune": table["prune"]["chosen"], "add": table["add"]["chosen"]}
    EDITS.write_text(json.dumps({**edits, "chosen_by": GATE_RULE}, indent=1) + "\n", encoding="utf-8")
    GATE_TABLE.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    print(f"{EDITS}: {edits}; the table: {GATE_TABLE}")


Edit = Callable[[str, list[Any], list[float], float], str]


def choose(rows: list[dict[str, Any]], edit: Edit, grid: tuple[float, ...]) -> tuple[dict[str, float], Any]:
    """Per group of MIN_PAGES tune pages or more, the threshold of `grid` whose edit of each page's reading gains most
    on the tune half (GAIN or more); and per group and threshold, the tune and check gains (check: for the record,
    never chosen on)."""
    chosen: dict[str, float] = {}
    table: dict[str, Any] = {}
    for group in sorted({row["group"] for row in rows}):
        mine = [row for row in rows if row["group"] == group]
        pages = {half: sum(row["split"] == half for row in mine) for half in ("tune", "check")}
        cells, best = {}, (GAIN, None)
        for threshold in grid:
            gains = {half: round(_gain(mine, half, edit, threshold), 4) for half in ("tune", "check")}
            cells[str(threshold)] = gains
            if gains["tune"] >= best[0]:
                best = (gains["tune"], threshold)
        if best[1] is not None and pages["tune"] >= MIN_PAGES:
            chosen[group] = best[1]
        table[group] = {"pages": pages, "gains": cells, "chosen": chosen.get(group)}
        shown = " ".join(f"{t}: {g['tune']:+.4f}/{g['check']:+.4f}" for t, g in cells.items())
        print(f"  {group:13} n={len(mine):3} (tune/check gain) {shown}")
    return chosen, table


def _gain(rows: list[dict[str, Any]], half: str, edit: Edit, threshold: float) -> float:
    mine = [row for row in rows if row["split"] == half]
    if not mine:
        return 0.0
    return statistics.fmean(
        word_scores(r["truth"], edit(r["edited"], r["blocks"], r["chances"], threshold))[2]
        - word_scores(r["truth"], r["edited"])[2]
        for r in mine
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("step", choices=("collect", "train", "folds", "gate"))
    step = parser.parse_args().step
    {"collect": collect, "train": train, "folds": folds, "gate": gate}[step]()


if __name__ == "__main__":
    main()
