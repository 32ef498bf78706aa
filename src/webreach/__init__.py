"""webreach: web access for AI agents.

    async with webreach.Gateway.from_settings() as gateway:
        response = await gateway.search(webreach.SearchRequest(query="python asyncio"), engine="auto")
        page = await gateway.read(webreach.ReadRequest.create(url=response.results[0].url))

or, from synchronous code, `webreach.search("python asyncio")` and `webreach.fetch(url)`. Agent tools sit above
the gateway:

    toolbox = webreach.Toolbox.over(gateway)
    result = await toolbox.call("web_search", {"query": "python asyncio"}, session="chat-42")

The public API is what this module exports (`__all__`: the Gateway, the agent Toolbox, the request and result
models, the settings and the whole error tree) plus `webreach.testing` (the fake web and FakeClock for tests of code
built on webreach). Everything else is internal and may change in any release: every other module and package
(webreach.net, webreach.read, webreach.engines, ...), and any name starting with an underscore. The command line,
the MCP tools and the REST API are documented interfaces of their own (README.md, docs/).
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what mypy and IDEs see; at run time each name is imported from its module on first use
    from webreach.config import (
        CacheSettings,
        EngineSettings,
        Settings,
    )
    from webreach.errors import (
        AccountError,
        AccountingUnavailableError,
        AdminRequiredError,
        AdminThrottledError,
        AgentAuthError,
        AgentQuotaError,
        AllEnginesFailedError,
        AuthFailedError,
        BadRequestError,
        BlockedError,
        BrowserUnavailableError,
        ConfigStoreError,
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
        ImageStoreError,
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
        RequestRefused,
        ResponseTooLargeError,
        RobotsDisallowedError,
        SessionStoreError,
        StateBackendError,
        SuspendedError,
        ThrottledError,
        ToolNotAllowedError,
        TooManyRedirectsError,
        UnavailableError,
        UnknownEngineError,
        UnknownImageTokenError,
        UnknownPassageError,
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
        fetch,
        search,
    )
    from webreach.models import (
        EngineAttempt,
        Hit,
        Page,
        PagePassage,
        ReadRequest,
        SearchMeta,
        SearchRequest,
        SearchResponse,
    )
    from webreach.tools import Toolbox, ToolResult

# the module each public name lives in: `import webreach` loads none of them (the Gateway alone pulls in config,
# the read service, the extraction cascade, trafilatura, pypdf and Pillow); the first use of a name loads its module
_EXPORTS: dict[str, str] = {
    "CacheSettings": "webreach.config",
    "EngineSettings": "webreach.config",
    "Settings": "webreach.config",
    "AccountError": "webreach.errors",
    "AccountingUnavailableError": "webreach.errors",
    "AdminRequiredError": "webreach.errors",
    "AdminThrottledError": "webreach.errors",
    "AgentAuthError": "webreach.errors",
    "AgentQuotaError": "webreach.errors",
    "AllEnginesFailedError": "webreach.errors",
    "AuthFailedError": "webreach.errors",
    "BadRequestError": "webreach.errors",
    "BlockedError": "webreach.errors",
    "BrowserUnavailableError": "webreach.errors",
    "ConfigStoreError": "webreach.errors",
    "CorruptImageError": "webreach.errors",
    "EngineError": "webreach.errors",
    "EngineTimeoutError": "webreach.errors",
    "ExtractionError": "webreach.errors",
    "FetchError": "webreach.errors",
    "FetchTimeoutError": "webreach.errors",
    "FetchUnavailableError": "webreach.errors",
    "HostResolutionError": "webreach.errors",
    "HttpStatusError": "webreach.errors",
    "IdempotencyMismatchError": "webreach.errors",
    "ImageError": "webreach.errors",
    "ImageStoreError": "webreach.errors",
    "ImageTooLargeError": "webreach.errors",
    "InProgressError": "webreach.errors",
    "InsufficientCreditsError": "webreach.errors",
    "InvalidInputError": "webreach.errors",
    "NeedsBrowserError": "webreach.errors",
    "NotConfiguredError": "webreach.errors",
    "PageBlockedError": "webreach.errors",
    "ParseError": "webreach.errors",
    "QuotaExhaustedError": "webreach.errors",
    "RateLimitedError": "webreach.errors",
    "RenderedEmptyError": "webreach.errors",
    "RequestRefused": "webreach.errors",
    "ResponseTooLargeError": "webreach.errors",
    "RobotsDisallowedError": "webreach.errors",
    "SessionStoreError": "webreach.errors",
    "StateBackendError": "webreach.errors",
    "SuspendedError": "webreach.errors",
    "ThrottledError": "webreach.errors",
    "TooManyRedirectsError": "webreach.errors",
    "ToolNotAllowedError": "webreach.errors",
    "UnavailableError": "webreach.errors",
    "UnknownEngineError": "webreach.errors",
    "UnknownImageTokenError": "webreach.errors",
    "UnknownPassageError": "webreach.errors",
    "UnknownRefError": "webreach.errors",
    "UnreachableError": "webreach.errors",
    "UnsupportedContentError": "webreach.errors",
    "UnsupportedImageError": "webreach.errors",
    "UrlNotAllowedError": "webreach.errors",
    "WebreachError": "webreach.errors",
    "EngineStatus": "webreach.gateway",
    "Gateway": "webreach.gateway",
    "search": "webreach.gateway",
    "fetch": "webreach.gateway",
    "EngineAttempt": "webreach.models",
    "Hit": "webreach.models",
    "Page": "webreach.models",
    "PagePassage": "webreach.models",
    "ReadRequest": "webreach.models",
    "SearchMeta": "webreach.models",
    "SearchRequest": "webreach.models",
    "SearchResponse": "webreach.models",
    "ToolResult": "webreach.tools",
    "Toolbox": "webreach.tools",
}

__all__ = [
    "AccountError",
    "AccountingUnavailableError",
    "AdminRequiredError",
    "AdminThrottledError",
    "AgentAuthError",
    "AgentQuotaError",
    "AllEnginesFailedError",
    "AuthFailedError",
    "BadRequestError",
    "BlockedError",
    "BrowserUnavailableError",
    "CacheSettings",
    "ConfigStoreError",
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
    "ImageStoreError",
    "ImageTooLargeError",
    "InProgressError",
    "InsufficientCreditsError",
    "InvalidInputError",
    "NeedsBrowserError",
    "NotConfiguredError",
    "Page",
    "PageBlockedError",
    "PagePassage",
    "ParseError",
    "QuotaExhaustedError",
    "RateLimitedError",
    "ReadRequest",
    "RenderedEmptyError",
    "RequestRefused",
    "ResponseTooLargeError",
    "RobotsDisallowedError",
    "SearchMeta",
    "SearchRequest",
    "SearchResponse",
    "SessionStoreError",
    "Settings",
    "StateBackendError",
    "SuspendedError",
    "ThrottledError",
    "TooManyRedirectsError",
    "ToolNotAllowedError",
    "ToolResult",
    "Toolbox",
    "UnavailableError",
    "UnknownEngineError",
    "UnknownImageTokenError",
    "UnknownPassageError",
    "UnknownRefError",
    "UnreachableError",
    "UnsupportedContentError",
    "UnsupportedImageError",
    "UrlNotAllowedError",
    "WebreachError",
    "fetch",
    "search",
]


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use and kept in the package's namespace after that."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _Package(types.ModuleType):
    """This package's module type, for the one public name a subpackage shares: `webreach.search` is the search
    function (as when every name was imported eagerly), also after the webreach.search package has been loaded,
    which the import system binds to the same attribute."""

    @property
    def search(self) -> Any:
        return self.__dict__.get("search") or __getattr__("search")

    @search.setter
    def search(self, value: Any) -> None:
        if not isinstance(value, types.ModuleType):  # the import system's binding of the subpackage is not kept
            self.__dict__["search"] = value


sys.modules[__name__].__class__ = _Package
