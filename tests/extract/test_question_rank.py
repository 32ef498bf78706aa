"""Ranking passages for a question: SQuAD questions find their answers within a small budget, the lexical
fallback works without the embeddings, Chinese questions meet Chinese text, and selection keeps budget and order.

The SQuAD questions are from ../shared/data/qa/squad-train (the tests skip without it): five questions spread
evenly over each of three articles (every n-th in file order), checked on the passage that holds the gold
answer's span.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import bm25s
import numpy as np
import pytest

from webreach.extract.page_scores import sentences
from webreach.extract.passages import cut
from webreach.extract.question_rank import Bm25, Flat, QuestionRanker, TokenIdf, Weights, select
from webreach.extract.question_terms import known_ids, stem
from webreach.read.window import load_tokenizer

SQUAD = Path(__file__).resolve().parents[3] / "shared" / "data" / "qa" / "squad-train"
ARTICLES = ("squad11-train-University_of_Notre_Dame", "squad11-train-Beyoncé", "squad11-train-2008_Sichuan_earthquake")
QUESTIONS_EACH = 5


def squad() -> list[tuple[str, str, list[tuple[str, int, int]]]]:
    """(title, text, [(question, answer start, answer end)]) of the chosen articles."""
    if not SQUAD.is_dir():
        pytest.skip(f"SQuAD train not found at {SQUAD}")
    documents = {}
    with gzip.open(SQUAD / "documents.jsonl.gz", "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            if row["doc_id"] in ARTICLES:
                documents[row["doc_id"]] = (row["title"], row["text"], [])
    with gzip.open(SQUAD / "questions.jsonl.gz", "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            if row["doc_id"] in documents:
                span = row["answer_spans"][0]
                start = span["start_in_text"]
                documents[row["doc_id"]][2].append((row["question"], start, start + len(span["text"])))
    assert len(documents) == len(ARTICLES)
    spread = []
    for title, text, questions in documents.values():
        step = len(questions) // QUESTIONS_EACH
        spread.append((title, text, questions[step // 2 :: step][:QUESTIONS_EACH]))
    return spread


@pytest.mark.slow  # a subprocess or a heavy model: a cheaper sibling covers the rule in the fast loop
@pytest.mark.parametrize("semantic", [True, False], ids=["with-embeddings", "lexical-only"])
def test_squad_questions_find_their_answer_within_500_tokens(semantic: bool) -> None:
    ranker = QuestionRanker(semantic=semantic)
    if semantic and not ranker.semantic:
        pytest.skip("wordllama is not installed (the `question` extra)")
    tokenizer = load_tokenizer()
    found, asked = 0, 0
    for title, text, questions in squad():
        passages = cut(text)
        costs = [tokenizer.count(p.text) for p in passages]
        index = ranker.index(passages, title=title)
        for question, start, end in questions:
            chosen = [passages[i] for i in select(ranker.rank(index, question), costs, 500)]
            asked += 1
            found += any(p.start <= start and end <= p.end for p in chosen)
            assert sum(tokenizer.count(p.text) for p in chosen) <= 500
            assert [p.index for p in chosen] == sorted(p.index for p in chosen)
    # the page is ~6,000-11,000 tokens: 500 is under a tenth of it, and most answers are in it
    assert found >= asked - 2, f"{found} of {asked}"  # 0.93 on the benchmark's sample


@pytest.mark.slow  # a subprocess or a heavy model: a cheaper sibling covers the rule in the fast loop
def test_a_second_question_reuses_the_index_and_scores_stay_deterministic() -> None:
    title, text, questions = squad()[0]
    ranker = QuestionRanker()
    index = ranker.index(cut(text), title=title)
    first = ranker.rank(index, questions[0][0])
    assert ranker.rank(index, questions[0][0]) == first
    assert ranker.rank(cut(text), questions[0][0], title=title) == first
    assert ranker.rank(index, questions[1][0]) != first


@pytest.mark.slow  # a second or more (measured 2026-11-28): the full suite runs it
def test_chinese_questions_meet_chinese_passages_with_or_without_jieba() -> None:
    document = (
        "## 历史\n\n故宫始建于明朝永乐四年，也就是公元1406年，历时十四年建成。\n\n"
        "## 交通\n\n游客可以乘坐地铁一号线到天安门东站，然后步行前往午门入口。\n\n"
        "## 门票\n\n旺季门票价格为六十元，淡季为四十元，学生可以享受半价优惠。\n"
    )
    passages = cut(document)
    for segmenter in (True, False):
        ranker = QuestionRanker(semantic=False, segmenter=segmenter)
        scores = ranker.rank(passages, "故宫的门票多少钱？")
        assert max(range(len(scores)), key=lambda i: scores[i]) == 2, (segmenter, scores)
        scores = ranker.rank(passages, "乘坐哪条地铁线路")
        assert max(range(len(scores)), key=lambda i: scores[i]) == 1, (segmenter, scores)


def test_a_heading_that_matches_the_question_lifts_its_passages() -> None:
    document = (
        "# Guide\n\n## Installation\n\nRun the installer and follow the prompts on screen.\n\n"
        "## Usage\n\nStart the program from the menu and open a file to begin.\n"
    )
    scores = QuestionRanker(semantic=False).rank(cut(document), "installation steps")
    assert scores[0] > scores[1]


def test_select_keeps_the_budget_passes_over_large_passages_and_returns_page_order() -> None:
    scores = [0.1, 0.9, 0.5, 0.8, 0.0]
    costs = [100, 300, 50, 400, 10]
    assert select(scores, costs, 500) == [0, 1, 2, 4]  # 3 (400) does not fit after 1; smaller ones still do
    assert select(scores, costs, 5) == []
    assert select([], [], 100) == []


def test_empty_questions_and_pages() -> None:
    ranker = QuestionRanker(semantic=False)
    assert ranker.rank([], "anything") == []
    # a question of stop words only matches nothing: what is left is the lead prior (the first two passages)
    three = cut("One paragraph here.\n\n## Two\n\nAnother one.\n\n## Three\n\nA third one.")
    lead = ranker.weights.lead
    assert len(three) == 3 and ranker.rank(three, "the of and") == pytest.approx([lead, lead, 0.0])
    assert [stem(w) for w in ("bridges", "built", "building", "cities", "glass", "status")] == [
        "bridge", "built", "build", "city", "glass", "status",
    ]  # fmt: skip


@pytest.mark.slow  # a subprocess or a heavy model: a cheaper sibling covers the rule in the fast loop
def test_page_bm25_scores_as_bm25s_does() -> None:
    """The page's own BM25 (built without bm25s's index, for speed) gives bm25s's scores: Lucene's idf, k1 1.5,
    b 0.75, a repeated query term counted again, a term the page lacks adding nothing."""
    title, text, questions = squad()[1]
    ranker = QuestionRanker(semantic=False)
    documents = [ranker.terms(" ".join((title, *p.headings, p.text))) or ["x"] for p in cut(text)]
    reference = bm25s.BM25()
    reference.index(documents, show_progress=False)
    for question, _, _ in questions:
        query = ranker.terms(question)
        query += query[:1]  # repeated
        expected = reference.get_scores([t for t in query if t in reference.vocab_dict])
        got = Bm25(documents).scores([*query, "zzunseen"])
        assert got == pytest.approx(np.asarray(expected, dtype=np.float64), rel=1e-5, abs=1e-6)
    assert Bm25([]).scores(["bridge"]).tolist() == []


@pytest.mark.slow  # a second or more (measured 2026-11-28): the full suite runs it
def test_page_index_holds_each_passages_own_terms() -> None:
    """A page's index (words looked up once per distinct word, spread over their occurrences with numpy) scores
    as BM25 over each passage's own terms does, title and heading path folded in, on a page with headings."""
    ranker = QuestionRanker(semantic=False)
    text = "# Bridges\n\n## Golden Gate\n\nThe bridge, opened in 1937, spans the strait.\n\n" + squad()[0][1]
    passages = cut(text)
    documents = [ranker.terms(" ".join(("Some title", *p.headings, p.text))) for p in passages]
    index = ranker.index(passages, title="Some title")
    for question in ("When did the bridge open?", "golden gate strait", "What is the university's motto?"):
        query = ranker.terms(question)
        assert index.bm25.scores(query) == pytest.approx(Bm25(documents).scores(query), rel=1e-9, abs=1e-12)
    assert ranker.terms("Bridges, (1937) opened!") == ["bridge", "1937", "open"]


