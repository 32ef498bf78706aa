"""The machinery of the SSRF case table: the case type, the shared fake DNS, the generated range cases, the summary.

The range rows are written from security.md section 3, not read from the guard's own table, so the generated
edge cases check the guard against the reference rather than against itself.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv6Address, ip_network
from types import MappingProxyType

from webreach.net import AddressPolicy, Guard, HostResolutionError, StaticResolver, UrlNotAllowedError

ALLOW = "allow"

FAKE_DNS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "public.example": ("93.184.216.34",),
        "dual.example": ("93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"),
        "xn--mnchen-3ya.example": ("93.184.216.34",),
        "a_b.public.example": ("93.184.216.34",),
        "nat64.example": ("64:ff9b::5db8:d822",),
        "internal.example": ("10.0.0.5",),
        "corp.example": ("172.20.1.1",),
        "home.example": ("192.168.1.10",),
        "intranet.example": ("10.1.2.3",),
        "loop.example": ("127.0.0.1",),
        "127.0.0.1.nip.io": ("127.0.0.1",),
        "localtest.me": ("127.0.0.1",),
        "v6loop.example": ("::1",),
        "ula.example": ("fd12:3456::1",),
        "linklocal.example": ("fe80::1",),
        "mapped.example": ("::ffff:10.0.0.1",),
        "cgnat.example": ("100.64.0.1",),
        "zero.example": ("0.0.0.0",),
        "fakeip.example": ("198.18.0.1",),
        "metadata.google.internal": ("169.254.169.254",),
        "alibaba-meta.example": ("100.100.100.200",),
        "nat64-meta.example": ("64:ff9b::a9fe:a9fe",),
        "rebind.example": ("93.184.216.34", "127.0.0.1"),
        "private-first.example": ("10.0.0.1", "93.184.216.34"),
        "mixed-v6.example": ("93.184.216.34", "fd00::1"),
        "mixed-meta.example": ("2606:4700::1111", "169.254.169.254"),
    }
)


@dataclass(frozen=True, slots=True)
class Case:
    category: str
    name: str
    url: str
    expect: str
    allow_cidrs: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return f"{self.category}: {self.name}"


async def verdict(case: Case) -> str:
    """ALLOW, the refusing rule, or 'unavailable:<reason>' when the name did not resolve."""
    guard = Guard(AddressPolicy(case.allow_cidrs), StaticResolver(FAKE_DNS))
    try:
        await guard.check(case.url)
    except UrlNotAllowedError as exc:
        return exc.rule
    except HostResolutionError as exc:
        return f"unavailable:{exc.reason}"
    return ALLOW


def url_for(ip: str) -> str:
    """http://ip/ with IPv6 bracketed."""
    return f"http://[{ip}]/" if ":" in ip else f"http://{ip}/"


# (category, CIDR, rule), from security.md section 3; the first and last address of each row are cases.
RANGES = (
    ("this-network 0/8", "0.0.0.0/8", "this_network"),
    ("private RFC 1918", "10.0.0.0/8", "private"),
    ("private RFC 1918", "172.16.0.0/12", "private"),
    ("private RFC 1918", "192.168.0.0/16", "private"),
    ("CGNAT 100.64/10", "100.64.0.0/10", "cgnat"),
    ("loopback 127/8", "127.0.0.0/8", "loopback"),
    ("link-local 169.254/16", "169.254.0.0/16", "link_local"),
    ("IETF protocol 192.0.0/24", "192.0.0.0/24", "ietf_protocol"),
    ("documentation TEST-NETs", "192.0.2.0/24", "documentation"),
    ("documentation TEST-NETs", "198.51.100.0/24", "documentation"),
    ("documentation TEST-NETs", "203.0.113.0/24", "documentation"),
    ("benchmarking 198.18/15", "198.18.0.0/15", "benchmarking"),
    ("multicast, reserved, broadcast", "224.0.0.0/4", "multicast"),
    ("multicast, reserved, broadcast", "240.0.0.0/4", "reserved"),
    ("multicast, reserved, broadcast", "255.255.255.255/32", "broadcast"),
    ("IPv6 unspecified, loopback", "::/128", "unspecified"),
    ("IPv6 unspecified, loopback", "::1/128", "loopback"),
    ("IPv6 documentation, discard, ORCHID", "2001:db8::/32", "documentation"),
    ("IPv6 documentation, discard, ORCHID", "3fff::/20", "documentation"),
    ("IPv6 documentation, discard, ORCHID", "100::/64", "discard"),
    ("IPv6 documentation, discard, ORCHID", "2001:10::/28", "orchid"),
    ("IPv6 documentation, discard, ORCHID", "2001:20::/28", "orchid"),
    ("IPv6 ULA fc00::/7", "fc00::/7", "unique_local"),
    ("IPv6 link-local fe80::/10", "fe80::/10", "link_local"),
    ("IPv6 site-local fec0::/10", "fec0::/10", "site_local"),
    ("IPv6 multicast ff00::/8", "ff00::/8", "multicast"),
)
# A more specific row wins at an edge shared with a wider one.
EDGE_OVERRIDES = MappingProxyType({"255.255.255.255": "broadcast"})


