"""Train and weigh the learned block scorer (webreach/extract/blocks) on WCXB dev: features, labels, fit, gate.

Run: python -m bench.block_scorer collect   (every dev page's blocks and rule reading, cached in CACHE)
     python -m bench.block_scorer train     (fits on the tune half only; writes the package's weights file)
     python -m bench.block_scorer gate      (per kind and threshold, word F1 of the rule reading pruned by the
                                             scorer, tune half to choose, check half to see)

Labels: a block is content when its words, joined, occur in the page's true text (WCXB ground_truth.main_content,
lower-cased words joined the same way). Blocks weigh their word count (capped at MAX_WEIGHT) in the fit, as word F1
weighs them. The model is L2-regularised logistic regression over the standardised numeric features and the hashed
class/id tokens, fitted by full-batch Adam for EPOCHS steps from zeros: deterministic, no seed needed beyond the fixed
order of the pages. Only the tune half (bench/wcxb.split_of) is ever fitted or used to choose a threshold.
"""

from __future__ import annotations

import argparse
import json
import pickle
import re
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np

from bench.wcxb import load_wcxb, split_of, word_scores
from webreach.errors import WebreachError
from webreach.extract import charset
from webreach.extract.blocks.features import NUMERIC, TOKEN_BUCKETS, page_blocks
from webreach.extract.blocks.scorer import WEIGHTS, BlockScorer, prune_lines
from webreach.extract.cascade import ExtractOptions, extract, prepare

CACHE = Path("/tmp/webreach-block-scorer.pkl")
WORD = re.compile(r"\w+")
MAX_WEIGHT = 40.0
EPOCHS = 600
L2 = 1e-3
RATE = 0.05


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
        blocks = page_blocks(reading.tree, reading.kind, reading.json_ld)
        joined = " " + " ".join(word.lower() for word in WORD.findall(truth)) + " "
        labels = [float(f" {block.key} " in joined) for block in blocks]
        rows.append({"key": key, "split": split_of(key), "kind": kind, "truth": truth, "rule": rule,
                     "page_kind": reading.kind.name, "confident": reading.kind.confident,
                     "blocks": blocks, "labels": labels})  # fmt: skip
        if number % 100 == 0:
            print(number, file=sys.stderr)
    CACHE.write_bytes(pickle.dumps(rows))


Tokens = tuple[np.ndarray, np.ndarray]  # (block index, bucket) of every hashed token: a sparse one-hot


def matrix(rows: list[dict[str, Any]]) -> tuple[np.ndarray, Tokens, np.ndarray, np.ndarray]:
    """Numeric features, the tokens as (block, bucket) pairs, labels, weights."""
    blocks = [block for row in rows for block in row["blocks"]]
    numbers = np.array([block.numbers for block in blocks], dtype=np.float64)
    pairs = [(index, bucket) for index, block in enumerate(blocks) for bucket in sorted(block.tokens)]
    tokens = (np.array([p[0] for p in pairs], dtype=np.int64), np.array([p[1] for p in pairs], dtype=np.int64))
    labels = np.array([label for row in rows for label in row["labels"]])
    weights = np.minimum(np.array([block.words for block in blocks], dtype=np.float64), MAX_WEIGHT)
    return numbers, tokens, labels, weights


def train() -> None:
    rows = [row for row in pickle.loads(CACHE.read_bytes()) if row["split"] == "tune"]
    x, tokens, y, w = matrix(rows)
    mean, std = x.mean(axis=0), x.std(axis=0) + 1e-9
    x = (x - mean) / std
    coef, bias = fit(x, tokens, y, w)
    probability = 1 / (1 + np.exp(-logits(x, tokens, coef, bias)))
    accuracy = float(np.average((probability > 0.5) == (y > 0.5), weights=w))
    print(f"tune half: {len(rows)} pages, {len(y)} blocks, word-weighted accuracy {accuracy:.3f}")
    model = {"numeric": list(NUMERIC), "buckets": TOKEN_BUCKETS, "mean": mean.round(6).tolist(),
             "std": std.round(6).tolist(), "coef": coef.round(5).tolist(), "bias": round(float(bias), 5),
             "trained_on": "WCXB dev tune half (bench/wcxb.split_of), bench/block_scorer.py train"}  # fmt: skip
    WEIGHTS.write_text(json.dumps(model) + "\n", encoding="utf-8")


def logits(x: np.ndarray, tokens: Tokens, coef: np.ndarray, bias: float) -> np.ndarray:
    numeric = x.shape[1]
    blocks, buckets = tokens
    return x @ coef[:numeric] + bias + np.bincount(blocks, weights=coef[numeric:][buckets], minlength=len(x))


def fit(x: np.ndarray, tokens: Tokens, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, float]:
    """Weighted, L2-regularised logistic regression by full-batch Adam from zeros (deterministic)."""
    numeric = x.shape[1]
    blocks, buckets = tokens
    coef, bias = np.zeros(numeric + TOKEN_BUCKETS), 0.0
    m, v, mb, vb = np.zeros_like(coef), np.zeros_like(coef), 0.0, 0.0
    w = w / w.sum()
    for step in range(1, EPOCHS + 1):
        error = (1 / (1 + np.exp(-logits(x, tokens, coef, bias))) - y) * w
        token_grad = np.bincount(buckets, weights=error[blocks], minlength=TOKEN_BUCKETS)
        grad, grad_b = np.concatenate([x.T @ error, token_grad]) + L2 * coef, float(error.sum())
        m, v = 0.9 * m + 0.1 * grad, 0.999 * v + 0.001 * grad**2
        mb, vb = 0.9 * mb + 0.1 * grad_b, 0.999 * vb + 0.001 * grad_b**2
        correction = np.sqrt(1 - 0.999**step) / (1 - 0.9**step)
        coef -= RATE * correction * m / (np.sqrt(v) + 1e-8)
        bias -= RATE * correction * mb / (np.sqrt(vb) + 1e-8)
    return coef, bias


def gate() -> None:
    """Mean word F1 per true type and half: rule reading, and pruned at each threshold, for each page kind group."""
    rows = pickle.loads(CACHE.read_bytes())
    scorer = BlockScorer.load()
    for row in rows:
        row["chances"] = scorer.probabilities(row["blocks"])
    thresholds = (0.05, 0.1, 0.15, 0.2, 0.3)
    for group in ("product", "collection", "listing", "service", "forum", "documentation", "article", "unsure"):
        chosen = [r for r in rows if (r["page_kind"] if r["confident"] else "unsure") == group]
        for half in ("tune", "check"):
            mine = [r for r in chosen if r["split"] == half]
            if not mine:
                continue
            base = statistics.fmean(word_scores(r["truth"], r["rule"])[2] for r in mine)
            cells = []
            for threshold in thresholds:
                scores = []
                for r in mine:
                    pruned = prune_lines(r["rule"], r["blocks"], r["chances"], threshold)
                    scores.append(word_scores(r["truth"], pruned)[2])
                cells.append(f"{threshold}: {statistics.fmean(scores) - base:+.4f}")
            print(f"{group:13} {half:5} n={len(mine):3} rule {base:.4f} | " + " ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("step", choices=("collect", "train", "gate"))
    step = parser.parse_args().step
    {"collect": collect, "train": train, "gate": gate}[step]()


if __name__ == "__main__":
    main()
