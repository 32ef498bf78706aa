"""The learned block scorer: the chance that each block of a page is its main content, and a reading edited by it.

    BlockScorer.load() -> BlockScorer          (the shipped model, weights.json; read once a process)
    Edits.shipped() -> Edits                   (where the cascade uses it, edits.json; read once a process)
    scorer.probabilities(blocks) -> list[float]
    prune_lines(text, blocks, probabilities, threshold) -> str
    add_lines(text, blocks, probabilities, threshold) -> str

Gradient-boosted shallow trees over features.py's numbers (the block itself, its place in the page, and context.py:
the block against the rules' reading), fitted on WCXB dev's tune half only by bench/block_scorer.py (which also says
how to retrain it) and shipped as plain node arrays walked in numpy. The cascade asks it where its rules are unsure
what of a page is content (Edits.shipped(): the kinds the gate found it gains on, edits.json): a line of the reading
that is a block scored under the pruning threshold is left out, and a block the rules left out right after one the
reading holds, scored at the adding threshold or more, is put back.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType

import numpy as np

from webreach.extract.blocks.features import NUMERIC, Block, page_blocks
from webreach.extract.extracted import WORD, seen_text
from webreach.extract.kinds.page_type import PageKind
from webreach.extract.metadata import JsonLd
from webreach.extract.tree import Element
from webreach.models import ReadFormat

LOGGER = logging.getLogger(__name__)
WEIGHTS = Path(__file__).with_name("weights.json")
EDITS = Path(__file__).with_name("edits.json")  # where the cascade edits: written by bench/block_scorer.py gate
UNSURE = "unsure"  # the group of pages of no sure kind


@dataclass(frozen=True)
class Edits:
    """Per kind of page (a sure kind's name, else UNSURE), the score under which a line of the reading is left out
    (prune) and the score at or over which a block next to the reading is added (add); a kind in neither is left
    to the rules."""

    prune: Mapping[str, float] = field(default_factory=dict)
    add: Mapping[str, float] = field(default_factory=dict)

    def thresholds(self, kind: PageKind) -> tuple[float | None, float | None]:
        """The pruning and adding thresholds for a page of `kind` (None: that edit is not made)."""
        group = kind.name if kind.confident else UNSURE
        return self.prune.get(group), self.add.get(group)

    @staticmethod
    def shipped(path: Path = EDITS) -> Edits:
        """What the cascade does: the kinds and thresholds bench/block_scorer.py gate chose on the tune half (scored
        out of fold) and wrote to edits.json; read once a process. Unreadable: no edits (the rules' reading)."""
        return _shipped(path)


@cache
def _shipped(path: Path) -> Edits:
    try:
        chosen = json.loads(path.read_text(encoding="utf-8"))
        prune = {str(kind): float(value) for kind, value in chosen["prune"].items()}
        add = {str(kind): float(value) for kind, value in chosen["add"].items()}
    except (OSError, ValueError, KeyError, AttributeError, TypeError):
        LOGGER.warning("block scorer edits unusable at %s; reading without the scorer", path, exc_info=True)
        return Edits()
    return Edits(prune=MappingProxyType(prune), add=MappingProxyType(add))


@dataclass(frozen=True)
class BlockScorer:
    """The fitted ensemble: per tree (rows), per node, the feature it asks, the threshold (a value at or under it
    goes left), its left and right children (a leaf's are itself) and its value (a leaf's summand); the logit of a
    block is `base` plus the values of the leaves it reaches, one per tree, after `depth` steps."""

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    base: float
    depth: int

    @staticmethod
    def load(path: Path = WEIGHTS) -> BlockScorer:
        """The model at `path`, the package's own by default (read once a process; it never changes while it
        runs)."""
        return _load(path)

    def probabilities(self, blocks: list[Block]) -> list[float]:
        """Each block's chance of being content, in the blocks' order."""
        if not blocks:
            return []
        return [float(value) for value in 1 / (1 + np.exp(-self.logits(np.array([b.numbers for b in blocks]))))]

    def logits(self, numbers: np.ndarray) -> np.ndarray:
        """The ensemble's raw score of each row of `numbers` (blocks by NUMERIC): every tree walked at once."""
        trees = np.arange(self.feature.shape[0])[None, :]
        rows = np.arange(numbers.shape[0])[:, None]
        nodes = np.zeros((numbers.shape[0], self.feature.shape[0]), dtype=np.int64)
        for _ in range(self.depth):
            asked = numbers[rows, self.feature[trees, nodes]]
            nodes = np.where(asked <= self.threshold[trees, nodes], self.left[trees, nodes], self.right[trees, nodes])
        return np.asarray(self.base + self.value[trees, nodes].sum(axis=1))


@cache
def _load(path: Path) -> BlockScorer:
    model = json.loads(path.read_text(encoding="utf-8"))
    if model["numeric"] != list(NUMERIC):
        raise ValueError(f"{path} was trained on other features: retrain with bench/block_scorer.py")
    arrays = {name: np.array(model[name]) for name in ("feature", "left", "right")}
    return BlockScorer(
        feature=arrays["feature"].astype(np.int64),
        threshold=np.array(model["threshold"], dtype=np.float64),
        left=arrays["left"].astype(np.int64),
        right=arrays["right"].astype(np.int64),
        value=np.array(model["value"], dtype=np.float64),
        base=float(model["base"]),
        depth=int(model["depth"]),
    )


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


def add_lines(text: str, blocks: list[Block], probabilities: list[float], threshold: float) -> str:
    """`text` with the blocks the rules left out that score `threshold` or more and follow, in the page's order, a
    block the reading holds (or one added so): each goes in as its own paragraph after that block's line. A block
    far from the reading is never added (a lone high score in a sidebar is more likely a slip than content)."""
    lines = text.split("\n")
    where: dict[str, int] = {}
    for index, line in enumerate(lines):
        where.setdefault(line_key(line), index)
    added: dict[int, list[str]] = {}
    anchor: int | None = None
    for block, chance in zip(blocks, probabilities, strict=True):
        if block.key in where:
            anchor = where[block.key]
        elif anchor is not None and chance >= threshold:
            added.setdefault(anchor, []).append(block.text)
            where[block.key] = anchor
        else:
            anchor = None
    if not added:
        return text
    out = []
    for index, line in enumerate(lines):
        out.append(line)
        out.extend(f"\n{extra}" for extra in added.get(index, ()))
    return "\n".join(out)


def pruned_reading(
    tree: Element,
    kind: PageKind,
    json_ld: JsonLd,
    text: str,
    format: ReadFormat,
    weights: Path = WEIGHTS,
    edits: Edits | None = None,
) -> str:
    """`text` edited by the scorer when `edits` (the shipped ones by default) name the page's kind (pruned, then
    added to), else as it is; an HTML reading is never edited (its lines are markup, not blocks)."""
    prune, add = (Edits.shipped() if edits is None else edits).thresholds(kind)
    if (prune is None and add is None) or format == "html" or not text.strip():
        return text
    try:
        scorer = BlockScorer.load(weights)
    except (OSError, ValueError, KeyError):  # a damaged install: the rules' reading, and a word in the log
        LOGGER.warning("block scorer weights unusable at %s; reading without it", weights, exc_info=True)
        return text
    lines = [line_key(line) for line in text.split("\n")]
    blocks = page_blocks(tree, kind, json_ld, lines, only_reading=add is None)
    chances = scorer.probabilities(blocks)
    if prune is not None:
        text = prune_lines(text, blocks, chances, prune)
    return text if add is None else add_lines(text, blocks, chances, add)


def line_key(line: str) -> str:
    """A reading's line as a block's key: the words a reader sees, lower-cased, joined by spaces."""
    return " ".join(word.lower() for word in WORD.findall(seen_text(line)))
