"""The URL guard: the SSRF case table, the approved target it hands the transport, and its typed errors."""

from __future__ import annotations

import socket
from ipaddress import IPv4Address, IPv6Address, ip_address

import httpx
import pytest

from webreach.errors import InvalidInputError, WebreachError
from webreach.net import (
    AddressPolicy,
    FetchError,
    Guard,
    HostResolutionError,
    IPAddress,
    StaticResolver,
    SystemResolver,
    UrlNotAllowedError,
    parse_url,
)
from webreach.net.address_policy import ADDRESS_RULES, DENY_TABLE, RULE_HINTS, embedded_ipv4
from webreach.net.guard import mask_userinfo
from webreach.net.resolvers import OfflineAwareResolver, OfflineResolver

from .ssrf_cases import CASES
from .ssrf_core import ALLOW, FAKE_DNS, Case, render, summarize, verdict


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
async def test_ssrf_table(case: Case) -> None:
    assert await verdict(case) == case.expect


def test_case_ids_are_unique() -> None:
    ids = [case.id for case in CASES]
    assert len(ids) == len(set(ids))


def test_every_address_rule_is_exercised_by_the_table() -> None:
    expected = {case.expect for case in CASES}
    assert set(ADDRESS_RULES) <= expected
    assert {"scheme", "userinfo", "control_character", "whitespace", "invalid_url", "invalid_host"} <= expected
    assert {"empty_host", "ipv6_zone_id", "invalid_port", "url_too_long", ALLOW} <= expected


def test_every_deny_row_has_a_description_and_a_hint() -> None:
    for _, rule in DENY_TABLE:
        assert rule in ADDRESS_RULES
        assert rule in RULE_HINTS


async def test_summary_counts_every_case_once_and_all_as_expected() -> None:
    outcomes = [(case, await verdict(case)) for case in CASES]
    rows = summarize(outcomes)
    assert sum(row.cases for row in rows) == len(CASES)
    assert all(row.as_expected == row.cases == row.blocked + row.allowed for row in rows)
    assert render(rows).splitlines()[-1].startswith("| **total** | " + str(len(CASES)))


def guard(*allow_cidrs: str) -> Guard:
    return Guard(AddressPolicy(allow_cidrs), StaticResolver(FAKE_DNS))


async def test_approved_name_carries_normalized_url_port_and_every_validated_address() -> None:
    target = await guard().check("HTTPS://Dual.Example./path?q=1#frag")
    assert str(target.url) == "https://dual.example/path?q=1#frag"
    assert (target.scheme, target.host, target.port) == ("https", "dual.example", 443)
    assert target.addresses == (ip_address("93.184.216.34"), ip_address("2606:2800:220:1:248:1893:25c8:1946"))
    assert target.host_header == "dual.example"
    assert target.sni_hostname == "dual.example"
    assert not target.is_ip_literal


async def test_numeric_host_is_rewritten_to_the_address_it_denotes() -> None:
    target = await guard().check("http://134744072:8080/x")
    assert str(target.url) == "http://8.8.8.8:8080/x"
    assert target.addresses == (IPv4Address("8.8.8.8"),)
    assert target.host_header == "8.8.8.8:8080"
    assert target.sni_hostname is None


async def test_ipv6_literal_is_compressed_and_bracketed_in_the_host_header() -> None:
    target = await guard().check("https://[2001:4860:4860:0000::8888]:8443/")
    assert target.host == "2001:4860:4860::8888"
    assert target.host_header == "[2001:4860:4860::8888]:8443"
    assert target.addresses == (IPv6Address("2001:4860:4860::8888"),)


async def test_mapped_literal_pins_the_ipv4_address_a_socket_would_reach() -> None:
    target = await guard().check("http://[::ffff:8.8.8.8]/")
    assert target.addresses == (IPv4Address("8.8.8.8"),)


async def test_idn_host_is_resolved_and_sent_as_punycode() -> None:
    target = await guard().check("http://MÜNCHEN.example/")
    assert target.host == "xn--mnchen-3ya.example"
    assert target.url.raw_host == b"xn--mnchen-3ya.example"


class RecordingResolver:
    """Answers like StaticResolver and remembers every question."""

    def __init__(self, answers: dict[str, list[str]]) -> None:
        self.inner = StaticResolver(answers)
        self.asked: list[tuple[str, int]] = []

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        self.asked.append((host, port))
        return await self.inner.resolve(host, port)


