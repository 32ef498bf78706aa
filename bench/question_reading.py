"""Benchmark: reading a page for a question (extract/passages.py + extract/question_rank.py) against two baselines.

Run: python -m bench.question_reading [--quick | --per-doc N] [--half tuning] [--weights JSON].
Data: ../shared/data/qa/squad-train (SQuAD v1.1 train, 442 Wikipedia articles as whole documents; PROVENANCE.md).
The articles are split in two halves by the first 8 hex digits of sha256(doc_id): even is "tuning" (weights,
scaling and passage size were chosen there), odd is "check" (only reported). The sample is bounded: from every
article, the N questions (default 3; --quick 1) with the smallest sha256(id), so a run covers ~1,300 questions
(--quick 442, under a minute) and takes a few minutes on a shared, loaded machine. Both halves are printed.

For every question and budget (250/500/1,000/2,000 o200k tokens) these readers return text:
  - ours: the article cut into passages, ranked for the question, the best that fit chosen in page order;
  - ours-packed: the same ranking packed as web_fetch packs it (extract/packing.py: the best passages whole, the
    next trimmed to their best sentences; each piece also pays its label's 6 tokens, which `ours` does not);
  - ours-lexical: ours without the semantic signals;
  - first-N: the article's first N tokens (what a windowed read returns);
  - bm25-paragraphs: plain BM25 (bm25s, its own tokenizer with English stop words) over the article's
    paragraphs, the best that fit.
Measures: strict recall (a gold answer's character span lies inside the returned text's ranges), loose recall (a
gold answer string appears in the returned text), mean tokens returned, the median share of the page's tokens
returned at 500, and time: ranking per question, cutting per page, and on ~5,000-word articles (4,500-5,500
words) cut + rank against extracting the article's HTML in the same run. Reported on the whole sample and on the
low-overlap slice (question_passage_overlap <= 0.5). Writes bench/results/question_reading.json.

Results: docs/decisions.md, the latest section on issue 40 (full tables, both halves, every budget, both
baselines, time per page). Last full run (5 an article, 2026-11-29), strict@500 on the check half, as web_fetch
packs it (ours-packed): 0.948 all (target 0.93), 0.860 low-overlap (target 0.85); whole passages 0.937 / 0.826;
plain BM25 0.879 / 0.676; median share of the page 8.1%; ranking 19-24 ms CPU p50 on a fresh ranker per
~5,000-word page, by load, packing 1.6 ms more.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bm25s

from webreach.extract.cascade import extract
from webreach.extract.packing import WHOLE_SHARE, Piece, pack, trimmed_text
from webreach.extract.passages import PASSAGE_CHARS, Passage, cut
from webreach.extract.question_rank import QuestionRanker, Weights, select
from webreach.read.window import O200kTokenizer

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "qa" / "squad-train"
RESULTS = Path(__file__).parent / "results"
BUDGETS = (250, 500, 1000, 2000)
LOW_OVERLAP = 0.5
READERS = ("ours", "ours-packed", "ours-lexical", "first-n", "bm25-paragraphs")
LABEL_TOKENS = 6  # a packed piece pays its anchor label ([3§12] and the line break), as read/question_read.py counts it
Span = tuple[int, int]


@dataclass
class Question:
    text: str
    answers: list[str]
    spans: list[Span]
    overlap: float


@dataclass
class Article:
    doc_id: str
    title: str
    text: str
    html: str
    questions: list[Question] = field(default_factory=list)


def half(doc_id: str) -> str:
    return "tuning" if int(hashlib.sha256(doc_id.encode()).hexdigest()[:8], 16) % 2 == 0 else "check"


def load(per_doc: int) -> list[Article]:
    """The articles with their sampled questions."""
    articles: dict[str, Article] = {}
    with gzip.open(DATA / "documents.jsonl.gz", "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            articles[row["doc_id"]] = Article(row["doc_id"], row["title"], row["text"], row["html"])
    chosen: dict[str, list[tuple[str, Question]]] = {}
    with gzip.open(DATA / "questions.jsonl.gz", "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            spans = [(s["start_in_text"], s["start_in_text"] + len(s["text"])) for s in row["answer_spans"]]
            key = hashlib.sha256(row["id"].encode()).hexdigest()
            question = Question(row["question"], row["answers"], spans, row["question_passage_overlap"])
            chosen.setdefault(row["doc_id"], []).append((key, question))
    for doc_id, rows in chosen.items():
        articles[doc_id].questions = [q for _, q in sorted(rows, key=lambda r: r[0])[:per_doc]]
    return list(articles.values())


@dataclass
class Reading:
    """What one reader returned for one question at one budget."""

    ranges: list[Span]
    text: str
    tokens: int


def covers(ranges: list[Span], spans: list[Span]) -> bool:
    return any(start <= a and b <= end for a, b in spans for start, end in ranges)


class Readers:
    """The three readers over one article (cut, token counts and indexes made once per article)."""

    def __init__(
        self,
        article: Article,
        tokenizer: O200kTokenizer,
        rankers: dict[str, QuestionRanker],
        passage_chars: int,
        whole: float = WHOLE_SHARE,
    ) -> None:
        self.article, self.tokenizer, self.rankers, self.whole = article, tokenizer, rankers, whole
        started = time.perf_counter()
        self.passages: list[Passage] = cut(article.text, passage_chars)
        self.cut_ms = (time.perf_counter() - started) * 1000
        self.costs = [tokenizer.count(p.text) for p in self.passages]
        self.page_tokens = tokenizer.count(article.text)
        offset, self.paragraphs = 0, []
        for paragraph in article.text.split("\n\n"):
            self.paragraphs.append((offset, offset + len(paragraph)))
            offset += len(paragraph) + 2
        texts = [article.text[a:b] for a, b in self.paragraphs]
        self.paragraph_costs = [tokenizer.count(t) for t in texts]
        self.bm25 = bm25s.BM25()
        self.bm25.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
        self.rank_ms: dict[str, float] = {}
        self.first_ends = {b: self._first_end(b) for b in BUDGETS}

    def _first_end(self, budget: int) -> int:
        """The end of the page's first `budget` tokens (the tokenizer's fit: one encoding of the page)."""
        return self.tokenizer.fit(self.article.text, budget)

    def read(self, question: Question) -> dict[str, dict[int, Reading]]:
        found: dict[str, dict[int, Reading]] = {}
        for name, ranker in self.rankers.items():
            started = time.perf_counter()
            scored = ranker.scores(self.passages, question.text, title=self.article.title)
            self.rank_ms[name] = (time.perf_counter() - started) * 1000
            found[name] = {b: self._chosen(select(scored.passages, self.costs, b)) for b in BUDGETS}
            if name == "ours":
                costs = [c + LABEL_TOKENS for c in self.costs]
                found["ours-packed"] = {
                    b: self._pieces(pack(self.passages, scored, costs, b, self._piece_cost, whole_share=self.whole))
                    for b in BUDGETS
                }
        found["first-n"] = {b: self._first(b) for b in BUDGETS}
        query = bm25s.tokenize([question.text], stopwords="en", show_progress=False)
        vocab = {i: w for w, i in query.vocab.items()}
        scores = self.bm25.get_scores([vocab[i] for i in query.ids[0]]).tolist()
        found["bm25-paragraphs"] = {b: self._paragraphs(select(scores, self.paragraph_costs, b)) for b in BUDGETS}
        return found

    def _chosen(self, positions: list[int]) -> Reading:
        chosen = [self.passages[i] for i in positions]
        text = "\n\n".join(p.text for p in chosen)
        return Reading([(p.start, p.end) for p in chosen], text, sum(self.costs[i] for i in positions))

    def _piece_cost(self, passage: Passage, text: str) -> int:
        return self.tokenizer.count(text) + LABEL_TOKENS

    def _pieces(self, pieces: list[Piece]) -> Reading:
        ranges, texts, tokens = [], [], 0
        for piece in pieces:
            passage = self.passages[piece.position]
            shown = passage.text[piece.start : piece.end]
            at = self.article.text.find(shown, passage.start)
            ranges.append((at, at + len(shown)) if at >= 0 else (passage.start, passage.start))
            text = trimmed_text(passage.text, piece.start, piece.end)
            texts.append(text)
            tokens += self.tokenizer.count(text) + LABEL_TOKENS
        return Reading(ranges, "\n\n".join(texts), tokens)

    def _first(self, budget: int) -> Reading:
        end = self.first_ends[budget]
        return Reading([(0, end)], self.article.text[:end], min(budget, self.page_tokens))

    def _paragraphs(self, positions: list[int]) -> Reading:
        ranges = [self.paragraphs[i] for i in positions]
        text = "\n\n".join(self.article.text[a:b] for a, b in ranges)
        return Reading(ranges, text, sum(self.paragraph_costs[i] for i in positions))


def rows(
    articles: list[Article],
    rankers: dict[str, QuestionRanker],
    passage_chars: int = PASSAGE_CHARS,
    whole: float = WHOLE_SHARE,
) -> Iterator[dict[str, Any]]:
    """One row per (question, reader, budget)."""
    tokenizer = O200kTokenizer()
    for article in articles:
        readers = Readers(article, tokenizer, rankers, passage_chars, whole)
        for question in article.questions:
            found = readers.read(question)
            for name, by_budget in found.items():
                for budget, reading in by_budget.items():
                    yield {
                        "half": half(article.doc_id), "reader": name, "budget": budget,
                        "low": question.overlap <= LOW_OVERLAP, "strict": covers(reading.ranges, question.spans),
                        "loose": any(a in reading.text for a in question.answers), "tokens": reading.tokens,
                        "share": reading.tokens / max(readers.page_tokens, 1),
                        "rank_ms": readers.rank_ms.get(name), "cut_ms": readers.cut_ms,
                    }  # fmt: skip


def summarize(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    table = []
    for part in ("tuning", "check"):
        for slice_name in ("all", "low-overlap"):
            for reader in READERS:
                for budget in BUDGETS:
                    chosen = [
                        r for r in results
                        if r["half"] == part and r["reader"] == reader and r["budget"] == budget
                        and (slice_name == "all" or r["low"])
                    ]  # fmt: skip
                    if not chosen:
                        continue
                    table.append({
                        "half": part, "slice": slice_name, "reader": reader, "budget": budget, "questions": len(chosen),
                        "strict": round(sum(r["strict"] for r in chosen) / len(chosen), 3),
                        "loose": round(sum(r["loose"] for r in chosen) / len(chosen), 3),
                        "tokens": round(statistics.mean(r["tokens"] for r in chosen)),
                        "median_share": round(statistics.median(r["share"] for r in chosen), 3),
                    })  # fmt: skip
    return table


def timing(articles: list[Article], ranker: QuestionRanker) -> dict[str, float]:
    """Cut + rank against extraction on the ~5,000-word articles (4,500-5,500 words), in the same run.

    A new ranker (loaded, no word remembered) reads the pages in turn, remembering words as a server would; the
    ranker that ranked the sample had met these very pages. `first_page_cpu_ms` is its first page; `rank_cpu_ms`
    is the ranking alone (index and question), `added` adds cutting, the o200k counts and the selection.
    """
    tokenizer = O200kTokenizer()
    added, added_cpu, ranked_cpu, extracting = [], [], [], []
    pages = [a for a in articles if 4500 <= len(a.text.split()) <= 5500 and a.questions]
    fresh = QuestionRanker(ranker.weights)
    fresh.rank(cut("warm up."), "warm up")
    cpu = time.process_time()
    if pages:
        fresh.rank(cut(pages[0].text), pages[0].questions[0].text, title=pages[0].title)
    first_page_cpu = (time.process_time() - cpu) * 1000
    for article in pages[1:]:
        started = time.perf_counter()
        extract(article.html.encode(), content_type="text/html", url="https://en.wikipedia.org/", format="markdown")
        extracting.append((time.perf_counter() - started) * 1000)
        started, cpu = time.perf_counter(), time.process_time()
        passages = cut(article.text)
        costs = [tokenizer.count(p.text) for p in passages]
        ranking = time.process_time()
        scores = fresh.rank(passages, article.questions[0].text, title=article.title)
        ranked_cpu.append((time.process_time() - ranking) * 1000)
        select(scores, costs, 500)
        added.append((time.perf_counter() - started) * 1000)
        added_cpu.append((time.process_time() - cpu) * 1000)  # every thread of the process (tokenizers' too)
    p50_added, p50_extract = statistics.median(added), statistics.median(extracting)
    return {
        "pages": len(added), "added_ms_p50": round(p50_added, 2), "added_ms_p90": round(_p90(added), 2),
        "added_cpu_ms_p50": round(statistics.median(added_cpu), 2),
        "rank_cpu_ms_p50": round(statistics.median(ranked_cpu), 2), "first_page_cpu_ms": round(first_page_cpu, 2),
        "extract_ms_p50": round(p50_extract, 2), "ratio_p50": round(p50_added / p50_extract, 3),
    }  # fmt: skip


def _p90(values: list[float]) -> float:
    return sorted(values)[int(0.9 * (len(values) - 1))]


def print_table(table: list[dict[str, Any]]) -> None:
    print("| half | slice | reader | " + " | ".join(f"strict@{b}" for b in BUDGETS) + " | loose@500 | tokens@500 |")
    print("|---" * (5 + len(BUDGETS)) + "|")
    keyed = {(r["half"], r["slice"], r["reader"], r["budget"]): r for r in table}
    for part in ("tuning", "check"):
        for slice_name in ("all", "low-overlap"):
            for reader in READERS:
                if (part, slice_name, reader, 500) not in keyed:
                    continue
                cells = [f"{keyed[(part, slice_name, reader, b)]['strict']:.3f}" for b in BUDGETS]
                at500 = keyed[(part, slice_name, reader, 500)]
                n = at500["questions"]
                print(f"| {part} | {slice_name} (n={n}) | {reader} | " + " | ".join(cells)
                      + f" | {at500['loose']:.3f} | {at500['tokens']} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-doc", type=int, default=3, help="questions sampled from each article")
    parser.add_argument("--quick", action="store_true", help="one question per article (442, under a minute)")
    parser.add_argument("--half", choices=("tuning", "check", "both"), default="both")
    parser.add_argument("--weights", default="{}", help="JSON of Weights fields to try (tuning)")
    parser.add_argument("--dim", type=int, default=256, help="WordLlama dimensions (64, 128 or 256)")
    parser.add_argument("--passage-chars", type=int, default=PASSAGE_CHARS, help="passage size (tuning)")
    parser.add_argument("--whole", type=float, default=WHOLE_SHARE, help="budget share shown whole (ours-packed)")
    parser.add_argument("--no-timing", action="store_true", help="leave out the time per ~5,000-word page")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    per_doc = 1 if args.quick else args.per_doc
    articles = [a for a in load(per_doc) if args.half == "both" or half(a.doc_id) == args.half]
    weights = Weights(**json.loads(args.weights))
    rankers = {"ours": QuestionRanker(weights, dim=args.dim), "ours-lexical": QuestionRanker(weights, semantic=False)}
    rankers["ours"].rank(cut("warm up."), "warm up")  # loading the embeddings is not a per-question cost
    started = time.perf_counter()
    results = list(rows(articles, rankers, args.passage_chars, args.whole))
    table = summarize(results)
    print_table(table)
    ours = [r for r in results if r["reader"] == "ours" and r["budget"] == 500]
    speed = {
        "rank_ms_p50": round(statistics.median(r["rank_ms"] for r in ours), 2),
        "rank_ms_p90": round(_p90([r["rank_ms"] for r in ours]), 2),
        "cut_ms_p50": round(statistics.median(r["cut_ms"] for r in ours), 2),
        **({} if args.no_timing else timing(articles, rankers["ours"])),
    }
    print(json.dumps(speed), f"run {time.perf_counter() - started:.0f} s")
    if not args.no_write:
        RESULTS.mkdir(exist_ok=True)
        document = {"per_doc": per_doc, "weights": weights.__dict__, "passage_chars": args.passage_chars,
                    "speed": speed, "table": table}  # fmt: skip
        (RESULTS / "question_reading.json").write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
