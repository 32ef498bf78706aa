"""Reading pages safely: the URL and address guard (transport, fetcher and extraction build on it)."""

from webreach.errors import FetchError, HostResolutionError, UrlNotAllowedError
from webreach.fetch.address_policy import AddressPolicy, Denial, IPAddress
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