async def test_resolver_is_asked_once_with_the_normalized_host_and_effective_port() -> None:
    resolver = RecordingResolver({"public.example": ["93.184.216.34", "93.184.216.34", "::ffff:93.184.216.34"]})
    target = await Guard(AddressPolicy(), resolver).check("https://PUBLIC.example.:8443/")
    assert resolver.asked == [("public.example", 8443)]
    assert target.addresses == (IPv4Address("93.184.216.34"),)


async def test_ip_literals_and_localhost_never_reach_the_resolver() -> None:
    resolver = RecordingResolver({})
    checker = Guard(AddressPolicy(["127.0.0.0/8", "::1/128"]), resolver)
    await checker.check("http://8.8.8.8/")
    await checker.check("http://[2001:4860:4860::8888]/")
    local = await checker.check("http://localhost:8000/")
    assert resolver.asked == []
    assert local.addresses == (IPv4Address("127.0.0.1"), IPv6Address("::1"))


async def test_refusal_names_the_rule_the_host_and_the_address() -> None:
    with pytest.raises(UrlNotAllowedError) as caught:
        await guard().check("http://rebind.example/")
    error = caught.value
    assert isinstance(error, FetchError) and isinstance(error, WebreachError)
    assert (error.code, error.rule, error.retryable) == ("url_not_allowed", "loopback", False)
    assert error.address == "127.0.0.1"
    assert error.url == "http://rebind.example/"
    assert "rule loopback" in str(error) and "rebind.example resolves to 127.0.0.1" in str(error)
    assert "allow_cidrs" in str(error)  # what the agent (or its operator) can do
    body = error.to_dict()
    assert body["code"] == "url_not_allowed" and body["rule"] == "loopback"


async def test_refusal_of_a_transition_form_names_the_ipv4_inside() -> None:
    with pytest.raises(UrlNotAllowedError) as caught:
        await guard().check("http://[64:ff9b::10.0.0.1]/")
    assert caught.value.rule == "private"
    assert "carries 10.0.0.1 (NAT64)" in str(caught.value)


async def test_metadata_refusal_says_no_configuration_opens_it() -> None:
    with pytest.raises(UrlNotAllowedError) as caught:
        await guard("0.0.0.0/0").check("http://168.63.129.16/")
    assert caught.value.rule == "cloud_metadata"
    assert "never readable" in caught.value.hint


@pytest.mark.parametrize(
    ("url", "rule", "hint_says"),
    [
        ("ftp://public.example/", "scheme", "http://"),
        ("http://user:pw@public.example/", "userinfo", "user:password@"),
        ("http://public.example/\x00", "control_character", "control characters"),
        ("http://public.example/a b", "whitespace", "%20"),
        ("http://[]/", "invalid_url", "well-formed"),
    ],
    ids=["scheme", "userinfo", "control character", "whitespace", "invalid url"],
)
def test_form_refusals_say_how_to_fix_the_url(url: str, rule: str, hint_says: str) -> None:
    with pytest.raises(UrlNotAllowedError) as caught:
        parse_url(url)
    assert caught.value.rule == rule
    assert hint_says in caught.value.hint


class FailingResolver:
    def __init__(self, error: Exception) -> None:
        self.error = error

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        raise self.error


class EmptyResolver:
    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        return []


