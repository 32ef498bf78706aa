"""webreach: web access for AI agents.

    async with webreach.Gateway.from_settings() as gateway:
        response = await gateway.search(webreach.SearchRequest(query="python asyncio"), engine="auto")

or, from synchronous code, `webreach.search("python asyncio")`. Agent tools sit above the gateway:

    toolbox = webreach.Toolbox.over(gateway)
    result = await toolbox.call("web_search", {"query": "python asyncio"}, session="chat-42")
"""

from webreach.config import CacheSettings, EngineSettings, Settings
from webreach.errors import (
    AllEnginesFailedError,
    AuthFailedError,
    BadRequestError,
    BlockedError,
    EngineError,
    EngineTimeoutError,
    InvalidInputError,
    NotConfiguredError,
    ParseError,
    QuotaExhaustedError,
    RateLimitedError,
    SuspendedError,
    UnavailableError,
    WebreachError,
)
from webreach.gateway import EngineStatus, Gateway, search
from webreach.models import EngineAttempt, Hit, SearchMeta, SearchRequest, SearchResponse
from webreach.tools import Toolbox, ToolResult

__all__ = [
    "AllEnginesFailedError",
    "AuthFailedError",
    "BadRequestError",
    "BlockedError",
    "CacheSettings",
    "EngineAttempt",
    "EngineError",
    "EngineSettings",
    "EngineStatus",
    "EngineTimeoutError",
    "Gateway",
    "Hit",
    "InvalidInputError",
    "NotConfiguredError",
    "ParseError",
    "QuotaExhaustedError",
    "RateLimitedError",
    "SearchMeta",
    "SearchRequest",
    "SearchResponse",
    "Settings",
    "SuspendedError",
    "ToolResult",
    "Toolbox",
    "UnavailableError",
    "WebreachError",
    "search",
]
