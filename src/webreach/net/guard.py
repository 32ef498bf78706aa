"""The URL guard: every agent-supplied URL passes here before any connection is made.

`Guard.check(url)` parses the URL with httpx's own parser (so the guard and the client never disagree), checks
its form, resolves the host once through an injected `Resolver`, judges every address with an `AddressPolicy`,
and returns an `ApprovedTarget`. The transport connects only to `ApprovedTarget.addresses` (pinned, with Host and
SNI of the original name), so DNS is never asked twice.

Decisions, in the order the checks run (each refusal is UrlNotAllowedError with the rule in brackets):
- The raw text: at most 8192 characters [url_too_long]; no control characters [control_character] and no
  whitespace anywhere [whitespace]. urllib strips a leading blank that httpx reads as a relative URL; refusing
  both removes the disagreement.
- httpx must parse it [invalid_url]; the scheme is http or https [scheme]; there is no userinfo, not even a bare
  `@` in the authority [userinfo] (`http://good\\@127.0.0.1/` puts the `@` there).
- The host is lower-cased and IDNA-encoded as httpx does (fullwidth and ideographic dots become `.`; httpx
  refuses circled and fullwidth digits), one trailing dot is dropped, and labels must be 1-63 characters of
  [a-z0-9_-] [invalid_host] (so no percent-encoded hosts). IPv6 literals may not carry a zone id [ipv6_zone_id].
- Legacy numeric IPv4 forms are read the way inet_aton and the WHATWG URL standard read them (2130706433,
  0x7f.1, 127.1, 017700000001) and replaced by the dotted quad they denote, which is then checked: a public
  `http://134744072/` works and becomes `http://8.8.8.8/`. A host whose last label is numeric but which is no
  valid IPv4 (1.2.3.4.5, 0x.1.1.1, 4294967296) is refused [invalid_host] rather than handed to DNS. (Forms of
  four all-decimal parts with leading zeros, such as 0177.0.0.1, httpx itself refuses [invalid_url].)
- Names are judged only by the addresses they resolve to (names like 127.0.0.1.nip.io exist to defeat name
  lists). `localhost` and `*.localhost` answer 127.0.0.1 and ::1 without asking DNS (RFC 6761), so they are
  refused as loopback, and an operator who allows both loopback networks can use them.
- Any port 1-65535 is allowed: the deny table is about addresses, and a public site on 8080 is legitimate. The
  port must be written in ASCII digits [invalid_port], since httpx's int() also reads "+80", "8_0" and "٨٠"; the
  scheme's default port is used when none is given.
- Resolution: every returned address must pass; one private answer among public ones refuses the whole name
  (fail closed, as pydantic-ai does, rather than picking a good record). Resolution failures are not policy
  refusals: they raise HostResolutionError (code unavailable, retryable) with reason not_found, timeout,
  no_addresses or failed, or machine_offline when not even a well-known name resolves (OfflineAwareResolver,
  the default: a read offline says the machine is offline, not that the name has a typo). Resolvers bound
  their own time (SystemResolver: 5 s, as smokescreen does); they live in net/resolvers.py.
  OfflineResolver (the Gateway's in fake-web mode) resolves nothing and says so: reason offline.
- Offline (fake-web) mode also gives the guard an `OfflineScope` (net/offline.py): then only the fake web's own
  address and port pass, IP literals and allowed CIDRs included, and everything else is refused [offline].
- Refusal messages and their `url` never repeat credentials: userinfo is shown as *** (`mask_userinfo`), so
  `http://user:pw@host/` cannot echo a password into CLI, REST or MCP output or into logs.
"""

from __future__ import annotations

import re
import socket
import unicodedata
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv6Address, ip_address
from types import MappingProxyType
from typing import Protocol

import httpx

from webreach.errors import HostResolutionError, UrlNotAllowedError
from webreach.net.address_policy import AddressPolicy, Denial, IPAddress, canonical, refusal
from webreach.net.resolvers import NOT_FOUND_ERRNOS, Resolver, system_resolver

MAX_URL_LENGTH = 8192
DEFAULT_PORTS = MappingProxyType({"http": 80, "https": 443})
LOCALHOST_ADDRESSES: tuple[IPAddress, ...] = (IPv4Address("127.0.0.1"), IPv6Address("::1"))

_LABEL = re.compile(r"[a-z0-9_-]{1,63}")
_NUMERIC_LABEL = re.compile(r"[0-9]+|0x[0-9a-f]*")
_HEX = re.compile(r"[0-9a-f]+")
_PORT = re.compile(r"[0-9]*")
_AUTHORITY = re.compile(r"(?:[^:/?#]+:)?//([^/?#]*)")
# the userinfo of an authority: after the scheme and its slashes (either kind, any number, as WHATWG parsers
# accept them), up to the last "@" before the path, query or fragment begins (the guard's reading of "@")
_USERINFO = re.compile(r"^((?:[^:/?#]*:)?[/\\]*)([^/?#]*@)", re.DOTALL)