@pytest.mark.parametrize(
    ("resolver", "reason"),
    [
        (FailingResolver(socket.gaierror(socket.EAI_NONAME, "Name or service not known")), "not_found"),
        (FailingResolver(socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")), "failed"),
        (FailingResolver(TimeoutError()), "timeout"),
        (FailingResolver(ConnectionResetError()), "failed"),
        (EmptyResolver(), "no_addresses"),
    ],
    ids=["nxdomain", "servfail", "timeout", "os error", "empty answer"],
)
async def test_resolution_failures_are_typed_unavailable(resolver: object, reason: str) -> None:
    with pytest.raises(HostResolutionError) as caught:
        await Guard(AddressPolicy(), resolver).check("http://public.example/")  # type: ignore[arg-type]
    error = caught.value
    assert (error.code, error.retryable, error.reason, error.host) == ("unavailable", True, reason, "public.example")
    assert error.hint


async def test_static_resolver_normalizes_names_and_falls_back() -> None:
    fallback = StaticResolver({"other.example": ["8.8.4.4"]})
    resolver = StaticResolver({"Public.Example.": ["8.8.8.8"], "münchen.example": ["1.1.1.1"]}, fallback=fallback)
    assert await resolver.resolve("public.example", 80) == [IPv4Address("8.8.8.8")]
    assert await resolver.resolve("xn--mnchen-3ya.example", 80) == [IPv4Address("1.1.1.1")]
    assert await resolver.resolve("other.example", 80) == [IPv4Address("8.8.4.4")]
    with pytest.raises(socket.gaierror):
        await fallback.resolve("missing.example", 80)


async def test_system_resolver_answers_numeric_hosts_without_dns() -> None:
    resolver = SystemResolver(timeout=5.0)
    assert await resolver.resolve("127.0.0.1", 80) == [IPv4Address("127.0.0.1")]
    assert await resolver.resolve("::1", 80) == [IPv6Address("::1")]


async def test_default_guard_refuses_loopback_literals() -> None:
    with pytest.raises(UrlNotAllowedError) as caught:
        await Guard().check("http://127.0.0.1:8080/")
    assert caught.value.rule == "loopback"


def test_policy_check_address_raises_with_the_rule() -> None:
    policy = AddressPolicy(["10.0.0.0/8"])
    policy.check_address("10.9.9.9")
    policy.check_address(IPv6Address("::ffff:10.9.9.9"))
    with pytest.raises(UrlNotAllowedError) as caught:
        policy.check_address("::ffff:192.168.0.1")
    assert (caught.value.rule, caught.value.address) == ("private", "192.168.0.1")
    assert policy.denial("2606:4700:4700::1111") is None


def test_allow_cidrs_must_be_networks() -> None:
    with pytest.raises(InvalidInputError, match=r"10\.1\.2\.3/8"):
        AddressPolicy(["10.1.2.3/8"])
    with pytest.raises(InvalidInputError):
        AddressPolicy(["intranet"])
    assert AddressPolicy([" 10.0.0.0/8 ", "192.168.1.5"]).allow_cidrs[1].num_addresses == 1


def test_transition_forms_decode_the_ipv4_they_carry() -> None:
    def forms(ip: str) -> list[tuple[str, str]]:
        return [(form, str(inner)) for form, inner in embedded_ipv4(IPv6Address(ip))]

    assert forms("::7f00:1") == [("IPv4-compatible", "127.0.0.1")]
    assert forms("::ffff:0:a00:1") == [("IPv4-translated", "10.0.0.1")]
    assert forms("64:ff9b::808:808") == [("NAT64", "8.8.8.8")]
    assert forms("2002:c000:201::1") == [("6to4", "192.0.2.1")]
    assert forms("2001:0:4136:e378:8000:63bf:3fff:fdd2") == [
        ("Teredo client", "192.0.2.45"),
        ("Teredo server", "65.54.227.120"),
    ]
    assert forms("fe80::5efe:c0a8:101") == [("ISATAP", "192.168.1.1")]
    assert forms("2001:4860:4860::8888") == []


ODD_CHARACTERS = [chr(code) for code in range(0x250)] + list(
    "。｡．０①ⓐ\u200b\u200e\u202e\u2028\u3000\ud800\ufeff\uffff𝟏"
)
URL_TEMPLATES = [
    "{c}http://public.example/",
    "ht{c}tp://public.example/",
    "http://pub{c}lic.example/",
    "http://public.example{c}/",
    "http://public.example:8{c}0/",
    "http://[::{c}1]/",
    "http://0x7f{c}.1/",
]


def test_odd_characters_anywhere_give_an_approval_or_a_typed_refusal() -> None:
    outcomes: set[str] = set()
    for template in URL_TEMPLATES:
        for char in ODD_CHARACTERS:
            try:
                parsed = parse_url(template.format(c=char))
            except UrlNotAllowedError as exc:
                outcomes.add(exc.rule)
            else:
                assert parsed.host.isascii() and parsed.host == parsed.host.lower()
                outcomes.add(ALLOW)
    assert {"control_character", "whitespace", "invalid_url", ALLOW} <= outcomes


def test_parse_url_accepts_httpx_urls() -> None:
    parsed = parse_url(httpx.URL("http://0x7f.1:81/"))
    assert (parsed.host, parsed.port, parsed.literal) == ("127.0.0.1", 81, IPv4Address("127.0.0.1"))


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://user:hunter2@example.com/", "http://***@example.com/"),
        ("https://user@example.com:8443/a?b=c", "https://***@example.com:8443/a?b=c"),
        ("http://:@example.com/", "http://***@example.com/"),
        ("http://good\\@127.0.0.1/", "http://***@127.0.0.1/"),
        ("ftp://u:p@files.example/x", "ftp://***@files.example/x"),
        ("http://u:p@[::1]:80/", "http://***@[::1]:80/"),
        ("//u:p@example.com/", "//***@example.com/"),
        ("https://medium.com/@someone/post", "https://medium.com/@someone/post"),  # an @ in the path is no userinfo
        ("http://example.com/?mail=a@b.example", "http://example.com/?mail=a@b.example"),
        ("http://example.com/", "http://example.com/"),
    ],
)
def test_mask_userinfo_hides_credentials_and_nothing_else(url: str, shown: str) -> None:
    assert mask_userinfo(url) == shown
    assert mask_userinfo(shown) == shown  # masking twice changes nothing