@pytest.mark.slow  # a subprocess or a heavy model: a cheaper sibling covers the rule in the fast loop
def test_embeddings_follow_the_tokenizer_without_running_it() -> None:
    """WordLlama's pieces never cross a space, so a text is embedded word by word, each word's pieces found in the
    vocabulary: a word of one piece, or one piece and its trailing punctuation, gets exactly the tokenizer's pieces;
    a rare word gets the longest vocabulary matches (near BPE's, not equal: this article's Chinese names and
    numbers are rare words). Each passage's vector stays near the one from tokenizing the whole text, the second
    time from the remembered words too (ranking quality: bench/question_reading.py, docs/decisions.md)."""
    ranker = QuestionRanker()
    if not ranker.semantic:
        pytest.skip("wordllama is not installed (the `question` extra)")
    _, text, _ = squad()[2]
    texts = [" ".join(p.text.split()) for p in cut(text)[:40]]  # punctuation included, single spaces
    tokenizer, table = ranker._tokenizer, ranker._embedding  # the model's own parts, to compute the reference
    words = list(dict.fromkeys(" ".join(texts).split()))
    exact = [w for w in words if known_ids(ranker._vocabulary, w, len(table)) is not None]
    assert len(exact) > len(words) / 2
    for word, ids in zip(exact, ranker._token_ids(exact), strict=True):
        assert list(ids) == tokenizer.encode(word, add_special_tokens=False).ids, word
    reference = np.stack([table[tokenizer.encode(t, add_special_tokens=False).ids].sum(axis=0) for t in texts])
    reference /= np.linalg.norm(reference, axis=1, keepdims=True)
    for _ in range(2):  # the second time from the remembered words
        vectors = ranker.embed(texts)
        assert vectors is not None and vectors.shape == reference.shape
        cosines = (vectors * reference).sum(axis=1)
        assert cosines.min() > 0.7 and float(np.median(cosines)) > 0.9  # measured: 0.79 and 0.93 on this page
    assert QuestionRanker(semantic=False).embed(texts) is None


