"""The pieces a question ranker scores one page with: texts' values laid flat, BM25 over them, each token's
weight by its idf over the page, and the page's sentences (extract/question_rank.py puts them together), and the
scores a question gets (Scores).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

# a word that ends a sentence ("built.", "it?", "1937).", "said:" is no end)
SENTENCE_END = re.compile(r"[.!?;][\"')\]”’]*$|[。！？；]")


@dataclass(frozen=True)
class Flat:
    """Values of several texts laid end to end, in text order: `values[i]` belongs to text `text_of[i]`."""

    values: np.ndarray
    text_of: np.ndarray


@dataclass(frozen=True)
class Scores:
    """A question's scores on one page: one per passage, and one per sentence with each sentence's passage
    (sentences in page order; a passage's sentences as page_scores.sentences numbers them)."""

    passages: list[float]
    sentences: np.ndarray
    sentence_of: np.ndarray


class TokenIdf:
    """Each WordLlama token's weight on one page: the square root of its idf over the passages, so the tokens that
    are everywhere on the page (its subject, "the", ",") count less in a passage's and the question's vectors. A
    token the page lacks weighs as one in no passage. (Tuning half, 5 questions an article, strict@500 /
    low-overlap: unweighted 0.949 / 0.882, idf^0.5 0.958 / 0.905, idf^0.75 0.956 / 0.902.)"""

    def __init__(self, tokens: Flat, passages: int) -> None:
        rows = max(passages, 1)
        present = np.unique(tokens.values * rows + tokens.text_of)  # each (token, passage) once
        self.tokens, df = np.unique(present // rows, return_counts=True)
        self.weights = np.sqrt(np.log((passages + 1) / (df + 0.5)))
        self.unseen = float(np.sqrt(np.log((passages + 1) / 0.5)))

    def of(self, ids: np.ndarray) -> np.ndarray:
        """The weight of each token id."""
        if not len(self.tokens):
            return np.full(len(ids), self.unseen)
        at = np.minimum(np.searchsorted(self.tokens, ids), len(self.tokens) - 1)
        return np.where(self.tokens[at] == ids, self.weights[at], self.unseen)


class Bm25:
    """Okapi BM25 over one page's passages, scored as bm25s scores by default (Lucene's variant: idf
    log(1 + (N - df + 0.5) / (df + 0.5)), k1 1.5, b 0.75; a term repeated in the query counts again).

    Built here rather than with bm25s: a page is small, and bm25s's index build (its own vocabulary, a sparse
    matrix of every term's scores) cost more than the rest of the ranking; a query here reads only its own terms.
    """

    def __init__(self, documents: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75) -> None:
        vocabulary: dict[str, int] = {}
        ids = [[vocabulary.setdefault(term, len(vocabulary)) for term in doc] for doc in documents]
        lengths = [len(doc) for doc in ids]
        flat = Flat(
            np.fromiter(chain.from_iterable(ids), dtype=np.int64, count=sum(lengths)),
            np.repeat(np.arange(len(ids)), lengths),
        )
        self._build(flat, len(ids), list(vocabulary), k1, b)

    @classmethod
    def of_flat(cls, terms: Flat, documents: int, vocabulary: list[str], k1: float = 1.5, b: float = 0.75) -> Bm25:
        """The index of `documents` documents whose terms are `terms` (positions in `vocabulary`)."""
        index = cls.__new__(cls)
        index._build(terms, documents, vocabulary, k1, b)
        return index

    def _build(self, terms: Flat, documents: int, vocabulary: list[str], k1: float, b: float) -> None:
        self.vocabulary = {term: i for i, term in enumerate(vocabulary)}
        self.term_ids, self.doc_ids = terms.values, terms.text_of
        lengths = np.bincount(terms.text_of, minlength=documents)
        self.documents = documents
        average = float(lengths.mean()) if documents else 0.0
        self.k1 = k1
        self.norm = k1 * (1 - b + b * lengths / max(average, 1e-9))

    def scores(self, query: Sequence[str]) -> np.ndarray:
        """One score per document."""
        total = np.zeros(self.documents)
        for term in query:
            position = self.vocabulary.get(term)
            if position is None:
                continue
            tf = np.bincount(self.doc_ids[self.term_ids == position], minlength=self.documents).astype(np.float64)
            df = int(np.count_nonzero(tf))
            idf = math.log(1 + (self.documents - df + 0.5) / (df + 0.5))
            total += idf * tf / (tf + self.norm)
        return total


def spread(occurrences: np.ndarray, text_of: np.ndarray, counts: list[int], values: list[int]) -> Flat:
    """The values of each occurrence's word laid end to end in occurrence order (word w has `counts[w]` values,
    after those of the words before it in `values`)."""
    per_word = np.array(counts, dtype=np.int64)
    flat = np.array(values, dtype=np.int64)
    repeats = per_word[occurrences]
    firsts = np.repeat((np.cumsum(per_word) - per_word)[occurrences], repeats)
    within = np.arange(int(repeats.sum())) - np.repeat(np.cumsum(repeats) - repeats, repeats)
    return Flat(flat[firsts + within], np.repeat(text_of, repeats))


def unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.asarray(rows / np.maximum(norms, 1e-9), dtype=np.float32)


def sentences(texts: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
    """The texts' words numbered by sentence (a sentence ends at a word ending in . ! ? or ;, and with its text),
    and each sentence's text: both in order, over all the texts' words laid end to end."""
    words = list(chain.from_iterable(texts))
    lengths = np.array([len(text) for text in texts], dtype=np.int64)
    if not words:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    ending = {word: SENTENCE_END.search(word) is not None for word in dict.fromkeys(words)}
    ends = np.fromiter(map(ending.__getitem__, words), dtype=bool, count=len(words))
    ends[(np.cumsum(lengths) - 1)[lengths > 0]] = True  # a text's last word ends its last sentence
    sentence_of_word = np.concatenate(([0], np.cumsum(ends)[:-1]))
    text_of_word = np.repeat(np.arange(len(texts)), lengths)
    return sentence_of_word, text_of_word[ends]


def scaled(values: np.ndarray) -> np.ndarray:
    """Values as standard scores over the page, divided by 3 so most fall in [-1, 1] (all zero when they do not
    differ). Standard scores rather than min-max: one outlier passage no longer squeezes the others together."""
    spread = float(values.std())
    if spread <= 1e-12:
        return np.zeros_like(values)
    return (values - float(values.mean())) / (3 * spread)
