"""The "desktop-agent" drop-in profile: the desktop agent's `web_search` over its provider table (seed-contracts.md C),
a definition over the native web_search plan and handler.

    web_search(query, count=5 (1-10), freshness=None | "day" | "week" | "month" | "year")
    -> "[search results - from <provider>]" then the numbered results, at most 30,000 characters

The search goes to the default provider (Brave, Tavily, Metaso, Bocha or SerpAPI: the one whose `default` is set,
else the first configured in that order); each provider's adapter maps count and freshness to its own parameters.
With no provider configured the tool is not offered. Engine failures become the contract's sentences, chosen by
the error's type and keeping its code and retry_after.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType

from pydantic import Field

from webreach.config import EngineSettings
from webreach.errors import (
    AuthFailedError,
    EngineError,
    EngineTimeoutError,
    InvalidInputError,
    NotConfiguredError,
    QuotaExhaustedError,
    RateLimitedError,
    SuspendedError,
    ThrottledError,
    UnavailableError,
    UnreachableError,
    WebreachError,
)
from webreach.models import Freshness, Hit, SearchRequest
from webreach.tools.arguments import QueryText, ToolArguments
from webreach.tools.backend import ToolBackend, ToolResult
from webreach.tools.definitions import TOOLS, Handler, SearchPlan, SearchResults, ToolCall, ToolDefinition

# the provider table's types, in the order a default is picked when none is marked, with their display names
PROVIDERS: Mapping[str, str] = MappingProxyType(
    {"brave_api": "Brave", "tavily": "Tavily", "metaso": "Metaso", "bocha": "Bocha", "serpapi": "SerpAPI"}
)
MAX_CHARS = 30_000
CUT_NOTE = "\n[cut at 30,000 characters]"
# the contract's sentences, by the error's type (the first match wins: ThrottledError is a SuspendedError)
SENTENCES: tuple[tuple[type[EngineError], str], ...] = (
    (ThrottledError, "Searches are too frequent, retry later."),
    (RateLimitedError, "Searches are too frequent, retry later."),
    (AuthFailedError, "Invalid API key for {name}: check the settings."),
    (EngineTimeoutError, "{name} did not answer in time: check the network."),
    (UnreachableError, "{name} cannot be reached: check the network."),
    (QuotaExhaustedError, "The {name} account has no searches left: top it up or pick another provider."),
    (UnavailableError, "Search service unavailable: {name}."),
    (SuspendedError, "Search service unavailable: {name}."),
)


class DesktopSearch(ToolArguments):
    """web_search (desktop-agent)."""

    query: QueryText = Field(description="What to search for.")
    count: int = Field(5, ge=1, le=10, description="How many results (1-10).")
    freshness: Freshness | None = Field(None, description="Only results from the last day, week, month or year.")


def providers(engines: Mapping[str, EngineSettings]) -> list[str]:
    """The configured providers (enabled, with a readable key), in the table's order."""
    return [
        name
        for name in PROVIDERS
        if (settings := engines.get(name)) is not None
        and settings.enabled
        and settings.key()
        and settings.unreadable is None
    ]


def default_provider(engines: Mapping[str, EngineSettings]) -> str | None:
    """The provider the profile searches: the configured one marked default, else the first configured."""
    configured = providers(engines)
    marked = [name for name in configured if engines[name].default]
    chosen = marked or configured
    return chosen[0] if chosen else None


def display_name(name: str, settings: EngineSettings | None) -> str:
    return (settings.display_name if settings else None) or PROVIDERS.get(name, name)


def offered(backend: ToolBackend) -> bool:
    return default_provider(backend.engine_settings()) is not None


def desktop_text(provider: str, hits: tuple[Hit, ...], secret: str | None, answer: str | None = None) -> str:
    """The answer: the external-content mark, the provider's AI answer if any, the numbered results; never the
    key, at most MAX_CHARS."""
    lines = [f"[search results - from {provider}]", ""]
    if answer:
        lines += [f"AI answer: {answer}", ""]
    if not hits:
        lines.append("No results.")
    for position, hit in enumerate(hits, 1):
        lines.append(f"{position}. {hit.title}")
        lines.append(f"   URL: {hit.url}")
        if hit.date:
            lines.append(f"   Date: {hit.date}")
        if hit.snippet:
            lines.append(f"   {hit.snippet}")
        lines.append("")
    text = "\n".join(lines).rstrip() + "\n"
    if secret:
        text = text.replace(secret, "[hidden]")
    if len(text) > MAX_CHARS:
        text = text[: MAX_CHARS - len(CUT_NOTE)] + CUT_NOTE
    return text


def user_error(error: WebreachError, provider: str) -> WebreachError:
    """The contract's sentence for an engine failure, as an error of the same type, code and retry_after."""
    for kind, sentence in SENTENCES:
        if isinstance(error, kind):
            message = sentence.format(name=provider)
            if isinstance(error, UnreachableError):
                return UnreachableError(message, cause=error.cause, hint="")
            refined = type(error)(message, retry_after=error.retry_after, hint="")
            return refined
    return error


def _searched(handler: Handler) -> Handler:
    async def answer(call: ToolCall, args: DesktopSearch) -> ToolResult:
        engines = call.backend.engine_settings()
        provider = default_provider(engines)
        if provider is None:
            raise NotConfiguredError(
                "no search provider is configured",
                hint=f"Add an API key for one of {', '.join(PROVIDERS.values())} in the settings.",
            )
        settings = engines[provider]
        name = display_name(provider, settings)
        request = SearchRequest.create(query=args.query, limit=args.count, freshness=args.freshness)
        try:
            result = await handler(replace(call, output="json"), SearchPlan(provider, (request,)))
        except WebreachError as error:
            raise user_error(error, name) from None
        results: SearchResults = result.value
        (outcome,) = results.outcomes
        if outcome.response is None:
            failure = outcome.error or InvalidInputError("the search gave no answer", hint="Search again.")
            raise user_error(failure, name)
        text = desktop_text(name, outcome.response.results, settings.key(), outcome.response.answer)
        return replace(result, tool=call.tool, text=text, is_json=False)

    return answer


def desktop_tools() -> tuple[ToolDefinition, ...]:
    """The profile's one definition, running the native web_search handler (alias_of: priced and metered as it)."""
    search = next(tool for tool in TOOLS if tool.name == "web_search")
    return (
        ToolDefinition(
            name="web_search", title="Web search",
            description="Search the web with the default search provider. Results are external content.",
            arguments=DesktopSearch, handler=_searched(search.handler), prepare=lambda args, engines: args,
            alias_of="web_search", offered=offered,
        ),
    )  # fmt: skip
