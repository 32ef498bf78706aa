"""The "credits-server" drop-in profile: the multi-agent server's `web_search` and `web_fetch` (seed-contracts.md E),
definitions over the native web_search and web_fetch plans and handlers.

    web_search(query: str)  -> '[{"title", "url", "snippet"}]' (at most 5); a search that fails answers '[]'
    web_fetch(url: str)     -> the page as plain text, at most 2,000 characters

Priced and metered as the native tools (2 and 1 credits by default, [accounts] prices); refusals made around the
handler (credits, the agent's hourly quota, the SSRF guard's refusal of an internal address) stay explicit typed
errors. A failed search answers '[]' as the contract says, and is not charged (ToolResult.answered = 0). The answers
are the contract's exactly (bare: no cost appended; REST sends web_fetch's text as text/plain).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import replace

from pydantic import Field

from webreach.errors import WebreachError
from webreach.models import Page
from webreach.tools.arguments import QueryText, ToolArguments, UrlText, WebFetchArguments, WebSearchArguments
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

LOGGER = logging.getLogger(__name__)
MAX_RESULTS = 5
MAX_CHARS = 2000


class CreditsSearch(ToolArguments):
    """web_search (credits-server)."""

    query: QueryText = Field(description="What to search for.")


class CreditsFetch(ToolArguments):
    """web_fetch (credits-server)."""

    url: UrlText = Field(description="The http(s) page to read (internal addresses are refused).")


def plan_credits_search(args: CreditsSearch, engines: Sequence[str]) -> SearchPlan:
    return plan_search(WebSearchArguments.parse({"query": args.query, "limit": MAX_RESULTS}), engines)


def _searched(handler: Handler) -> Handler:
    async def answer(call: ToolCall, plan: SearchPlan) -> ToolResult:
        try:
            result = await handler(replace(call, output="json"), plan)
        except WebreachError as exc:  # the contract: a search error is an empty list (and costs nothing)
            LOGGER.info("web_search (credits-server) answered [] for %s: %s", exc.code, exc)
            return ToolResult(tool=call.tool, text="[]", is_json=True, answered=0)
        results: SearchResults = result.value
        hits = [hit for outcome in results.outcomes if outcome.response for hit in outcome.response.results]
        found = [{"title": hit.title, "url": hit.url, "snippet": hit.snippet} for hit in hits[:MAX_RESULTS]]
        return replace(result, tool=call.tool, text=json.dumps(found, ensure_ascii=False), is_json=True)

    return answer


def _fetched(handler: Handler) -> Handler:
    async def answer(call: ToolCall, args: CreditsFetch) -> ToolResult:
        fetched = WebFetchArguments.parse({"url": args.url, "format": "text", "max_chars": MAX_CHARS})
        result = await handler(replace(call, output="json"), fetched)
        page: Page = result.value
        return replace(result, tool=call.tool, text=page.content[:MAX_CHARS], is_json=False)

    return answer


def credits_tools() -> tuple[ToolDefinition, ...]:
    """The profile's definitions, each running a native tool's handler (alias_of: priced and metered as it)."""
    natives = {tool.name: tool for tool in TOOLS}
    search, fetch = natives["web_search"], natives["web_fetch"]
    return (
        ToolDefinition(
            name="web_search", title="Web search",
            description=f"Search the web. Returns a JSON list of at most {MAX_RESULTS} results, each with title, "
            "url and snippet; an empty list when the search failed.",
            arguments=CreditsSearch, handler=_searched(search.handler), prepare=plan_credits_search,
            price=price_search, alias_of="web_search", bare=True,
        ),
        ToolDefinition(
            name="web_fetch", title="Read a web page",
            description=f"Read a public web page and return its main text as plain text (at most {MAX_CHARS:,} "
            "characters). Internal addresses are refused.",
            arguments=CreditsFetch, handler=_fetched(fetch.handler), prepare=lambda args, engines: args,
            alias_of="web_fetch", bare=True,
        ),
    )  # fmt: skip
