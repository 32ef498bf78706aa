"""Which IP addresses an agent-supplied URL may reach: one explicit deny table, metadata always denied.

The table is ours, not `ipaddress.is_private`/`is_global`: those changed between CPython patch releases
(CVE-2024-4032) and on 3.11.7 call `::a9fe:a9fe`, `2002:a9fe:a9fe::` and Oracle's metadata 192.0.0.192 "global".
Every row has a stable rule name; a refusal carries it as `UrlNotAllowedError.rule`.

An address is judged in this order (the first verdict wins):
1. IPv4-mapped IPv6 (`::ffff:a.b.c.d`) *is* the IPv4 address (a dual-stack socket connects there), so it is
   replaced by it before anything else.
2. Cloud-metadata addresses are denied, whatever the operator allows. For IPv6 the IPv4 is also looked for at
   every RFC 6052 offset, in 6to4 and in Teredo, because a network-specific NAT64 prefix can sit anywhere.
3. IPv4 carried by a transition form (IPv4-compatible, IPv4-translated, NAT64 64:ff9b::/96 and 64:ff9b:1::/48,
   6to4, Teredo client and server, ISATAP) is judged as IPv4 by this same policy; if it is refused, so is the
   IPv6 address, under the IPv4 rule.
4. Operator-allowed CIDRs (`allow_cidrs`, e.g. an intranet) are allowed.
5. The deny table, most specific row first. Everything outside 2000::/3 is `reserved`; the deprecated or
   tunnelling forms (compatible, translated, local-use NAT64, 6to4, Teredo) are denied outright even when the
   IPv4 they carry is public, since no public site is reached that way.
6. Anything else is allowed. NAT64 64:ff9b::/96 with a public IPv4 is allowed on purpose: on an IPv6-only host
   behind DNS64 that is how every IPv4-only site resolves.

"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address, ip_network
from types import MappingProxyType
from typing import TypeAlias

from webreach.errors import InvalidInputError, UrlNotAllowedError

IPAddress: TypeAlias = IPv4Address | IPv6Address
IPNetwork: TypeAlias = IPv4Network | IPv6Network


def refusal(
    message: str, *, rule: str, url: str | None = None, address: str | None = None, malformed: bool = False
) -> UrlNotAllowedError:
    """A UrlNotAllowedError whose hint fits the rule that refused (`malformed`: the URL's form is wrong, a typo)."""
    return UrlNotAllowedError(
        message, rule=rule, url=url, address=address, hint=RULE_HINTS.get(rule), malformed=malformed
    )


ADDRESS_RULES = MappingProxyType(
    {
        "cloud_metadata": "a cloud metadata endpoint",
        "this_network": "a this-network address (0.0.0.0/8 reaches the local host)",
        "private": "a private (RFC 1918) address",
        "cgnat": "a carrier-grade NAT address (100.64.0.0/10)",
        "loopback": "a loopback address",
        "link_local": "a link-local address",
        "ietf_protocol": "an IETF protocol-assignment address",
        "documentation": "a documentation-only address",
        "benchmarking": "a benchmarking address (198.18.0.0/15)",
        "6to4_relay": "in the deprecated 6to4 relay anycast range",
        "multicast": "a multicast address",
        "reserved": "a reserved address",
        "broadcast": "the broadcast address",
        "unspecified": "the unspecified address",
        "ipv4_compatible": "a deprecated IPv4-compatible IPv6 address",
        "ipv4_translated": "an IPv4-translated IPv6 address",
        "nat64_local_use": "a local-use NAT64 address (64:ff9b:1::/48)",
        "discard": "a discard-only IPv6 address",
        "teredo": "a Teredo tunnel address",
        "orchid": "an ORCHID identifier, not a routable address",
        "6to4": "a 6to4 tunnel address",
        "unique_local": "a unique-local IPv6 address (fc00::/7)",
        "site_local": "a deprecated site-local IPv6 address",
    }
)

_OPERATOR_CAN_ALLOW = (
    "Only public addresses can be read. If this is a private deployment the operator trusts, the operator can "
    "allow its network (allow_cidrs / --allow-cidr)."
)
RULE_HINTS = MappingProxyType(
    {
        **{rule: _OPERATOR_CAN_ALLOW for rule in ADDRESS_RULES},
        "cloud_metadata": "Cloud metadata endpoints are never readable, whatever the configuration.",
        "scheme": "Use an http:// or https:// URL.",
        "userinfo": "Remove the user:password@ part; credentials are never sent in URLs.",
        "control_character": "Remove control characters (percent-encode them if they belong in the path).",
        "whitespace": "Remove the whitespace (percent-encode it as %20 if it belongs in the path).",
        **{
            rule: "Pass a well-formed absolute http(s) URL."
            for rule in ("invalid_url", "url_too_long", "empty_host", "invalid_host", "ipv6_zone_id", "invalid_port")
        },
    }
)

# Most specific row wins (255.255.255.255 is broadcast, not just reserved).
DENY_TABLE: tuple[tuple[IPNetwork, str], ...] = tuple(
    (ip_network(cidr), rule)
    for cidr, rule in (
        ("0.0.0.0/8", "this_network"),
        ("10.0.0.0/8", "private"),
        ("100.64.0.0/10", "cgnat"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link_local"),
        ("172.16.0.0/12", "private"),
        ("192.0.0.0/24", "ietf_protocol"),
        ("192.0.2.0/24", "documentation"),
        ("192.88.99.0/24", "6to4_relay"),
        ("192.168.0.0/16", "private"),
        ("198.18.0.0/15", "benchmarking"),
        ("198.51.100.0/24", "documentation"),
        ("203.0.113.0/24", "documentation"),
        ("224.0.0.0/4", "multicast"),
        ("240.0.0.0/4", "reserved"),
        ("255.255.255.255/32", "broadcast"),
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("::/96", "ipv4_compatible"),
        ("::ffff:0:0:0/96", "ipv4_translated"),
        ("64:ff9b:1::/48", "nat64_local_use"),
        ("100::/64", "discard"),
        ("2001::/23", "ietf_protocol"),
        ("2001::/32", "teredo"),
        ("2001:10::/28", "orchid"),
        ("2001:20::/28", "orchid"),
        ("2001:db8::/32", "documentation"),
        ("2002::/16", "6to4"),
        ("3fff::/20", "documentation"),
        ("fc00::/7", "unique_local"),
        ("fe80::/10", "link_local"),
        ("fec0::/10", "site_local"),
        ("ff00::/8", "multicast"),
        # Outside global unicast 2000::/3 nothing is a public host; 64:ff9b::/96 is let through before this.
        ("::/3", "reserved"),
        ("4000::/2", "reserved"),
        ("8000::/1", "reserved"),
    )
)

# AWS, GCP, Azure, DigitalOcean, Hetzner (169.254.169.254), AWS ECS/EKS (169.254.170.2/.23, fd00:ec2::23),
# AWS IPv6 (fd00:ec2::254), GCP IPv6 (fd20:ce::254), Azure wireserver (168.63.129.16, public), Alibaba
# (100.100.100.200), Oracle (192.0.0.192), Scaleway (169.254.42.42, fd00:42::42), Rancher (169.254.169.250).
METADATA_ADDRESSES: frozenset[IPAddress] = frozenset(
    ip_address(text)
    for text in (
        "169.254.169.254",
        "169.254.169.250",
        "169.254.170.2",
        "169.254.170.23",
        "169.254.42.42",
        "168.63.129.16",
        "100.100.100.200",
        "192.0.0.192",
        "fd00:ec2::254",
        "fd00:ec2::23",
        "fd20:ce::254",
        "fd00:42::42",
    )
)

_COMPATIBLE = IPv6Network("::/96")
_TRANSLATED = IPv6Network("::ffff:0:0:0/96")
_NAT64 = IPv6Network("64:ff9b::/96")
_NAT64_LOCAL = IPv6Network("64:ff9b:1::/48")
_SIX_TO_FOUR = IPv6Network("2002::/16")
_TEREDO = IPv6Network("2001::/32")
_ISATAP_IDS = (0x00005EFE, 0x02005EFE)
_RFC6052_PREFIXES = (32, 40, 48, 56, 64, 96)


def canonical(ip: IPAddress) -> IPAddress:
    """The address a connect would really use: IPv4-mapped IPv6 becomes IPv4; any IPv6 zone id is dropped."""
    if isinstance(ip, IPv6Address):
        return ip.ipv4_mapped or (IPv6Address(int(ip)) if ip.scope_id else ip)
    return ip


def _v4(value: int) -> IPv4Address:
    return IPv4Address(value & 0xFFFFFFFF)


def _rfc6052(ip: IPv6Address, prefix_len: int) -> IPv4Address:
    """The IPv4 an RFC 6052 translator with this prefix length would reach (octet 8, the u octet, is skipped)."""
    octets = [ip.packed[i] for i in range(prefix_len // 8, 16) if i != 8][:4]
    return IPv4Address(bytes(octets))


def embedded_ipv4(ip: IPv6Address) -> tuple[tuple[str, IPv4Address], ...]:
    """The IPv4 addresses an IPv6 transition form carries, each with the form's name."""
    n = int(ip)
    found: list[tuple[str, IPv4Address]] = []
    if ip in _COMPATIBLE and n > 1:  # :: and ::1 are their own rows
        found.append(("IPv4-compatible", _v4(n)))
    if ip in _TRANSLATED:
        found.append(("IPv4-translated", _v4(n)))
    if ip in _NAT64 or ip in _NAT64_LOCAL:
        found.append(("NAT64", _v4(n)))
    if ip in _SIX_TO_FOUR:
        found.append(("6to4", _v4(n >> 80)))
    if ip in _TEREDO:
        found += [("Teredo client", _v4(~n)), ("Teredo server", _v4(n >> 64))]
    if (n >> 32) & 0xFFFFFFFF in _ISATAP_IDS:
        found.append(("ISATAP", _v4(n)))
    return tuple(found)


def _metadata_candidates(ip: IPv6Address) -> Iterator[IPv4Address]:
    for prefix_len in _RFC6052_PREFIXES:
        yield _rfc6052(ip, prefix_len)
    yield _v4(int(ip) >> 80)  # 6to4
    yield _v4(~int(ip))  # Teredo client


def table_rule(ip: IPAddress) -> str | None:
    """The deny-table rule for this address (most specific row), or None when no row matches."""
    best: tuple[int, str] | None = None
    for network, rule in DENY_TABLE:
        if ip in network and (best is None or network.prefixlen > best[0]):
            best = (network.prefixlen, rule)
    return best[1] if best else None


@dataclass(frozen=True, slots=True)
class Denial:
    """Why an address is refused: the rule, the address, and the IPv4 inside it when that decided."""

    rule: str
    address: IPAddress
    via: tuple[str, IPv4Address] | None = None

    def phrase(self) -> str:
        """'10.0.0.5, which is a private (RFC 1918) address' (or the embedded IPv4 that decided)."""
        description = ADDRESS_RULES[self.rule]
        if self.via is None:
            return f"{self.address}, which is {description}"
        form, inner = self.via
        return f"{self.address}, which carries {inner} ({form}), {description}"


def _parse_cidr(cidr: str | IPNetwork) -> IPNetwork:
    if not isinstance(cidr, str):
        return cidr
    try:
        return ip_network(cidr.strip())
    except ValueError as exc:
        raise InvalidInputError(f"allow_cidrs: {cidr!r} is not a CIDR network ({exc}).") from exc


class AddressPolicy:
    """The deny table plus the operator's allowed CIDRs; cloud-metadata addresses stay denied regardless."""

    def __init__(self, allow_cidrs: Iterable[str | IPNetwork] = ()) -> None:
        self.allow_cidrs: tuple[IPNetwork, ...] = tuple(_parse_cidr(cidr) for cidr in allow_cidrs)

    def denial(self, ip: IPAddress | str) -> Denial | None:
        """Why this address is refused, or None when it may be reached."""
        address = canonical(ip_address(ip) if isinstance(ip, str) else ip)
        if address in METADATA_ADDRESSES:
            return Denial("cloud_metadata", address)
        if isinstance(address, IPv6Address):
            if any(inner in METADATA_ADDRESSES for inner in _metadata_candidates(address)):
                return Denial("cloud_metadata", address)
            for form, inner in embedded_ipv4(address):
                refused = self.denial(inner)
                if refused is not None:
                    return Denial(refused.rule, address, (form, inner))
        if any(address in network for network in self.allow_cidrs):
            return None
        if address in _NAT64:
            return None  # its IPv4 passed above
        rule = table_rule(address)
        return Denial(rule, address) if rule else None

    def check_address(self, ip: IPAddress | str) -> None:
        """Raise UrlNotAllowedError naming the rule when this address may not be reached."""
        refused = self.denial(ip)
        if refused is not None:
            raise refusal(
                f"Refused (rule {refused.rule}): {refused.phrase()}.", rule=refused.rule, address=str(refused.address)
            )
