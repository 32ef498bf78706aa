"""The "serp-chat" drop-in profile: the mobile chat app's `serp_search`, `serp_search_multi` and `browse_url`
(seed-contracts.md A), each a definition over the one web_search / web_search_multi / web_fetch plan and handler.

    serp_search(query, engine="auto", limit=8 (max 10), page=1, site=None)
    -> '{"results": [{"rank", "title", "url", "display_url"?, "snippet", "engine", "source"?}],
         "meta": {"engine", "count", "latency_ms", "cached", "blocked_reason"?}}'

Only the arguments and the rendering are this profile's: the search (routing, fallback at a CAPTCHA, caching,
metering, the SSRF-guarded read) is the native tools'.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

from pydantic import Field

from webreach.defaults import ResultLimit
from webreach.errors import InvalidInputError
from webreach.models import Hit, Page, SearchRequest, SearchResponse
from webreach.tools.arguments import QueryText, ToolArguments, UrlText, WebFetchArguments
from webreach.tools.backend import ToolResult
from webreach.tools.definitions import (
    TOOLS,
    Handler,
    SearchPlan,
    SearchResults,
    ToolCall,
    ToolDefinition,
    check_engine,
    price_search,
)

SerpEngine = Literal["auto", "baidu", "bing", "duckduckgo", "searxng"]
# the order `auto` tries, as the app's settings default it (searxng only where it is configured)
AUTO_ORDER = ("searxng", "baidu", "bing", "duckduckgo")
BLOCK_CODES = ("captcha", "blocked")


class SerpSearch(ToolArguments):
    """serp_search."""

    query: QueryText = Field(description="What to search for.")
    engine: SerpEngine = Field("auto", description="auto (fallback across engines) or one engine.")
    # the contract's own bounds (seed-contracts.md A), not web_search's: a drop-in answers as the stack expects
    limit: int = ResultLimit(default=8, maximum=10).field("How many results (1-10).")
    page: int = Field(1, ge=1, le=10, description="Result page (1-based).")
    site: str | None = Field(None, description="Keep to this domain (becomes site:DOMAIN).")


class SerpSearchMulti(ToolArguments):
    """serp_search_multi."""

    query: QueryText = Field(description="What to search for.")
    engines: list[Literal["baidu", "bing", "duckduckgo", "searxng"]] = Field(
        min_length=1, max_length=4, description="The engines to ask together."
    )
    limit: int = ResultLimit(default=8, maximum=10).field("How many merged results (1-10).")
    page: int = Field(1, ge=1, le=10, description="Result page (1-based).")
    site: str | None = Field(None, description="Keep to this domain (becomes site:DOMAIN).")


class BrowseUrl(ToolArguments):
    """browse_url."""

    url: UrlText = Field(description="The http(s) page to read.")


def _request(args: SerpSearch | SerpSearchMulti) -> SearchRequest:
    return SearchRequest.create(query=args.query, limit=args.limit, page=args.page, site=args.site)


def plan_serp(args: SerpSearch, engines: Sequence[str]) -> SearchPlan:
    if args.engine == "auto":
        order = tuple(name for name in AUTO_ORDER if name in engines)
        return SearchPlan("auto", (_request(args),), order or None)
    return SearchPlan(check_engine(args.engine, engines, allow_auto=False), (_request(args),))


def plan_serp_multi(args: SerpSearchMulti, engines: Sequence[str]) -> SearchPlan:
    chosen = tuple(dict.fromkeys(check_engine(name, engines, allow_auto=False) for name in args.engines))
    return SearchPlan("multi", (_request(args),), chosen)


def serp_json(response: SearchResponse) -> dict[str, Any]:
    """The contract's answer for one search."""
    meta = response.meta
    engine = meta.engines_used[0] if meta.engines_used else ""
    blocked = [attempt for attempt in meta.attempts if attempt.code in BLOCK_CODES]
    body: dict[str, Any] = {
        "results": [_hit(position, hit) for position, hit in enumerate(response.results, 1)],
        "meta": {
            "engine": engine,
            "count": len(response.results),
            "latency_ms": round(meta.elapsed_ms),
            "cached": any(attempt.cached for attempt in meta.attempts if attempt.engine in meta.engines_used),
        },
    }
    if blocked:
        body["meta"]["blocked_reason"] = f"{blocked[0].code} ({blocked[0].engine})"
    return body


def _hit(position: int, hit: Hit) -> dict[str, Any]:
    item: dict[str, Any] = {"rank": position, "title": hit.title, "url": hit.url}
    if hit.display_url:
        item["display_url"] = hit.display_url
    item.update(snippet=hit.snippet, engine=hit.engine)
    if hit.source:
        item["source"] = hit.source
    return item


def _searched(handler: Handler) -> Handler:
    async def answer(call: ToolCall, plan: SearchPlan) -> ToolResult:
        result = await handler(replace(call, output="json"), plan)
        results: SearchResults = result.value
        (outcome,) = results.outcomes
        if outcome.response is None:  # one query: the native handler raised its error already
            raise outcome.error or InvalidInputError("the search gave no answer", hint="Search again.")
        text = json.dumps(serp_json(outcome.response), ensure_ascii=False)
        return replace(result, tool=call.tool, text=text, is_json=True)

    return answer


def _browsed(handler: Handler) -> Handler:
    async def answer(call: ToolCall, args: BrowseUrl) -> ToolResult:
        fetched = WebFetchArguments.parse({"url": args.url, "format": "text"})
        result = await handler(replace(call, output="json"), fetched)
        page: Page = result.value
        return replace(result, tool=call.tool, text=page.content, is_json=False)

    return answer


def serp_tools() -> tuple[ToolDefinition, ...]:
    """The profile's definitions, each running a native tool's handler (alias_of: priced and metered as it)."""
    natives = {tool.name: tool for tool in TOOLS}
    search, multi, fetch = natives["web_search"], natives["web_search_multi"], natives["web_fetch"]
    return (
        ToolDefinition(
            name="serp_search", title="Web search",
            description="Search the web. engine='auto' tries engines in order and moves on at a CAPTCHA or block. "
            "Returns a JSON string: results (rank, title, url, snippet, engine) and meta (engine that answered, "
            "count, latency_ms, cached, blocked_reason).",
            arguments=SerpSearch, handler=_searched(search.handler), prepare=plan_serp, price=price_search,
            alias_of="web_search",
        ),
        ToolDefinition(
            name="serp_search_multi", title="Web search across engines",
            description="Search several engines at once; results merged and deduplicated by URL. Returns a JSON "
            "string shaped like serp_search's.",
            arguments=SerpSearchMulti, handler=_searched(multi.handler), prepare=plan_serp_multi,
            price=price_search, alias_of="web_search_multi",
        ),
        ToolDefinition(
            name="browse_url", title="Read a web page",
            description="Read a public web page and return its main text (internal addresses are refused).",
            arguments=BrowseUrl, handler=_browsed(fetch.handler), prepare=lambda args, engines: args,
            alias_of="web_fetch",
        ),
    )  # fmt: skip
