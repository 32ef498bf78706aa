"""A search that answers with reading: its top results read for a question, each page's best passages with anchors.

web_search(question=..., read_top=k) reads the first k distinct results (in the order shown) through the same
reader web_fetch uses (ToolBackend.read: the guarded fetcher, the page cache, passages cut once), all at once, so
the reads take as long as the slowest one, each bounded by the read deadline. The token budget (max_tokens,
default QUESTION_MAX_TOKENS) is shared evenly by the pages read. A read that fails is that result's note, never the
search's failure. Each page is kept under its ref like a web_fetch, so web_fetch(ref=k, passage=n) reads an anchor's
passage again from the cache.

Pricing: each read made costs what a web_fetch costs (the agent's own web_fetch price): a read that answered, or
that failed the way a web_fetch is still charged for (backend.CHARGED_FAILURES); ToolResult.reads says how many.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from webreach.errors import Syntax, WebreachError, error_body, tool_syntax
from webreach.models import QUESTION_MAX_TOKENS, Page, ReadRequest
from webreach.tools import render
from webreach.tools.backend import ToolBackend, charged_failure
from webreach.tools.fence import UNTRUSTED_NOTE, fence
from webreach.tools.render_passages import anchor, label, more_line

MIN_PAGE_TOKENS = 10  # a page's share of the budget is never below a read's smallest budget


@dataclass(frozen=True)
class Reading:
    """One top result read for the question: its page, or the error that is its note."""

    url: str
    ref: int | None
    page: Page | None = None
    error: WebreachError | None = None

    @property
    def charged(self) -> bool:
        """Whether this read costs a web_fetch: it answered, or failed the way a web_fetch is still charged for."""
        return self.error is None or charged_failure(self.error)


def top_urls(outcomes: Sequence[render.SearchOutcome], count: int) -> list[str]:
    """The first `count` distinct result URLs, in the order the results are shown."""
    urls = [hit.url for outcome in outcomes if outcome.response is not None for hit in outcome.response.results]
    return list(dict.fromkeys(urls))[:count]


async def read_top(
    backend: ToolBackend, urls: Sequence[str], refs: Mapping[str, int] | None, question: str, max_tokens: int | None
) -> tuple[Reading, ...]:
    """Each of `urls` read for `question` at once, within its share of `max_tokens`."""
    if not urls:
        return ()
    share = max((max_tokens or QUESTION_MAX_TOKENS) // len(urls), MIN_PAGE_TOKENS)
    readings = await asyncio.gather(*(_read(backend, url, refs, question, share) for url in urls))
    return tuple(readings)


async def _read(
    backend: ToolBackend, url: str, refs: Mapping[str, int] | None, question: str, max_tokens: int
) -> Reading:
    ref = refs.get(url) if refs is not None else None
    try:
        page = await backend.read(ReadRequest.create(url=url, question=question, max_tokens=max_tokens))
    except WebreachError as exc:
        return Reading(url, ref, error=exc)
    return Reading(url, ref, page=page)


def readings_text(question: str, readings: Sequence[Reading], *, syntax: Syntax = tool_syntax) -> str:
    """Compact text: the question, then each page read (its passages fenced as untrusted, or its note); the calls
    that read on in `syntax` (the CLI's table shows its own)."""
    lines = [f"Read for: {' '.join(question.split())}", UNTRUSTED_NOTE]
    for reading in readings:
        name = f"[{reading.ref}]" if reading.ref is not None else reading.url
        if reading.page is None:
            assert reading.error is not None
            lines.append(f"{name} could not be read: {reading.error.code}: {reading.error}")
            continue
        page = reading.page
        passages = page.passages or []
        body = "\n\n".join(f"{label(p, reading.ref)}\n{p.text}" for p in passages)
        lines.append(f"{name} {page.title or page.url} ({page.tokens or 0:,} of {page.total_tokens or 0:,} tokens)")
        lines.append(fence(body or "(no text on this page)", "WEB PAGE"))
        lines.append(more_line(page, ref=reading.ref, syntax=syntax))
    return "\n".join(lines)


def readings_json(readings: Sequence[Reading]) -> list[dict[str, Any]]:
    """Each page read as JSON: ref, url, title, tokens and its passages with anchors, or its error as a note."""
    shown: list[dict[str, Any]] = []
    for reading in readings:
        if reading.page is None:
            assert reading.error is not None
            note = error_body(reading.error, tool="web_fetch", detail=False)
            shown.append({"ref": reading.ref, "url": reading.url, "error": note})
            continue
        page = reading.page
        passages = [{**p.model_dump(mode="json"), "anchor": anchor(p, reading.ref)} for p in page.passages or []]
        shown.append({
            "ref": reading.ref, "url": reading.url, "final_url": page.final_url, "title": page.title,
            "tokens": page.tokens, "total_tokens": page.total_tokens, "total_passages": page.total_passages,
            "passages": passages, "more": more_line(page, ref=reading.ref),
        })  # fmt: skip
    return shown
