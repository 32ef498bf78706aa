"""The SSRF-safe HTTP client: URL and address guard, pinned transport (optionally through the operator's outbound
proxy, net/proxy.py), fetcher with budgets, decoding, robots."""

from webreach.errors import FetchError, HostResolutionError, UrlNotAllowedError
from webreach.net.address_policy import AddressPolicy, Denial, IPAddress
from webreach.net.guard import ApprovedTarget, Guard, ParsedUrl, parse_url
from webreach.net.resolvers import Resolver, StaticResolver, SystemResolver

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
