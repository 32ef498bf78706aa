"""Reading a page for a question, or by passage: the Page a ReadRequest with `question` or `passage` gets.

The extracted document is cut into passages (extract/passages.py) once and kept beside the cached document
(read/page_cache.py), with each passage's token cost and, after the first question, the ranking index; a second
question or a passage read then costs neither a request nor an extraction nor a cut. Cutting is deterministic, so
passage n of the same document is the same text every time.

- question: the passages ranked for it (extract/question_rank.py) and packed into `max_tokens` (default
  QUESTION_MAX_TOKENS) in page order (extract/packing.py): the best whole, the next trimmed to their best sentences
  (PagePassage.trimmed; passage=n still reads one whole). A piece's cost is its text's tokens plus its label's (the
  anchor and the heading path the renderers print before it). When nothing fits, the best passage comes alone,
  whole and over budget, rather than nothing.
- passage: passage n, and the ones after it while they fit `max_tokens` (only passage n when none is given).
Ranking and cutting are CPU work: they run in a worker thread (the ranker loads its optional parts once, under a
lock; the rest is per page).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from webreach.errors import InvalidInputError, UnknownPassageError
from webreach.extract.packing import Piece, pack, trimmed_text
from webreach.extract.passages import Passage, cut
from webreach.extract.question_rank import PageIndex, QuestionRanker
from webreach.models import QUESTION_MAX_TOKENS, Page, PagePassage, ReadRequest
from webreach.read.page_cache import PageCache
from webreach.read.readers import ReadResult
from webreach.read.window import Tokenizer

LABEL_TOKENS = 6  # "[12§345] " and the line break after the heading path


@dataclass
class ReadyPage:
    """A document's passages with their costs; its ranking index once a question was asked."""

    passages: list[Passage]
    costs: list[int]
    total_tokens: int  # every passage with its label: what reading them all would cost
    index: PageIndex | None = field(default=None)


class QuestionReading:
    """Pages read for a question or by passage, over one Reading's cache and tokenizer."""

    def __init__(self, cache: PageCache, tokenizer: Callable[[], Tokenizer], ranker: QuestionRanker | None = None):
        self.cache = cache
        self._tokenizer = tokenizer
        self._ranker = ranker or QuestionRanker()

    async def page(self, result: ReadResult, request: ReadRequest, url: str, key: str, *, cached: bool) -> Page:
        """The Page of passages `request` asks for, from `result` (the document read or cached under `key`)."""
        if request.question is not None and request.passage is not None:
            raise InvalidInputError(
                "give a question or a passage, not both",
                hint="A question finds the relevant passages; passage=n reads passage n (and on, with max_tokens).",
            )
        if request.format not in ("markdown", "text"):
            raise InvalidInputError(
                f"passages are read from markdown or text, not {request.format}", hint="Use format='markdown'."
            )
        return await asyncio.to_thread(self._page, result, request, url, key, cached)

    def _page(self, result: ReadResult, request: ReadRequest, url: str, key: str, cached: bool) -> Page:
        # two calls on one new page may both prepare it (the last one is kept): the same passages either way
        ready = self._ready(result, key, need_index=request.question is not None)
        if request.question is not None:
            assert ready.index is not None
            scores = self._ranker.scores(ready.index, request.question)
            budget = request.max_tokens or QUESTION_MAX_TOKENS
            pieces = pack(ready.passages, scores, ready.costs, budget, self._cost) or [_best(ready, scores.passages)]
        else:
            assert request.passage is not None
            pieces = [_whole(ready, i) for i in following(ready, request.passage, request.max_tokens)]
        estimated = self._tokenizer().estimated
        return _as_page(result, request, url, ready, pieces, cached=cached, estimated=estimated)

    def _cost(self, passage: Passage, text: str) -> int:
        """What showing `text` of the passage costs: its tokens and its label's."""
        tokenizer = self._tokenizer()
        return tokenizer.count(text) + tokenizer.count(" > ".join(passage.headings)) + LABEL_TOKENS

    def _ready(self, result: ReadResult, key: str, *, need_index: bool) -> ReadyPage:
        ready = self.cache.derived(key, result)
        if not isinstance(ready, ReadyPage):
            passages = cut(result.extracted.text) or [Passage(1, "", (), "text", 0, 0, 0)]
            costs = [self._cost(p, p.text) for p in passages]
            ready = ReadyPage(passages, costs, sum(costs))
            self.cache.keep_derived(key, result, ready)
        if need_index and ready.index is None:
            ready.index = self._ranker.index(ready.passages, title=result.extracted.title or "")
        return ready


def following(ready: ReadyPage, passage: int, max_tokens: int | None) -> list[int]:
    """Positions of passage `passage` and, with a budget, the ones after it that fit (UnknownPassageError)."""
    total = len(ready.passages)
    if passage > total:
        raise UnknownPassageError(
            f"passage {passage} does not exist: this page has {total} passage{'s' if total != 1 else ''}",
            hint=f"Pass passage={'1' if total == 1 else f'1 to {total}'}, or a question to find the relevant passages.",
        )
    chosen, left = [passage - 1], (max_tokens or 0) - ready.costs[passage - 1]
    for position in range(passage, total):
        if ready.costs[position] > left:
            break
        chosen.append(position)
        left -= ready.costs[position]
    return chosen


def _whole(ready: ReadyPage, position: int) -> Piece:
    return Piece(position, 0, len(ready.passages[position].text), False, ready.costs[position])


def _best(ready: ReadyPage, scores: list[float]) -> Piece:
    """The best passage whole: what a budget too small for any piece still gets."""
    return _whole(ready, max(range(len(scores)), key=lambda i: scores[i]))


def _as_page(
    result: ReadResult, request: ReadRequest, url: str, ready: ReadyPage, pieces: list[Piece], *, cached: bool,
    estimated: bool,
) -> Page:  # fmt: skip
    shown = [(ready.passages[piece.position], piece) for piece in pieces]
    texts = [trimmed_text(p.text, piece.start, piece.end) if piece.trimmed else p.text for p, piece in shown]
    meta = result.extracted
    return Page(
        url=url, final_url=result.final_url, status=result.status, content_type=result.content_type,
        **meta.page_metadata().model_dump(),
        page_type=meta.page_type, format=meta.format,
        content="\n\n".join(texts), total_chars=len(meta.text), truncated=meta.truncated,
        tokens=sum(piece.cost for piece in pieces), tokens_estimated=estimated, reader=result.reader, cached=cached,
        question=request.question, total_passages=len(ready.passages), total_tokens=ready.total_tokens,
        passages=[
            PagePassage(index=p.index, headings=list(p.headings), kind=p.kind, text=text, trimmed=piece.trimmed)
            for (p, piece), text in zip(shown, texts, strict=True)
        ],
    )  # fmt: skip
