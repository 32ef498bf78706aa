"""Fitting the question ranker's signal weights on the tuning half (a listwise logistic model in numpy).

Run: python -m bench.question_weights [--per-doc 30] [--steps 400]
For each tuning-half question (bench/question_reading.py's sample and split, fixed by sha256, so the run is
reproducible) every passage's signals are computed as extract/question_rank.py computes them (each scaled over the
page); a softmax over the page's passages of w . signals is fitted to put the passage holding the gold answer first
(cross-entropy, full-batch gradient descent from the shipped weights, lexical weight held at 1 since only the
ratios matter). Prints the fitted weights as --weights JSON for bench/question_reading.py, which measures them.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

import numpy as np

from bench.question_reading import half, load
from webreach.extract.page_scores import scaled
from webreach.extract.passages import cut
from webreach.extract.question_rank import LEAD_PASSAGES, PageIndex, QuestionRanker, Weights

SIGNALS = ("lexical", "sentence_lexical", "heading", "semantic", "sentence", "lead")


def signals(ranker: QuestionRanker, page: PageIndex, question: str) -> np.ndarray:
    """One row per passage, one column per SIGNALS entry (before the neighbours' share)."""
    count = len(page.passages)
    terms, tokens, vocabulary = ranker.page_words([question.split()])
    query = [vocabulary[i] for i in terms.values.tolist()]
    rows = np.zeros((count, len(SIGNALS)))
    if query:
        rows[:, 0] = scaled(page.bm25.scores(query))
        best = np.zeros(count)
        np.maximum.at(best, page.sentence_of, page.sentence_bm25.scores(query))
        rows[:, 1] = scaled(best)
        rows[:, 2] = [len(set(query) & h) / len(set(query)) for h in page.heading_terms]
    asked = ranker.pooled(tokens, 1, page.idf.of(tokens.values))
    if asked is not None and page.vectors is not None and page.sentence_vectors is not None:
        rows[:, 3] = scaled(np.asarray(page.vectors @ asked[0], dtype=np.float64))
        best = np.full(count, -1.0)
        np.maximum.at(best, page.sentence_of, np.asarray(page.sentence_vectors @ asked[0], dtype=np.float64))
        rows[:, 4] = scaled(best)
    rows[:LEAD_PASSAGES, 5] = 1.0
    return rows


def fit(pages: list[tuple[np.ndarray, np.ndarray]], start: np.ndarray, steps: int, rate: float) -> np.ndarray:
    """Weights maximising the mean log-probability of the gold passages (softmax over each page's passages)."""
    weights = start.copy()
    for _ in range(steps):
        gradient = np.zeros_like(weights)
        for features, gold in pages:
            logits = features @ weights
            probabilities = np.exp(logits - logits.max())
            probabilities /= probabilities.sum()
            target = gold / gold.sum()
            gradient += features.T @ (probabilities - target)
        gradient /= len(pages)
        gradient[0] = 0.0  # lexical stays 1: the scale of the scores is free
        weights -= rate * gradient
    return weights


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--per-doc", type=int, default=30)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--rate", type=float, default=2.0)
    args = parser.parse_args()
    ranker, shipped = QuestionRanker(), Weights()
    pages = []
    for article in (a for a in load(args.per_doc) if half(a.doc_id) == "tuning"):
        passages = cut(article.text)
        page = ranker.index(passages, title=article.title)
        for question in article.questions:
            gold = np.array([any(p.start <= a and b <= p.end for a, b in question.spans) for p in passages], float)
            if gold.any():
                pages.append((signals(ranker, page, question.text), gold))
    start = np.array([getattr(shipped, name) for name in SIGNALS])
    fitted = fit(pages, start, args.steps, args.rate)
    weights = replace(shipped, **{name: round(float(w), 3) for name, w in zip(SIGNALS, fitted, strict=True)})
    print(f"{len(pages)} questions; shipped {start.round(3).tolist()} -> fitted {fitted.round(3).tolist()}")
    print(json.dumps({name: getattr(weights, name) for name in SIGNALS}))


if __name__ == "__main__":
    main()