@pytest.mark.parametrize(
    "url",
    [
        "http://admin:hunter2@public.example/",  # refused for the userinfo itself
        "ftp://admin:hunter2@public.example/",  # refused for the scheme, before userinfo is looked at
        "http://admin:hunter2@public.example/a b",  # refused for the whitespace
        "http://admin:hunter2@public.example/" + "a" * 9000,  # refused for the length, cut after 100 characters
        "http://admin:hunter2" + "x" * 200 + "@public.example/" + "a" * 9000,  # userinfo longer than the cut
    ],
    ids=["userinfo", "scheme", "whitespace", "too long", "long userinfo"],
)
def test_refusals_never_echo_credentials(url: str) -> None:
    with pytest.raises(UrlNotAllowedError) as caught:
        parse_url(url)
    error = caught.value
    for text in (str(error), error.message, error.url or "", str(error.to_dict())):
        assert "hunter2" not in text
        assert "admin" not in text
    assert "***@" in error.message


async def test_offline_resolver_says_offline_instead_of_blaming_dns() -> None:
    with pytest.raises(HostResolutionError) as caught:
        await Guard(AddressPolicy(), OfflineResolver()).check("https://docs.python.org/3/")
    error = caught.value
    assert (error.code, error.reason, error.host) == ("unavailable", "offline", "docs.python.org")
    assert "offline mode (fake web)" in error.message
    assert "only the fake web's own pages can be read" in error.message
    assert "static resolver" not in str(error)
    assert "does not exist in DNS" not in str(error)
    assert "WEBREACH_FAKE_WEB" in error.hint


async def test_offline_resolver_still_lets_literals_and_localhost_through() -> None:
    guard = Guard(AddressPolicy(["127.0.0.0/8", "::1/128"]), OfflineResolver())
    assert (await guard.check("http://8.8.8.8/")).addresses == (IPv4Address("8.8.8.8"),)
    assert (await guard.check("http://127.0.0.1:8765/_pages/x")).addresses == (IPv4Address("127.0.0.1"),)
    assert IPv4Address("127.0.0.1") in (await guard.check("http://localhost:8765/")).addresses


async def test_a_read_on_a_machine_that_resolves_nothing_says_offline_not_typo() -> None:
    """Issue 41: offline, a read said the name "does not exist in DNS; check for typos" while search said the
    machine looks offline. The default resolver asks once for a name that always exists before blaming the name."""
    nothing_resolves = OfflineAwareResolver(StaticResolver({}))
    with pytest.raises(HostResolutionError) as caught:
        await Guard(AddressPolicy(), nothing_resolves).check("https://docs.python.org/3/")
    error = caught.value
    assert (error.code, error.reason, error.host, error.retryable) == (
        "unavailable",
        "machine_offline",
        "docs.python.org",
        True,
    )
    assert "this machine looks offline" in error.message
    assert "typo" not in str(error)
    assert "webreach fakeweb --port 8765" in str(error)  # what to do: the fake web


async def test_a_missing_name_on_a_machine_that_resolves_others_is_still_not_found() -> None:
    online = OfflineAwareResolver(StaticResolver({"example.com": ["93.184.215.14"]}))
    with pytest.raises(HostResolutionError) as caught:
        await Guard(AddressPolicy(), online).check("https://docs.pyhton.org/3/")
    assert caught.value.reason == "not_found"
    assert "typos" in str(caught.value)


def test_the_default_resolvers_are_offline_aware() -> None:
    assert isinstance(Guard().resolver, OfflineAwareResolver)
