"""Reading pages safely: the URL and address guard (transport, fetcher and extraction build on it)."""

from webreach.fetch.address_policy import (
    AddressPolicy,
    Denial,
    FetchError,
    HostResolutionError,
    IPAddress,
    UrlNotAllowedError,
)
from webreach.fetch.guard import (
    ApprovedTarget,
    Guard,
    ParsedUrl,
    Resolver,
    StaticResolver,
    SystemResolver,
    parse_url,
)

__all__ = [
    "AddressPolicy",
    "ApprovedTarget",
    "Denial",
    "FetchError",
    "Guard",
    "HostResolutionError",
    "IPAddress",
    "ParsedUrl",
    "Resolver",
    "StaticResolver",
    "SystemResolver",
    "UrlNotAllowedError",
    "parse_url",
]