def test_token_weights_fall_with_how_many_passages_hold_the_token() -> None:
    """A token in every passage weighs least, one in a single passage more (counted once however often it is
    there), one the page lacks most; the order of the ids asked does not matter."""
    # passage 0: tokens 7 7 5; passage 1: 7 9; passage 2: 7
    idf = TokenIdf(Flat(np.array([7, 7, 5, 7, 9, 7]), np.array([0, 0, 0, 1, 1, 2])), 3)
    everywhere, once, once_too, absent = idf.of(np.array([7, 5, 9, 1000])).tolist()
    assert everywhere < once == once_too < absent
    assert once == pytest.approx(np.sqrt(np.log(4 / 1.5))) and absent == pytest.approx(np.sqrt(np.log(8)))
    assert idf.of(np.array([1000, 7])).tolist() == [absent, everywhere]
    assert TokenIdf(Flat(np.array([], dtype=np.int64), np.array([], dtype=np.int64)), 0).of(np.array([3])).size == 1


def test_one_answering_sentence_in_a_long_passage_outranks_a_passage_that_only_names_the_subject() -> None:
    # the answer is the last of eight sentences about something else; the short passage shares only the subject
    filler = " ".join(
        f"The harbour district has {n} warehouses along the canal and a market on the square." for n in range(2, 9)
    )
    document = (
        f"# Port city\n\n## Harbour\n\n{filler} The lighthouse was built in 1843 by the engineer Anna Berg.\n\n"
        "## Old town\n\nKeepers of the lighthouse lived in the old town, where tours of the harbour start in summer "
        "near the museum of the town.\n\n## Trade\n\nTrade in grain and timber made the merchants rich during the "
        "eighteenth century.\n"
    )
    passages = cut(document)
    assert [p.headings[-1] for p in passages] == ["Harbour", "Old town", "Trade"]
    question = "When was the lighthouse constructed, and who designed it?"
    ranker = QuestionRanker()
    if not ranker.semantic:
        pytest.skip("wordllama is not installed (the `question` extra)")
    whole = QuestionRanker(Weights(sentence=0, sentence_lexical=0)).rank(passages, question, title="Port city")
    scores = ranker.rank(passages, question, title="Port city")
    assert whole[0] < whole[1], "passages scored whole: the answer is diluted by its seven other sentences"
    assert scores[0] > scores[1] > scores[2]


def test_sentences_end_at_sentence_punctuation_and_with_their_text() -> None:
    texts = [
        ["It", "was", "built", "in", "1937.", "Who", "paid?", "The", "city", "(mostly)."],
        [],
        ["总之。很好", "是"],
    ]
    sentence_of_word, text_of_sentence = sentences(texts)
    assert sentence_of_word.tolist() == [0, 0, 0, 0, 0, 1, 1, 2, 2, 2, 3, 4]  # "。" ends a sentence in a word
    assert text_of_sentence.tolist() == [0, 0, 0, 2, 2]
    assert [len(s) for s in sentences([[], []])] == [0, 0]
