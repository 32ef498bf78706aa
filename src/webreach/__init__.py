"""webreach: web access for AI agents.

    async with webreach.Gateway.from_settings() as gateway:
        response = await gateway.search(webreach.SearchRequest(query="python asyncio"), engine="auto")
        page = await gateway.read(webreach.ReadRequest.create(url=response.results[0].url))

or, from synchronous code, `webreach.search("python asyncio")`. Agent tools sit above the gateway:

    toolbox = webreach.Toolbox.over(gateway)
    result = await toolbox.call("web_search", {"query": "python asyncio"}, session="chat-42")

The public API is what this module exports (`__all__`: the Gateway, the agent Toolbox, the request and result
models, the settings and the whole error tree) plus `webreach.testing` (the fake web and FakeClock for tests of code
built on webreach). Everything else is internal and may change in any release: every other module and package
(webreach.net, webreach.read, webreach.engines, ...), and any name starting with an underscore. The command line,
the MCP tools and the REST API are documented interfaces of their own (README.md, docs/).
"""

from webreach.config import (
    CacheSettings,
    EngineSettings,
    Settings,
)
from webreach.errors import (
    AccountError,
    AdminRequiredError,
    AgentAuthError,
    AgentQuotaError,
    AllEnginesFailedError,
    AuthFailedError,
    BadRequestError,
    BlockedError,
    BrowserUnavailableError,
    CorruptImageError,
    EngineError,
    EngineTimeoutError,
    ExtractionError,
    FetchError,
    FetchTimeoutError,
    FetchUnavailableError,
    HostResolutionError,
    HttpStatusError,
    IdempotencyMismatchError,
    ImageError,
    ImageTooLargeError,
    InProgressError,
    InsufficientCreditsError,
    InvalidInputError,
    NeedsBrowserError,
    NotConfiguredError,
    PageBlockedError,
    ParseError,
    QuotaExhaustedError,
    RateLimitedError,
    RenderedEmptyError,
    ResponseTooLargeError,
    RobotsDisallowedError,
    SessionStoreError,
    SuspendedError,
    ThrottledError,
    TooManyRedirectsError,
    UnavailableError,
    UnknownImageTokenError,
    UnknownRefError,
    UnreachableError,
    UnsupportedContentError,
    UnsupportedImageError,
    UrlNotAllowedError,
    WebreachError,
)
from webreach.gateway import (
    EngineStatus,
    Gateway,
    search,
)
from webreach.models import (
    EngineAttempt,
    Hit,
    Page,
    ReadRequest,
    SearchMeta,
    SearchRequest,
    SearchResponse,
)
from webreach.tools import Toolbox, ToolResult

__all__ = [
    "AccountError",
    "AdminRequiredError",
    "AgentAuthError",
    "AgentQuotaError",
    "AllEnginesFailedError",
    "AuthFailedError",
    "BadRequestError",
    "BlockedError",
    "BrowserUnavailableError",
    "CacheSettings",
    "CorruptImageError",
    "EngineAttempt",
    "EngineError",
    "EngineSettings",
    "EngineStatus",
    "EngineTimeoutError",
    "ExtractionError",
    "FetchError",
    "FetchTimeoutError",
    "FetchUnavailableError",
    "Gateway",
    "Hit",
    "HostResolutionError",
    "HttpStatusError",
    "IdempotencyMismatchError",
    "ImageError",
    "ImageTooLargeError",
    "InProgressError",
    "InsufficientCreditsError",
    "InvalidInputError",
    "NeedsBrowserError",
    "NotConfiguredError",
    "Page",
    "PageBlockedError",
    "ParseError",
    "QuotaExhaustedError",
    "RateLimitedError",
    "ReadRequest",
    "RenderedEmptyError",
    "ResponseTooLargeError",
    "RobotsDisallowedError",
    "SearchMeta",
    "SearchRequest",
    "SearchResponse",
    "SessionStoreError",
    "Settings",
    "SuspendedError",
    "ThrottledError",
    "TooManyRedirectsError",
    "ToolResult",
    "Toolbox",
    "UnavailableError",
    "UnknownImageTokenError",
    "UnknownRefError",
    "UnreachableError",
    "UnsupportedContentError",
    "UnsupportedImageError",
    "UrlNotAllowedError",
    "WebreachError",
    "search",
]
