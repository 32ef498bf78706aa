"""Ranking a document's passages for a question, and choosing the best of them within a token budget.

    ranker = QuestionRanker()                      # loads its optional parts on first use
    scores = ranker.rank(passages, "when was the bridge built?", title="Golden Gate Bridge")
    chosen = select(scores, costs, max_tokens=1000)  # passage positions, in page order

The score of a passage adds these signals:
  - lexical: BM25 (scored as bm25s scores, see page_scores.Bm25) over the passage's text with its heading path and
    the page title folded in, as a standard score over the page (divided by 3);
  - semantic: cosine similarity of WordLlama's static embeddings (shipped inside the wordllama wheel, loaded from
    the package directory with downloads disabled), tokens weighted by their idf over the page's passages (see
    TokenIdf), present only when the `question` extra is installed, scaled as the lexical one;
  - sentences: the same two signals on the passage's best sentence alone (its sentence most similar to the
    question, its sentence with the best BM25 score among the page's sentences), so an answer sentence in a long
    passage about something else still counts whole;
  - structure: the share of the question's terms found in the passage's headings;
then borrows a part of its neighbours' scores (the same block most, the same section less), so an answer sentence
next to the one that repeats the question's words is found too. Without wordllama the ranking is lexical only.
Each passage is split at spaces once; a ranker remembers the words it met (their terms and token ids, up to
WORD_CACHE of them) and finds a new word's token ids in WordLlama's vocabulary rather than running its tokenizer,
so a page costs dictionary look-ups and a few numpy operations. A second question on an index embeds only itself.

Terms: Latin words lower-cased, English stop words dropped and lightly stemmed; CJK runs cut into words by jieba
(the `question` extra) or, without it, into overlapping character pairs (extract/question_terms.py).
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from webreach.extract.page_scores import Bm25, Flat, Scores, TokenIdf, scaled, sentences, spread, unit
from webreach.extract.passages import Passage
from webreach.extract.question_terms import known_ids, longest_pieces, word_terms

LEAD_PASSAGES = 2
WORD_CACHE = 100_000  # distinct words remembered by a ranker (their token ids and terms)
SEMANTIC_DIM = 256  # WordLlama's bundled dimensions (64 or 128 truncate them: faster, a little weaker)


@dataclass(frozen=True)
class Weights:
    """How the signals add up (tuned on the tuning half of bench/question_reading.py)."""

    lexical: float = 1.0
    semantic: float = 1.0
    heading: float = 0.3
    same_block: float = 0.35
    same_section: float = 0.1
    sentence: float = 1.0  # the semantic score of the passage's sentence nearest the question
    sentence_lexical: float = 0.5  # the BM25 score of the passage's sentence best matching the question
    lead: float = 0.15  # added to the page's first LEAD_PASSAGES passages (a lead often answers a general question)


class PageIndex:
    """One page made ready for questions: its passages' and sentences' BM25 indexes, heading terms and embeddings.

    The passages (title and heading path folded in) are split at spaces once and their words numbered by sentence
    (page_scores.sentences); a passage's vector is the sum of its heading path's and its sentences' token vectors.
    Each distinct word's terms (for BM25) and WordLlama token ids (for the embedding) come from the ranker's word
    memory and are spread over the word's occurrences with numpy, so a page costs one pass of dictionary look-ups
    and a few array operations.
    """

    def __init__(self, ranker: QuestionRanker, passages: Sequence[Passage], title: str) -> None:
        self.passages = list(passages)
        count = len(self.passages)
        heads = [" ".join((title, *p.headings)).split() for p in self.passages]
        bodies = [p.text.split() for p in self.passages]
        in_sentence, self.sentence_of = sentences(bodies)
        said = len(self.sentence_of)
        # texts 0..count-1 are the passages' heads, the rest their sentences: each text's passage
        text_of = np.concatenate((np.repeat(np.arange(count), [len(h) for h in heads]), count + in_sentence))
        terms, tokens, vocabulary = ranker.page_words(heads + bodies, text_of)
        passage_of = np.concatenate((np.arange(count), self.sentence_of))
        self.bm25 = Bm25.of_flat(Flat(terms.values, passage_of[terms.text_of]), count, vocabulary)
        in_sentence = terms.text_of >= count
        self.sentence_bm25 = Bm25.of_flat(
            Flat(terms.values[in_sentence], terms.text_of[in_sentence] - count), said, vocabulary
        )
        paths = dict.fromkeys(p.headings for p in self.passages)
        by_path = {path: frozenset(ranker.terms(" ".join(path))) for path in paths}
        self.heading_terms = [by_path[p.headings] for p in self.passages]
        self.idf = TokenIdf(Flat(tokens.values, passage_of[tokens.text_of]), count)
        sums = ranker.summed(tokens, count + said, self.idf.of(tokens.values))
        if sums is None:
            self.vectors = self.sentence_vectors = None
            return
        by_passage = sums[:count].copy()
        np.add.at(by_passage, self.sentence_of, sums[count:])
        self.vectors, self.sentence_vectors = unit(by_passage), unit(sums[count:])


class QuestionRanker:
    """Scores passages for a question. Holds its optional parts (embeddings, Chinese segmenter) once loaded."""

    def __init__(
        self, weights: Weights | None = None, *, semantic: bool = True, segmenter: bool = True, dim: int = SEMANTIC_DIM
    ) -> None:
        """`semantic`/`segmenter` False leave out WordLlama / jieba even when installed (the fallbacks)."""
        self.weights = weights or Weights()
        self.dim = dim
        self._want_semantic = semantic
        self._want_segmenter = segmenter
        self._embedding: np.ndarray | None = None
        self._tokenizer: Any = None
        self._vocabulary: dict[str, int] = {}
        self._segmenter: Any = None
        # words met before (split at spaces): their terms and WordLlama token ids (bounded: emptied when full)
        self._words: dict[str, tuple[tuple[str, ...], tuple[int, ...]]] = {}
        self._loaded = False
        self._loading = threading.Lock()  # pages are ranked in worker threads: the parts load once

    @property
    def semantic(self) -> bool:
        """True when the semantic signal is in use (wordllama installed and wanted)."""
        self._load()
        return self._embedding is not None

    def _load(self) -> None:
        if self._loaded:
            return
        with self._loading:
            if not self._loaded:
                self._load_parts()
                self._loaded = True

    def _load_parts(self) -> None:
        # bm25s sets its logger to DEBUG and jieba gives its own a stderr handler: their progress notes are not
        # the application's log (warnings still are)
        for name in ("bm25s", "jieba"):
            logging.getLogger(name).setLevel(logging.WARNING)
        if self._want_semantic and importlib.util.find_spec("wordllama") is not None:
            wordllama = _import_keeping_root_logger("wordllama")
            # the l2_supercat weights and tokenizer ship in the wheel; the package directory is laid out as the
            # loader's cache directory (weights/, tokenizers/), so nothing is ever downloaded
            package = Path(str(wordllama.__file__)).parent
            model = wordllama.WordLlama.load(cache_dir=package, disable_download=True, trunc_dim=self.dim)
            self._embedding = np.ascontiguousarray(model.embedding)
            # a copy of its tokenizer without padding: pooling here reads only each text's own tokens
            self._tokenizer = type(model.tokenizer).from_str(model.tokenizer.to_str())
            self._tokenizer.no_padding()
            self._vocabulary = self._tokenizer.get_vocab()
        if self._want_segmenter and importlib.util.find_spec("jieba") is not None:
            # jieba's own default tokenizer: it loads its dictionary once per process (1.4 s CPU, measured
            # 2026-11-28), where a Tokenizer per ranker paid that again for every gateway; the ranker only reads it
            self._segmenter = importlib.import_module("jieba").dt

    def terms(self, text: str) -> list[str]:
        """The terms BM25 and the heading cue compare."""
        terms, _, vocabulary = self.page_words([text.split()])
        return [vocabulary[i] for i in terms.values.tolist()]

    def embed(self, texts: list[str]) -> np.ndarray | None:
        """Unit vectors of the texts (mean of their WordLlama token vectors), None without wordllama."""
        return self.pooled(self.page_words([text.split() for text in texts])[1], len(texts))

    def page_words(
        self, texts: Sequence[Sequence[str]], text_of: np.ndarray | None = None
    ) -> tuple[Flat, Flat, list[str]]:
        """The texts' terms (positions in the vocabulary returned) and WordLlama token ids (none without
        wordllama), the texts given as their words (split at spaces); `text_of`, when given, numbers the words'
        texts otherwise (one number a word, never decreasing: a text's sentences as texts of their own).

        A word is worked out once and remembered: its terms are those of its WORD runs (no run crosses a space, so
        these are the text's terms), its token ids those the tokenizer gives it after a space ("\u2581word":
        sentencepiece pieces never cross a space, so this is what tokenizing the whole text gives).
        """
        self._load()
        words = list(chain.from_iterable(texts))
        position = {word: i for i, word in enumerate(dict.fromkeys(words))}
        occurrences = np.fromiter(map(position.__getitem__, words), dtype=np.int64, count=len(words))
        if text_of is None:
            text_of = np.repeat(np.arange(len(texts)), [len(text) for text in texts])
        entries = self._entries(list(position))
        vocabulary: dict[str, int] = {}
        term_ids = [vocabulary.setdefault(t, len(vocabulary)) for terms, _ in entries for t in terms]
        terms = spread(occurrences, text_of, [len(terms) for terms, _ in entries], term_ids)
        token_ids = list(chain.from_iterable(ids for _, ids in entries))
        tokens = spread(occurrences, text_of, [len(ids) for _, ids in entries], token_ids)
        return terms, tokens, list(vocabulary)

    def _entries(self, words: list[str]) -> list[tuple[tuple[str, ...], tuple[int, ...]]]:
        """Each word's terms and token ids, from memory or worked out (then remembered)."""
        known = _bounded(self._words)
        missing = [w for w in words if w not in known]
        if missing:
            for word, ids in zip(missing, self._token_ids(missing), strict=True):
                known[word] = (word_terms(word, self._segmenter), ids)
        return [known[w] for w in words]

    def _token_ids(self, words: list[str]) -> list[tuple[int, ...]]:
        """The WordLlama token ids of each word, found in the vocabulary without running the tokenizer (whose BPE
        over a page's few hundred rare words cost more than all the rest of the ranking)."""
        if self._embedding is None:
            return [()] * len(words)
        rows = len(self._embedding)
        vocabulary = self._vocabulary
        return [known_ids(vocabulary, word, rows) or longest_pieces(vocabulary, word, rows) for word in words]

    def pooled(self, tokens: Flat, texts: int, weights: np.ndarray | None = None) -> np.ndarray | None:
        """Unit vectors of `texts` texts given as their token ids: their token vectors summed (each times its
        weight, when given: one per token)."""
        sums = self.summed(tokens, texts, weights)
        return None if sums is None else unit(sums)

    def summed(self, tokens: Flat, texts: int, weights: np.ndarray | None = None) -> np.ndarray | None:
        """The sums of the token vectors of `texts` texts (tokens in text order), each times its weight."""
        if self._embedding is None or not texts:
            return None
        sums = np.zeros((texts, self._embedding.shape[1]), dtype=np.float32)
        gathered, start = self._embedding[tokens.values], 0
        if weights is not None:
            gathered *= weights.astype(np.float32)[:, None]
        for row, length in enumerate(np.bincount(tokens.text_of, minlength=texts).tolist()):
            if length:  # a sum per text: numpy's reduceat is ten times slower over rows
                sums[row] = gathered[start : start + length].sum(axis=0)
            start += length
        return sums

    def index(self, passages: Sequence[Passage], *, title: str = "") -> PageIndex:
        """The page made ready for any number of questions."""
        return PageIndex(self, passages, title)

    def rank(self, passages: Sequence[Passage] | PageIndex, question: str, *, title: str = "") -> list[float]:
        """One score per passage (higher is more relevant); all zero for an empty page or question."""
        return self.scores(passages, question, title=title).passages

    def scores(self, passages: Sequence[Passage] | PageIndex, question: str, *, title: str = "") -> Scores:
        """The passages' scores (as rank gives them) and their sentences' (for trimming, extract/packing.py)."""
        page = passages if isinstance(passages, PageIndex) else self.index(passages, title=title)
        if not page.passages:
            return Scores([], np.zeros(0), page.sentence_of)
        weights = self.weights
        asked_terms, asked_tokens, vocabulary = self.page_words([question.split()])
        sentence_score = np.zeros(len(page.sentence_of))
        score = _lexical(page, [vocabulary[i] for i in asked_terms.values.tolist()], weights, sentence_score)
        asked = self.pooled(asked_tokens, 1, page.idf.of(asked_tokens.values)) if page.vectors is not None else None
        if asked is not None:
            score += _semantic(page, asked[0], weights, sentence_score)
        score[:LEAD_PASSAGES] += weights.lead
        return Scores(_with_neighbours(page.passages, score, weights), sentence_score, page.sentence_of)


def _lexical(page: PageIndex, query: list[str], weights: Weights, sentence_score: np.ndarray) -> np.ndarray:
    """The lexical signals: BM25 of the passage and of its best sentence, and the heading cue (each sentence's
    BM25 added to `sentence_score`)."""
    score = np.zeros(len(page.passages))
    if not query:
        return score
    score += weights.lexical * scaled(page.bm25.scores(query))
    if weights.sentence_lexical:
        best = np.zeros(len(page.passages))
        said = page.sentence_bm25.scores(query)
        np.maximum.at(best, page.sentence_of, said)
        score += weights.sentence_lexical * scaled(best)
        sentence_score += weights.sentence_lexical * scaled(said)
    if weights.heading:
        score += weights.heading * np.array([len(set(query) & h) / len(set(query)) for h in page.heading_terms])
    return score


def _semantic(page: PageIndex, asked: np.ndarray, weights: Weights, sentence_score: np.ndarray) -> np.ndarray:
    """The semantic signals: cosine of the question's vector with the passage's and with its nearest sentence's
    (each sentence's added to `sentence_score`)."""
    assert page.vectors is not None and page.sentence_vectors is not None
    score = weights.semantic * scaled(np.asarray(page.vectors @ asked, dtype=np.float64))
    cosines = np.asarray(page.sentence_vectors @ asked, dtype=np.float64)
    sentence_score += weights.sentence * scaled(cosines)
    if weights.sentence:
        best = np.full(len(page.passages), -1.0)
        np.maximum.at(best, page.sentence_of, cosines)
        score += weights.sentence * scaled(best)
    return score


def _import_keeping_root_logger(name: str) -> Any:
    """Import `name`, then put the root logger's handlers and level back: wordllama calls logging.basicConfig when
    imported, which would send every library's records to stderr in a process that never configured logging."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        return importlib.import_module(name)
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


def _bounded(cache: dict[str, Any]) -> dict[str, Any]:
    """The cache, emptied first when it holds WORD_CACHE entries (pages of any language keep it bounded)."""
    if len(cache) >= WORD_CACHE:
        cache.clear()
    return cache


def _with_neighbours(passages: Sequence[Passage], score: np.ndarray, weights: Weights) -> list[float]:
    """Each score plus a share of its best neighbour's: more from the same block, less from the same section."""
    result = []
    for i, passage in enumerate(passages):
        borrowed = 0.0
        for j in (i - 1, i + 1):
            if 0 <= j < len(passages):
                other = passages[j]
                share = weights.same_block if other.block == passage.block else 0.0
                if not share and other.headings == passage.headings:
                    share = weights.same_section
                borrowed = max(borrowed, share * float(score[j]))
        result.append(float(score[i]) + borrowed)
    return result


def select(scores: Sequence[float], costs: Sequence[int], max_tokens: int) -> list[int]:
    """Positions of the best passages that fit `max_tokens` together, in page order.

    Greedy by score; a passage too large for what is left is passed over for smaller ones further down.
    """
    left = max_tokens
    chosen = []
    for position in sorted(range(len(scores)), key=lambda i: (-scores[i], i)):
        if costs[position] <= left:
            chosen.append(position)
            left -= costs[position]
    return sorted(chosen)