def range_cases() -> list[Case]:
    cases = []
    for category, cidr, rule in RANGES:
        network = ip_network(cidr)
        for label, ip in (("first", network[0]), ("last", network[-1])):
            cases.append(Case(category, f"{cidr} {label} {ip}", url_for(str(ip)), EDGE_OVERRIDES.get(str(ip), rule)))
    return cases


def teredo(client: IPv4Address) -> str:
    """A Teredo address (server 65.54.227.120, cone flag) whose client is `client`, XOR-ed as on the wire."""
    server = int(IPv4Address("65.54.227.120"))
    return str(
        IPv6Address((0x20010000 << 96) | (server << 64) | (0x8000 << 48) | (0x63BF << 32) | (~int(client) & 0xFFFFFFFF))
    )


# Each IPv4 category's middle address inside every transition form must be refused under the IPv4 rule.
FORMS = (
    ("IPv4-mapped/compatible/translated", "mapped", lambda v4: f"::ffff:{v4}"),
    ("IPv4-mapped/compatible/translated", "compatible", lambda v4: f"::{v4}"),
    ("IPv4-mapped/compatible/translated", "translated", lambda v4: f"::ffff:0:{v4}"),
    ("NAT64 64:ff9b::/96, 64:ff9b:1::/48", "NAT64", lambda v4: f"64:ff9b::{v4}"),
    ("NAT64 64:ff9b::/96, 64:ff9b:1::/48", "local NAT64", lambda v4: f"64:ff9b:1::{v4}"),
    ("6to4 2002::/16", "6to4", lambda v4: str(IPv6Address((0x2002 << 112) | (int(IPv4Address(v4)) << 80) | 1))),
    ("Teredo 2001::/32", "Teredo", lambda v4: teredo(IPv4Address(v4))),
)


def transition_cases() -> list[Case]:
    cases = []
    for _, cidr, rule in RANGES:
        network = ip_network(cidr)
        if network.version != 4:
            continue
        middle = str(network[network.num_addresses // 2])
        for category, form, build in FORMS:
            cases.append(Case(category, f"{form} of {middle} ({rule})", url_for(build(middle)), rule))
    public = {
        "mapped": ALLOW,
        "compatible": "ipv4_compatible",
        "translated": "ipv4_translated",
        "NAT64": ALLOW,
        "local NAT64": "nat64_local_use",
        "6to4": "6to4",
        "Teredo": "teredo",
    }
    for category, form, build in FORMS:
        cases.append(Case(category, f"{form} of public 8.8.8.8", url_for(build("8.8.8.8")), public[form]))
    return cases


def cases_in(category: str, entries: list[tuple[str, str, str]], allow_cidrs: tuple[str, ...] = ()) -> list[Case]:
    """Cases from (name, url, expected verdict) rows sharing a category and the operator's allowed CIDRs."""
    return [Case(category, name, url, expect, allow_cidrs) for name, url, expect in entries]


@dataclass(frozen=True, slots=True)
class Row:
    category: str
    cases: int
    blocked: int
    allowed: int
    as_expected: int


def summarize(outcomes: list[tuple[Case, str]]) -> list[Row]:
    """Cases per category, in table order, with blocked/allowed counts and how many matched their expectation."""
    counts: dict[str, Counter[str]] = {}
    for case, got in outcomes:
        tally = counts.setdefault(case.category, Counter())
        tally["cases"] += 1
        tally["allowed" if got == ALLOW else "blocked"] += 1
        tally["as_expected"] += got == case.expect
    return [Row(category, t["cases"], t["blocked"], t["allowed"], t["as_expected"]) for category, t in counts.items()]


def render(rows: list[Row]) -> str:
    """The summary as a Markdown table (pasted into the closing note)."""
    lines = ["| category | cases | blocked | allowed | as expected |", "| --- | ---: | ---: | ---: | ---: |"]
    lines += [f"| {r.category} | {r.cases} | {r.blocked} | {r.allowed} | {r.as_expected} |" for r in rows]
    total = Row(
        "**total**", *(sum(getattr(r, f) for r in rows) for f in ("cases", "blocked", "allowed", "as_expected"))
    )
    lines.append(f"| {total.category} | {total.cases} | {total.blocked} | {total.allowed} | {total.as_expected} |")
    return "\n".join(lines)
