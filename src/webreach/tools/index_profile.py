"""The "numeric-index" drop-in profile: the token-saving stack's `web_search` and `web_fetch(index)`
(seed-contracts.md D), definitions over the native web_search and web_fetch plans and handlers.

    web_search(query: str | list[str])  -> text, URLs hidden, results numbered from 0 in each answer
    web_fetch(index: int)               -> the result with that index in the session's latest search

The indexes of an answer are kept with the session's refs (tools/answer_index.py); when the store fails, the answer
shows URLs instead, as the stack's own fallback does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pydantic import Field

from webreach.errors import InvalidInputError, SessionStoreError
from webreach.models import Hit
from webreach.tools.answer_index import answer_ref, keep_answer
from webreach.tools.arguments import QueryList, QueryText, ToolArguments, WebFetchArguments, WebSearchArguments
from webreach.tools.backend import ToolResult
from webreach.tools.definitions import (
    TOOLS,
    Handler,
    SearchPlan,
    SearchResults,
    ToolCall,
    ToolDefinition,
    plan_search,
    price_search,
)

MAX_RESULTS = 10


class IndexedSearch(ToolArguments):
    """web_search (numeric-index)."""

    query: QueryText | QueryList = Field(description="What to search for, or a list of queries.")


class IndexedFetch(ToolArguments):
    """web_fetch (numeric-index)."""

    index: int = Field(ge=0, le=999, description="The result's index in the latest web_search answer (from 0).")


def plan_indexed(args: IndexedSearch, engines: Sequence[str]) -> SearchPlan:
    return plan_search(WebSearchArguments.parse({"query": args.query, "limit": MAX_RESULTS}), engines)


def indexed_text(query: str, hits: Sequence[Hit], start: int, *, urls: bool) -> str:
    """One query's block: the contract's header, then each result numbered from `start`."""
    lines = [f"A Google search for '{query}' found {len(hits)} results:", "", "## Web Results", ""]
    for index, hit in enumerate(hits, start):
        lines.append(f"{index}. {hit.title}")
        if hit.date:
            lines.append(f"Date published: {hit.date}")
        lines.append(f"Source: {hit.source or hit.display_url or hit.engine}")
        if urls:
            lines.append(f"URL: {hit.url}")
        lines += [hit.snippet, ""]
    return "\n".join(lines)


def _searched(handler: Handler) -> Handler:
    async def answer(call: ToolCall, plan: SearchPlan) -> ToolResult:
        result = await handler(replace(call, output="json"), plan)
        results: SearchResults = result.value
        answered = [(outcome.query, outcome.response.results) for outcome in results.outcomes if outcome.response]
        hits = [hit for _, found in answered for hit in found]
        kept = results.refs is not None and call.sessions is not None and all(hit.url in results.refs for hit in hits)
        if kept and call.sessions is not None and results.refs is not None:
            try:
                await keep_answer(call.sessions, call.session, [results.refs[hit.url] for hit in hits])
            except SessionStoreError:
                kept = False
        blocks, start = [], 0
        for query, found in answered:
            blocks.append(indexed_text(query, found, start, urls=not kept))
            start += len(found)
        if kept:
            blocks.append("**Note**: To fetch full content from any result, use: web_fetch(index=N)")
        return replace(result, tool=call.tool, text="\n".join(blocks), is_json=False)

    return answer


def _fetched(handler: Handler) -> Handler:
    async def answer(call: ToolCall, args: IndexedFetch) -> ToolResult:
        if call.sessions is None:
            raise InvalidInputError("indexes are not available here (no session store)", hint="Search again.")
        ref = await answer_ref(call.sessions, call.session, args.index)
        result = await handler(replace(call, output="compact"), WebFetchArguments.parse({"ref": ref}))
        return replace(result, tool=call.tool)

    return answer


def index_tools() -> tuple[ToolDefinition, ...]:
    """The profile's definitions, each running a native tool's handler (alias_of: priced and metered as it)."""
    natives = {tool.name: tool for tool in TOOLS}
    search, fetch = natives["web_search"], natives["web_fetch"]
    return (
        ToolDefinition(
            name="web_search", title="Web search",
            description="Search the web (one query or a list). Results are numbered from 0, URLs hidden; read one "
            "with web_fetch(index=N).",
            arguments=IndexedSearch, handler=_searched(search.handler), prepare=plan_indexed, price=price_search,
            alias_of="web_search",
        ),
        ToolDefinition(
            name="web_fetch", title="Read a search result",
            description="Read the full content of a result of the latest web_search by its index (from 0).",
            arguments=IndexedFetch, handler=_fetched(fetch.handler), prepare=lambda args, engines: args,
            alias_of="web_fetch",
        ),
    )  # fmt: skip
