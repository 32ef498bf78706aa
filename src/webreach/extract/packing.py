"""Packing a question's passages into a token budget: the best passages whole, the next ones trimmed to their
best sentences, so more candidate answers fit in the same tokens.

    scores = ranker.scores(index, question)                         # extract/question_rank.py: a Scores
    pieces = pack(passages, scores, costs, 500, cost_of=trimmed_cost)  # Piece per passage shown, in page order

A trimmed piece is the passage's best sentence (by the question's sentence score) and its better-scored neighbour,
cut at sentence ends (never mid-sentence: sentences end as page_scores.sentences ends them, at a word ending in
. ! ? ; or CJK end punctuation). The piece keeps its passage's number, so its anchor still names the passage and
reading the passage by number returns it whole; `Piece.trimmed` tells the renderers to mark the cut with an ellipsis.
Passages of one or two sentences, tables, lists and code are never trimmed (they are shown whole or not at all).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from webreach.extract.page_scores import SENTENCE_END, Scores
from webreach.extract.passages import Passage
from webreach.models import TRIM_MARK

WHOLE = 1  # the best passages shown whole before the others are trimmed
WHOLE_SHARE = 0.6  # ... and the next ones too while passages shown whole take no more of the budget than this
SMALLEST = 12  # tokens: below this nothing more is looked for (a label and a few words)
SLACK = 16  # tokens a trimmed piece may cost beyond its share of its passage's cost (its label, the ellipses)
KEPT_SENTENCES = 2  # a trimmed passage's best sentence and its better neighbour
WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Piece:
    """What is shown of one passage: its position on the page, the character range of its text shown, and what
    showing it costs (with its label)."""

    position: int
    start: int
    end: int
    trimmed: bool
    cost: int


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """The character ranges of the text's sentences (each from its first word's start to its last word's end),
    numbered as page_scores.sentences numbers them (a word ending a sentence, and the text's last word)."""
    spans: list[tuple[int, int]] = []
    start = None
    words = list(WORD.finditer(text))
    for number, word in enumerate(words):
        if start is None:
            start = word.start()
        if SENTENCE_END.search(word.group()) is not None or number == len(words) - 1:
            spans.append((start, word.end()))
            start = None
    return spans


def trimmed_text(text: str, start: int, end: int) -> str:
    """The shown part of a passage's text with an ellipsis where it was cut."""
    return (TRIM_MARK + " " if start > 0 else "") + text[start:end] + (" " + TRIM_MARK if end < len(text) else "")


def trim(passage: Passage, sentence_scores: np.ndarray, kept: int = KEPT_SENTENCES) -> tuple[int, int] | None:
    """The range of the passage's best sentence grown by its better-scored neighbour until `kept` sentences, or
    None when the passage is not to be trimmed (not prose, no more sentences than would be kept, or its sentences
    not as scored)."""
    if passage.kind != "text":
        return None
    spans = sentence_spans(passage.text)
    if len(spans) <= kept or len(spans) != len(sentence_scores):
        return None
    first = last = int(np.argmax(sentence_scores))
    while last - first + 1 < kept:
        before = float(sentence_scores[first - 1]) if first > 0 else -np.inf
        after = float(sentence_scores[last + 1]) if last + 1 < len(spans) else -np.inf
        first, last = (first - 1, last) if before > after else (first, last + 1)
    return spans[first][0], spans[last][1]


def pack(
    passages: Sequence[Passage], scores: Scores, costs: Sequence[int], max_tokens: int,
    cost_of: Callable[[Passage, str], int], *, whole: int = WHOLE, whole_share: float = WHOLE_SHARE,
    kept: int = KEPT_SENTENCES,
) -> list[Piece]:  # fmt: skip
    """The pieces shown for the question within `max_tokens`, in page order (every passage whole when they all fit).

    Greedy by passage score: a passage is shown whole while it fits and it is among the first `whole` shown whole
    or the passages shown whole so far take at most `whole_share` of the budget with it; otherwise its trimmed
    piece (when it can be trimmed) if that fits, else whole if that fits. `cost_of(passage, shown text)` is a
    trimmed piece's cost with its label (`costs` are the whole passages'). A piece too large for what is left is
    passed over for the next passages.
    """
    if sum(costs) <= max_tokens:  # the whole page fits: nothing to trim
        return [Piece(i, 0, len(p.text), False, costs[i]) for i, p in enumerate(passages)]
    order = sorted(range(len(passages)), key=lambda i: (-scores.passages[i], i))
    firsts = np.searchsorted(scores.sentence_of, np.arange(len(passages) + 1))
    left, whole_spent, wholes, chosen = max_tokens, 0, 0, []
    for position in order:
        passage, cost = passages[position], costs[position]
        if cost <= left and (wholes < whole or whole_spent + cost <= whole_share * max_tokens):
            chosen.append(Piece(position, 0, len(passage.text), False, cost))
            left, whole_spent, wholes = left - cost, whole_spent + cost, wholes + 1
            continue
        if left < SMALLEST:
            break
        cut = trim(passage, scores.sentences[firsts[position] : firsts[position + 1]], kept)
        if cut is not None:
            # counting a piece's tokens is what packing costs: a piece whose share of the passage's cost is well
            # over what is left is not counted
            if cost * (cut[1] - cut[0]) / max(len(passage.text), 1) > left + SLACK:
                continue
            cost = cost_of(passage, trimmed_text(passage.text, *cut))
            if cost <= left:
                chosen.append(Piece(position, cut[0], cut[1], True, cost))
                left -= cost
        elif cost <= left:
            chosen.append(Piece(position, 0, len(passage.text), False, cost))
            left -= cost
    return sorted(chosen, key=lambda piece: piece.position)
