"""The learned block scorer: the chance that each block of a page is its main content, and a reading pruned by it.

    BlockScorer.load() -> BlockScorer          (the shipped weights, weights.json; read once a process)
    scorer.probabilities(blocks) -> list[float]
    prune_lines(text, blocks, probabilities, threshold) -> str

A logistic regression over features.py's numbers (standardised as in training) and hashed class/id tokens, fitted
on WCXB dev's tune half only by bench/block_scorer.py (which also says how to retrain it). Plain numpy at run
time. The cascade asks it where its rules are unsure what of a page is content (cascade.py has where and the
measurements): a line of the reading that is a block the model scores under the threshold is left out.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from webreach.extract.blocks.features import NUMERIC, TOKEN_BUCKETS, Block, page_blocks
from webreach.extract.extracted import WORD, seen_text
from webreach.extract.kinds.page_type import PageKind
from webreach.extract.metadata import JsonLd
from webreach.extract.tree import Element
from webreach.models import ReadFormat

LOGGER = logging.getLogger(__name__)
WEIGHTS = Path(__file__).with_name("weights.json")
UNSURE = "unsure"  # the group of pages of no sure kind
# per kind of page (a sure kind's name, else UNSURE), the score under which a block is left out of the reading;
# a kind not here is never pruned. Chosen on the tune half (bench/block_scorer.py gate: word F1 of the pages the
# classifier names so, rule reading -> pruned; the best threshold of 0.05-0.3, kept when it gains 0.002 or more):
# sure products 0.698 -> 0.703 at 0.1 (check half 0.708 -> 0.713), sure service pages 0.817 -> 0.826 at 0.3
# (check 0.825 -> 0.834). Collections (+0.0005 at best), unsure pages (+0.0015; check half -0.0065), listings
# (3 pages), forums, docs and articles gain nothing or lose: left to the rules.
THRESHOLDS: dict[str, float] = {"product": 0.1, "service": 0.3}


@dataclass(frozen=True)
class BlockScorer:
    """The fitted model: numeric features' means and deviations, their coefficients, then one per token bucket."""

    mean: np.ndarray
    std: np.ndarray
    coef: np.ndarray
    bias: float

    @staticmethod
    def load(path: Path = WEIGHTS) -> BlockScorer:
        """The weights at `path`, the package's own by default (read once a process; they never change while it
        runs)."""
        return _load(path)

    def probabilities(self, blocks: list[Block]) -> list[float]:
        """Each block's chance of being content, in the blocks' order."""
        if not blocks:
            return []
        numeric = len(self.mean)
        numbers = (np.array([block.numbers for block in blocks]) - self.mean) / self.std
        logits = numbers @ self.coef[:numeric] + self.bias
        tokens = self.coef[numeric:]
        logits += np.array([tokens[list(block.tokens)].sum() if block.tokens else 0.0 for block in blocks])
        return [float(value) for value in 1 / (1 + np.exp(-logits))]


@cache
def _load(path: Path) -> BlockScorer:
    model = json.loads(path.read_text(encoding="utf-8"))
    if model["numeric"] != list(NUMERIC) or model["buckets"] != TOKEN_BUCKETS:
        raise ValueError(f"{path} was trained on other features: retrain with bench/block_scorer.py")
    return BlockScorer(np.array(model["mean"]), np.array(model["std"]), np.array(model["coef"]), float(model["bias"]))


def prune_lines(text: str, blocks: list[Block], probabilities: list[float], threshold: float) -> str:
    """`text` without the lines that are blocks scored under `threshold` (a block said twice: its best score);
    lines no block matches word for word stay."""
    best: dict[str, float] = {}
    for block, chance in zip(blocks, probabilities, strict=True):
        best[block.key] = max(chance, best.get(block.key, 0.0))
    kept = []
    for line in text.split("\n"):
        key = line_key(line)
        if key and best.get(key, 1.0) < threshold:
            continue
        kept.append(line)
    pruned = "\n".join(kept)
    while "\n\n\n" in pruned:
        pruned = pruned.replace("\n\n\n", "\n\n")
    return pruned.strip()


def pruned_reading(
    tree: Element, kind: PageKind, json_ld: JsonLd, text: str, format: ReadFormat, weights: Path = WEIGHTS
) -> str:
    """`text` pruned by the scorer when the page's kind is one it measurably helps (THRESHOLDS), else as it is; an
    HTML reading is never pruned (its lines are markup, not blocks)."""
    threshold = THRESHOLDS.get(kind.name if kind.confident else UNSURE)
    if threshold is None or format == "html" or not text.strip():
        return text
    try:
        scorer = BlockScorer.load(weights)
    except (OSError, ValueError, KeyError):  # a damaged install: the rules' reading, and a word in the log
        LOGGER.warning("block scorer weights unusable at %s; reading without it", weights, exc_info=True)
        return text
    blocks = page_blocks(tree, kind, json_ld, only={line_key(line) for line in text.split("\n")})
    return prune_lines(text, blocks, scorer.probabilities(blocks), threshold)


def line_key(line: str) -> str:
    """A reading's line as a block's key: the words a reader sees, lower-cased, joined by spaces."""
    return " ".join(word.lower() for word in WORD.findall(seen_text(line)))
