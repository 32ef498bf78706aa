"""Rendering a page read for a question (or by passage): its passages labelled with anchors, and how to read on.

    Title: Golden Gate Bridge
    URL: https://en.wikipedia.org/wiki/Golden_Gate_Bridge
    Question: when did the bridge open?
    Passages 4, 9-10 of 63 (412 of 6,210 tokens, markdown).
    <untrusted note and fence>
    [3§4] History > Construction
    Construction began on January 5, 1933 ...

    [3§9] ...
    Left out: 60 of 63 passages (5,798 tokens). Read more: one passage with web_fetch(ref=3, passage=11), ...

An anchor `[ref§n]` names passage n of the page ref `ref` stands for (`[§n]` when it was read by URL): an agent
quotes it, and web_fetch(ref=ref, passage=n) reads it again, the same text while the page is cached.
"""

from __future__ import annotations

from typing import Any

from webreach.errors import Call, Syntax, tool_syntax
from webreach.models import TRIM_MARK, Page, PagePassage
from webreach.tools.fence import UNTRUSTED_NOTE, fence

READ_ON_TOKENS = 1000  # the budget the "read on" suggestion asks for


def anchor(passage: PagePassage, ref: int | None) -> str:
    """`[3§12]`, or `[§12]` for a page read by URL."""
    return f"[{ref if ref is not None else ''}§{passage.index}]"


def label(passage: PagePassage, ref: int | None) -> str:
    """The anchor and the heading path, the line printed before a passage."""
    path = " > ".join(heading.replace("\n", " ") for heading in passage.headings)
    return f"{anchor(passage, ref)} {path}".rstrip()


def passages_text(page: Page, header: list[str], *, ref: int | None = None, syntax: Syntax = tool_syntax) -> str:
    """`header` (the page's title, URL and date: tools/render.py, the one owner of those lines), the question and
    what was read, the passages fenced as untrusted with their labels, and one line on what was left out."""
    passages = page.passages or []
    lines = list(header)
    if page.question:
        lines.append(f"Question: {' '.join(page.question.split())}")
    shown = _numbers([p.index for p in passages])
    lines.append(
        f"Passage{'s' if len(passages) != 1 else ''} {shown} of {page.total_passages} "
        f"({page.tokens:,} of {page.total_tokens or 0:,} tokens{', estimated' if page.tokens_estimated else ''}, "
        f"{page.format})."
    )
    lines.append(UNTRUSTED_NOTE)
    body = "\n\n".join(f"{label(p, ref)}\n{p.text}" for p in passages)
    lines.append(fence(body or "(no text on this page)", "WEB PAGE"))
    lines.append(more_line(page, ref=ref, syntax=syntax))
    return "\n".join(lines)


def more_line(page: Page, *, ref: int | None = None, syntax: Syntax = tool_syntax) -> str:
    """How much was left out and the calls that read more (a passage, the next ones, the whole page), and which
    passages were trimmed and how to read one whole."""
    passages = page.passages or []
    total = page.total_passages or 0
    left = total - len(passages)
    target = ("ref", ref) if ref is not None else ("url", page.url)
    trimmed = _trimmed_line([p.index for p in passages if p.trimmed], target, syntax)
    if left <= 0:
        return trimmed or "Nothing left out: these are all the page's passages."
    after = max(p.index for p in passages) + 1 if passages else 1
    missing = [n for n in range(1, total + 1) if n not in {p.index for p in passages}]
    one = missing[0] if after > total else after
    left_tokens = max((page.total_tokens or 0) - (page.tokens or 0), 0)
    steps = [
        f"one passage with {syntax(Call('web_fetch', (target, ('passage', one))))}",
        f"on from it with {syntax(Call('web_fetch', (target, ('passage', one), ('max_tokens', READ_ON_TOKENS))))}",
        f"or the whole page in windows with {syntax(Call('web_fetch', (target,)))}",
    ]
    said = f"Left out: {left} of {total} passages (about {left_tokens:,} tokens). Read more: {', '.join(steps)}."
    return f"{said} {trimmed}" if trimmed else said


def _trimmed_line(trimmed: list[int], target: tuple[str, str | int], syntax: Syntax) -> str:
    """Which passages show only their best sentences, and the call that reads one whole ("" when none)."""
    if not trimmed:
        return ""
    many = len(trimmed) > 1
    whole = syntax(Call("web_fetch", (target, ("passage", trimmed[0]))))
    return (
        f"Passage{'s' if many else ''} {_numbers(trimmed)} {'are' if many else 'is'} trimmed to "
        f"{'their' if many else 'its'} best sentences ({TRIM_MARK} marks a cut): {whole} reads one whole."
    )


def passages_json(page: Page, *, ref: int | None = None) -> dict[str, Any]:
    """The Page as JSON with each passage's anchor and the read-more line."""
    body = page.model_dump(mode="json")
    if ref is not None:
        body["ref"] = ref
    for passage, shown in zip(page.passages or [], body["passages"], strict=True):
        shown["anchor"] = anchor(passage, ref)
    body["more"] = more_line(page, ref=ref)
    return body


def _numbers(indexes: list[int]) -> str:
    """1, 3-5, 9: passage numbers with runs shortened."""
    runs: list[list[int]] = []
    for index in indexes:
        if runs and index == runs[-1][-1] + 1:
            runs[-1].append(index)
        else:
            runs.append([index])
    return ", ".join(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs) or "none"