def mask_userinfo(url: str | httpx.URL) -> str:
    """`url` as text with any user:password@ part shown as ***@, for messages and logs."""
    return _USERINFO.sub(r"\1***@", str(url), count=1)


@dataclass(frozen=True, slots=True)
class ParsedUrl:
    """A URL that passed the form checks: normalized, with its effective port and the IP when it names one."""

    url: httpx.URL
    host: str
    port: int
    literal: IPAddress | None


@dataclass(frozen=True, slots=True)
class ApprovedTarget:
    """A URL the guard approved and the only addresses the transport may connect to for it."""

    url: httpx.URL
    host: str
    port: int
    addresses: tuple[IPAddress, ...]

    @property
    def scheme(self) -> str:
        return self.url.scheme

    @property
    def is_ip_literal(self) -> bool:
        try:
            ip_address(self.host)
        except ValueError:
            return False
        return True

    @property
    def host_header(self) -> str:
        """The Host header for the pinned request: the original name, with the port when it is not the default."""
        name = f"[{self.host}]" if ":" in self.host else self.host
        return name if self.port == DEFAULT_PORTS[self.scheme] else f"{name}:{self.port}"

    @property
    def sni_hostname(self) -> str | None:
        """The TLS server name (None for IP literals, which carry no SNI)."""
        return None if self.is_ip_literal else self.host


# rules that say the text is not a well-formed URL (a typo), as opposed to a URL policy refuses
MALFORMED_RULES = frozenset(
    {"url_too_long", "control_character", "whitespace", "invalid_url", "empty_host", "invalid_host", "invalid_port"}
)


def _refuse(url: str, rule: str, why: str, *, malformed: bool | None = None) -> UrlNotAllowedError:
    shown = mask_userinfo(url)
    typo = rule in MALFORMED_RULES if malformed is None else malformed
    return refusal(f"Refused {shown!r} (rule {rule}): {why}.", rule=rule, url=shown, malformed=typo)


def _check_text(text: str) -> None:
    if len(text) > MAX_URL_LENGTH:
        raise _refuse(
            mask_userinfo(text)[:100] + "...",
            "url_too_long",
            f"the URL has {len(text)} characters, over {MAX_URL_LENGTH}",
        )
    for position, char in enumerate(text):
        if unicodedata.category(char) == "Cc":
            raise _refuse(text, "control_character", f"control character {char!r} at position {position}")
        if char.isspace():
            raise _refuse(text, "whitespace", f"whitespace {char!r} at position {position}")


def _legacy_number(label: str) -> int | None:
    if label.startswith("0x"):
        return int(label[2:], 16) if _HEX.fullmatch(label[2:]) else None
    if len(label) > 1 and label.startswith("0"):
        return int(label, 8) if set(label) <= set("01234567") else None
    return int(label) if label.isascii() and label.isdecimal() else None


def _legacy_ipv4(labels: list[str]) -> IPv4Address | None:
    """inet_aton's reading: a, a.b (8.24 bits), a.b.c (8.8.16), a.b.c.d; parts decimal, 0-octal or 0x-hex."""
    parts = [_legacy_number(label) for label in labels] if 1 <= len(labels) <= 4 else [None]
    if any(part is None for part in parts):
        return None
    *head, last = [part for part in parts if part is not None]
    if any(part > 255 for part in head) or last >= 256 ** (4 - len(head)):
        return None
    value = last
    for index, part in enumerate(head):
        value |= part << (24 - 8 * index)
    return IPv4Address(value)


def _normalize_host(url: str, raw_host: str) -> tuple[str, IPAddress | None]:
    """The host as it will be resolved and sent, and the IP address when the host is a literal."""
    if not raw_host:
        raise _refuse(url, "empty_host", "the URL has no host")
    if ":" in raw_host:  # httpx only leaves a colon in a bracketed IPv6 literal
        if "%" in raw_host:
            raise _refuse(url, "ipv6_zone_id", f"IPv6 zone ids ({raw_host!r}) are local-interface only")
        try:
            ip = IPv6Address(raw_host)
        except ValueError as exc:
            raise _refuse(url, "invalid_host", f"{raw_host!r} is not a valid IPv6 address") from exc
        return str(ip), ip
    host = raw_host.lower().removesuffix(".")
    labels = host.split(".")
    if len(host) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise _refuse(url, "invalid_host", f"{raw_host!r} is not a valid host name")
    if _NUMERIC_LABEL.fullmatch(labels[-1]):
        ipv4 = _legacy_ipv4(labels)
        if ipv4 is None:
            raise _refuse(url, "invalid_host", f"{raw_host!r} ends in a number but is not a valid IPv4 address")
        return str(ipv4), ipv4
    return host, None


