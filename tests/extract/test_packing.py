"""Packing passages into a budget: trimmed passages keep whole sentences around their best one, the best passage
stays whole, and trimming lets an answer further down the ranking fit where whole passages would not."""

from __future__ import annotations

import numpy as np

from webreach.extract.packing import pack, sentence_spans, trim, trimmed_text
from webreach.extract.page_scores import Scores, sentences
from webreach.extract.passages import Passage, cut
from webreach.extract.question_rank import QuestionRanker, select
from webreach.models import TRIM_MARK


def words_cost(passage: Passage, text: str) -> int:
    return len(text.split()) + 6


def test_sentence_spans_number_sentences_as_the_ranker_does() -> None:
    text = 'It opened in 1937. "Was it red?" Yes; it was.  International orange (1935). Last words without end'
    spans = sentence_spans(text)
    numbered, _ = sentences([text.split()])
    assert len(spans) == int(numbered.max()) + 1 == 6
    for number, (start, end) in enumerate(spans):
        words = [w for w, s in zip(text.split(), numbered.tolist(), strict=True) if s == number]
        assert text[start:end].split() == words
    assert sentence_spans("") == [] and sentence_spans("   ") == []


def test_a_trimmed_passage_is_its_best_sentence_and_better_neighbour_cut_at_sentence_ends() -> None:
    text = "First one here. Second is the answer. Third follows it. Fourth ends."
    passage = Passage(1, text, ("Title",), "text", 0, len(text), 0)
    start, end = trim(passage, np.array([0.1, 0.9, 0.5, 0.0])) or (0, 0)
    assert text[start:end] == "Second is the answer. Third follows it."
    assert trimmed_text(text, start, end) == f"{TRIM_MARK} Second is the answer. Third follows it. {TRIM_MARK}"
    start, end = trim(passage, np.array([0.8, 0.9, 0.5, 0.0])) or (0, 0)
    assert trimmed_text(text, start, end) == f"First one here. Second is the answer. {TRIM_MARK}"
    start, end = trim(passage, np.array([0.0, 0.1, 0.5, 0.9])) or (0, 0)
    assert trimmed_text(text, start, end) == f"{TRIM_MARK} Third follows it. Fourth ends."
    # two sentences, a table or a list are never trimmed
    assert trim(Passage(1, "One. Two.", (), "text", 0, 9, 0), np.array([0.0, 1.0])) is None
    table = "| a |\n|---|\n| b. |\n| c. |\n| d. |"
    assert trim(Passage(1, table, (), "table", 0, len(table), 0), np.zeros(3)) is None


def page() -> list[Passage]:
    filler = " ".join(f"Sentence {n} says something about the town's long history of farming." for n in range(8))
    document = "\n\n".join(
        [
            "# Riverton",
            f"Riverton is a town on the river. {filler}",
            f"The town's history of farming is long. {filler}",
            f"{filler} The old mill was destroyed by a flood in 1887. {filler}",
        ]
    )
    return cut(document, 2000)


def test_trimming_fits_an_answer_that_whole_passages_leave_out() -> None:
    passages = page()
    assert len(passages) == 3
    ranker = QuestionRanker()
    question = "When was the mill destroyed by a flood?"
    scores = ranker.scores(passages, question, title="Riverton")
    costs = [words_cost(p, p.text) for p in passages]
    budget = costs[0] + 40
    whole_only = [passages[i] for i in select(scores.passages, costs, budget)]
    assert not any("1887" in p.text for p in whole_only) or len(whole_only) == 1
    pieces = pack(passages, scores, costs, budget, words_cost)
    assert sum(piece.cost for piece in pieces) <= budget
    shown = {passages[p.position].index: trimmed_text(passages[p.position].text, p.start, p.end) for p in pieces}
    assert any("destroyed by a flood in 1887." in text for text in shown.values())
    for piece in pieces:
        text = passages[piece.position].text
        if piece.trimmed:  # whole sentences: a start after a sentence's end, an end at one
            assert piece.start == 0 or text[: piece.start].rstrip()[-1] in ".!?;"
            assert text[piece.start : piece.end].endswith((".", "!", "?", ";")) or piece.end == len(text)
        else:
            assert (piece.start, piece.end) == (0, len(text))
    assert [p.position for p in pieces] == sorted(p.position for p in pieces)


def test_with_room_the_best_passages_are_whole_and_nothing_is_over_budget() -> None:
    passages = page()
    scores = QuestionRanker().scores(passages, "When was the mill destroyed by a flood?", title="Riverton")
    costs = [words_cost(p, p.text) for p in passages]
    pieces = pack(passages, scores, costs, sum(costs), words_cost)
    assert [(p.trimmed, p.cost) for p in pieces] == [(False, c) for c in costs]
    assert pack(passages, scores, costs, 5, words_cost) == []  # nothing fits: the caller decides
    empty = Scores([], np.zeros(0), np.zeros(0, dtype=np.int64))
    assert pack([], empty, [], 100, words_cost) == []
