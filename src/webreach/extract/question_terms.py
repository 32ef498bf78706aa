"""How a question ranker (extract/question_rank.py) reads words: their terms (stop words dropped, Latin words
stemmed, CJK runs cut) and their WordLlama token ids, found in its vocabulary without running its tokenizer."""

from __future__ import annotations

import re
from typing import Any

WORD = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+|[^\W_]+")
# a word and its trailing punctuation ("bridge," "1937).")
TRAILING_PUNCTUATION = re.compile(r"(.*?[^\W_])([^\w\s]+)")
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
STOP_WORDS_TEXT = (
    "a about above after again against all am an and any are as at be because been before being below between "
    "both but by can could did do does doing down during each few for from further had has have having he her "
    "here hers him his how i if in into is it its itself just me more most my no nor not now of off on once only "
    "or other our ours out over own same she should so some such than that the their theirs them then there these "
    "they this those through to too under until up very was we were what when where which while who whom whose "
    "why will with would you your yours also many much one two name named called type kind"
)
# Chinese function and question words (jieba's and the pairs' terms are checked against them too)
CJK_STOP_WORDS = "的 了 是 在 和 与 吗 呢 吧 啊 怎么 怎样 什么 哪里 哪个 哪些 为什么 多少 如何 谁 有 也 就 都 及 或"
STOP_WORDS = frozenset(STOP_WORDS_TEXT.split() + CJK_STOP_WORDS.split())
LONGEST_PIECE = 16  # characters in WordLlama's longest vocabulary pieces looked for


def word_terms(word: str, segmenter: Any) -> tuple[str, ...]:
    """A word's terms: its WORD runs lower-cased, stop words dropped, Latin ones stemmed, CJK ones cut by jieba's
    `segmenter` (None: into overlapping character pairs)."""
    found: list[str] = []
    for run in WORD.findall(word.lower()):
        if CJK.match(run):
            found.extend(term for term in _cjk_terms(run, segmenter) if term not in STOP_WORDS)
        elif run not in STOP_WORDS:
            found.append(stem(run))
    return tuple(found)


def _cjk_terms(run: str, segmenter: Any) -> list[str]:
    if segmenter is not None:
        return [w for w in segmenter.lcut_for_search(run) if w.strip()]
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def known_ids(vocabulary: dict[str, int], word: str, rows: int) -> tuple[int, ...] | None:
    """What the tokenizer gives a word that is one token, or one token and its trailing punctuation
    ("bridge," is "\u2581bridge" ","; the same as the tokenizer's on 3,208 such words of 20 articles)."""
    single = vocabulary.get("\u2581" + word, rows)
    if single < rows:
        return (single,)
    tail = TRAILING_PUNCTUATION.fullmatch(word)
    if tail is not None:
        core, punctuation = vocabulary.get("\u2581" + tail[1], rows), vocabulary.get(tail[2], rows)
        if core < rows and punctuation < rows:
            return (core, punctuation)
    return None


def longest_pieces(vocabulary: dict[str, int], word: str, rows: int) -> tuple[int, ...]:
    """A rare word's pieces, the longest vocabulary match first from its start ("\u2581" + word); a character
    no piece starts with is skipped. Near what WordLlama's BPE gives ("\u2581Kath" "man" "du" where BPE gives
    "\u2581Kath" "m" "and" "u"; the same for "state-of-the-art"), at a tenth of its cost."""
    ids: list[int] = []
    start, text = 0, "\u2581" + word
    while start < len(text):
        end = min(len(text), start + LONGEST_PIECE)
        while end > start and vocabulary.get(text[start:end], rows) >= rows:
            end -= 1
        if end > start:
            ids.append(vocabulary[text[start:end]])
        start = max(end, start + 1)
    return tuple(ids)


def stem(word: str) -> str:
    """A light English stem: plurals and -ing/-ed endings folded (enough for BM25 to meet 'built' and 'build')."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed"):
        return word[:-2]
    return word