def parse_url(url: str | httpx.URL) -> ParsedUrl:
    """Check the URL's form without touching the network; raise UrlNotAllowedError naming the rule."""
    text = str(url)
    _check_text(text)
    try:
        parsed = httpx.URL(text)
    except (httpx.InvalidURL, UnicodeError) as exc:  # lone surrogates fail in httpx's encoder
        raise _refuse(text, "invalid_url", f"it is not a valid URL ({exc})") from exc
    if parsed.scheme not in DEFAULT_PORTS:
        scheme = parsed.scheme or "no scheme"
        # no scheme at all is a typo (example.org/page); another scheme (file:, ftp:) is one policy refuses
        raise _refuse(
            text, "scheme", f"{scheme} is not allowed, only absolute http and https URLs", malformed=not parsed.scheme
        )
    match = _AUTHORITY.match(text)
    authority = match.group(1) if match else ""
    if parsed.userinfo or "@" in authority:
        raise _refuse(text, "userinfo", "URLs carrying credentials (user:password@host) are refused")
    host, literal = _normalize_host(text, parsed.raw_host.decode("ascii", "replace"))
    # httpx reads the port with int(), which also takes "+80", "8_0" and non-ASCII digits; no other client does.
    port_text = authority.rpartition("]")[2].partition(":")[2]
    port = DEFAULT_PORTS[parsed.scheme] if parsed.port is None else parsed.port
    if not _PORT.fullmatch(port_text) or not 0 < port < 65536:
        raise _refuse(text, "invalid_port", f"port {port_text!r} is not a number in 1-65535")
    return ParsedUrl(url=parsed.copy_with(host=host), host=host, port=port, literal=literal)


class OfflineScope(Protocol):
    """What the guard and the pinned transport ask of offline mode's scope (net/offline.py's OfflineScope):
    declared here, below both, so neither imports net/offline.py, which builds on them."""

    @property
    def host(self) -> str: ...

    @property
    def addresses(self) -> tuple[IPAddress, ...]: ...

    def approve(self, url: str, parsed: ParsedUrl, addresses: tuple[IPAddress, ...]) -> None: ...

    def permits(self, address: IPAddress | str, port: int) -> bool: ...

    def refusal(self, url: str, address: IPAddress | str, port: int) -> UrlNotAllowedError: ...


class Guard:
    """Approves a URL only when its form is sound and every address it reaches is allowed by the policy."""

    def __init__(
        self, policy: AddressPolicy | None = None, resolver: Resolver | None = None, offline: OfflineScope | None = None
    ) -> None:
        self.policy = policy if policy is not None else AddressPolicy()
        self.resolver: Resolver = resolver if resolver is not None else system_resolver()
        # offline (fake-web) mode: only the fake web's endpoint passes, whatever the policy says (net/offline.py)
        self.offline = offline

    async def check(self, url: str | httpx.URL) -> ApprovedTarget:
        """The approved target for this URL, or UrlNotAllowedError / HostResolutionError."""
        parsed = parse_url(url)
        if parsed.literal is not None:
            addresses: tuple[IPAddress, ...] = (canonical(parsed.literal),)
        elif self.offline is not None and parsed.host == self.offline.host:
            addresses = self.offline.addresses
        else:
            addresses = await self._resolve(parsed)
        if self.offline is not None:
            self.offline.approve(str(url), parsed, addresses)
            return ApprovedTarget(url=parsed.url, host=parsed.host, port=parsed.port, addresses=addresses)
        for address in addresses:
            refused = self.policy.denial(address)
            if refused is not None:
                raise self._refusal(str(url), parsed, refused)
        return ApprovedTarget(url=parsed.url, host=parsed.host, port=parsed.port, addresses=addresses)

    async def _resolve(self, parsed: ParsedUrl) -> tuple[IPAddress, ...]:
        host = parsed.host
        if host == "localhost" or host.endswith(".localhost"):
            return LOCALHOST_ADDRESSES
        try:
            answers = await self.resolver.resolve(host, parsed.port)
        except TimeoutError as exc:
            raise HostResolutionError(f"Resolving {host} timed out.", host=host, reason="timeout") from exc
        except OSError as exc:
            reason = "not_found" if isinstance(exc, socket.gaierror) and exc.errno in NOT_FOUND_ERRNOS else "failed"
            raise HostResolutionError(f"Could not resolve {host}: {exc}.", host=host, reason=reason) from exc
        if not answers:
            raise HostResolutionError(f"{host} resolved to no addresses.", host=host, reason="no_addresses")
        return tuple(dict.fromkeys(canonical(address) for address in answers))

    @staticmethod
    def _refusal(url: str, parsed: ParsedUrl, refused: Denial) -> UrlNotAllowedError:
        subject = "the address is" if parsed.literal is not None else f"{parsed.host} resolves to"
        shown = mask_userinfo(url)
        return refusal(
            f"Refused {shown!r} (rule {refused.rule}): {subject} {refused.phrase()}.",
            rule=refused.rule,
            url=shown,
            address=str(refused.address),
        )
