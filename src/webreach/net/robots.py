"""robots.txt (RFC 9309), fetched through the guarded fetcher with a short deadline and cached per origin.

Fetch outcomes, as the RFC puts them (section 2.3.1):
- 2xx: parse it (the first 512 KiB; the RFC asks for at least 500 KiB).
- 4xx (other than 429), a redirect without Location, or more redirects than the fetcher follows: "unavailable",
  so everything is allowed.
- 429, 5xx, and "unreachable" (timeout, connection failure, DNS failure, a redirect the guard refuses): complete
  disallow for now, cached only briefly (`error_ttl`), so a site that was down is asked again soon. 429 goes
  with 5xx as Google treats it: a server asking us to slow down is not a server saying "no rules".

Parsing: groups start with one or more `user-agent` lines; a group applies when a line names our product token
(case-insensitively, `webreach` by default) and all such groups are merged, else the `*` groups, else nothing
applies. Rules are matched against the URL's path and query with percent-encoding normalized on both sides;
`*` matches any run of characters and a trailing `$` anchors the end; the longest matching pattern wins and
`allow` wins a tie; an empty `disallow` is no rule. `/robots.txt` itself is always allowed.

A disallowed URL raises RobotsDisallowedError, a PageBlockedError (code `robots_disallowed`) with `robots_url` and
`temporary` (True when the site's robots.txt could not be read right now, so a retry later may succeed).
"""

from __future__ import annotations

import asyncio
import re
from collections import OrderedDict
from dataclasses import dataclass, replace

import httpx

from webreach.clock import Clock, SystemClock
from webreach.errors import FetchError, HttpStatusError, RobotsDisallowedError, TooManyRedirectsError
from webreach.net.fetcher import Fetcher
from webreach.net.guard import parse_url

DEFAULT_TOKEN = "webreach"
MAX_ROBOTS_BYTES = 512 * 1024
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")


def normalize_path(path: str) -> str:
    """Percent-encoding made comparable: non-ASCII encoded as UTF-8, unreserved octets decoded, hex upper-cased."""
    encoded = "".join(c if c.isascii() else "".join(f"%{b:02X}" for b in c.encode("utf-8")) for c in path)

    def fix(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else f"%{match.group(1).upper()}"

    return _PERCENT.sub(fix, encoded)


@dataclass(frozen=True)
class Rule:
    allow: bool
    pattern: str
    regex: re.Pattern[str]

    @classmethod
    def make(cls, allow: bool, pattern: str) -> Rule:
        pattern = normalize_path(pattern)
        anchored = pattern.endswith("$")
        body = pattern[:-1] if anchored else pattern
        regex = ".*".join(re.escape(part) for part in body.split("*")) + ("$" if anchored else "")
        return cls(allow, pattern, re.compile(regex, re.DOTALL))


@dataclass(frozen=True)
class RobotsTxt:
    """The rules that apply to one product token; `allows(path)` decides."""

    rules: tuple[Rule, ...] = ()
    disallow_all: bool = False

    @classmethod
    def parse(cls, text: str, token: str = DEFAULT_TOKEN) -> RobotsTxt:
        token = token.lower()
        mine: list[Rule] = []
        anyone: list[Rule] = []
        agents: list[str] = []
        named, in_rules = False, False
        for raw_line in text.splitlines():
            key, sep, value = raw_line.split("#", 1)[0].partition(":")
            key, value = key.strip().lower(), value.strip()
            if not sep:
                continue
            if key == "user-agent":
                if in_rules:
                    agents, in_rules = [], False
                agents.append(value.lower())
                named = named or value.lower() == token
            elif key in ("allow", "disallow") and agents:
                in_rules = True
                rule = Rule.make(key == "allow", value) if value else None  # an empty disallow is no rule
                if rule is not None and token in agents:
                    mine.append(rule)
                if rule is not None and "*" in agents:
                    anyone.append(rule)
        # a group naming us applies even when it has no rules, and then the * groups do not
        return cls(tuple(mine) if named else tuple(anyone))

    def allows(self, path: str) -> bool:
        """Whether `path` (path and query, as sent) may be fetched."""
        if self.disallow_all:
            return False
        path = normalize_path(path)
        if path == "/robots.txt":
            return True
        best: Rule | None = None
        for rule in self.rules:
            if rule.regex.match(path) and (
                best is None
                or len(rule.pattern) > len(best.pattern)
                or (len(rule.pattern) == len(best.pattern) and rule.allow)
            ):
                best = rule
        return best is None or best.allow


ALLOW_ALL = RobotsTxt()
DISALLOW_ALL = RobotsTxt(disallow_all=True)


@dataclass(frozen=True)
class _Entry:
    robots: RobotsTxt
    temporary: bool
    expires: float


class RobotsPolicy:
    """Decides whether webreach may read a URL by its site's robots.txt; one cached answer per origin."""

    def __init__(
        self,
        fetcher: Fetcher,
        *,
        token: str = DEFAULT_TOKEN,
        clock: Clock | None = None,
        timeout: float = 5.0,
        ttl: float = 3600.0,
        error_ttl: float = 300.0,
        max_origins: int = 1000,
    ) -> None:
        self.fetcher = fetcher
        self.token = token
        self.clock: Clock = clock or SystemClock()
        self.timeout = timeout
        self.ttl = ttl
        self.error_ttl = error_ttl
        self.max_origins = max_origins
        self._cache: OrderedDict[str, _Entry] = OrderedDict()
        self._pending: dict[str, asyncio.Task[_Entry]] = {}

    async def check(self, url: str) -> None:
        """Raise RobotsDisallowedError when robots.txt does not allow `url`."""
        parsed = parse_url(url).url
        robots_url = _robots_url(parsed)
        entry = await self._entry(robots_url)
        if not entry.robots.allows(parsed.raw_path.decode("ascii")):
            why = "could not be read, which means no for now" if entry.temporary else "disallows it"
            raise RobotsDisallowedError(
                f"{robots_url} {why} for {self.token}: {url}.",
                url=url,
                robots_url=robots_url,
                temporary=entry.temporary,
            )

    async def robots_for(self, url: str) -> RobotsTxt:
        """The rules that apply to `url`'s origin (fetched or cached)."""
        return (await self._entry(_robots_url(parsed_url=parse_url(url).url))).robots

    async def _entry(self, robots_url: str) -> _Entry:
        cached = self._cache.get(robots_url)
        if cached is not None and cached.expires > self.clock.now():
            self._cache.move_to_end(robots_url)
            return cached
        task = self._pending.get(robots_url)
        if task is None:  # concurrent readers of one site share one robots.txt fetch
            task = self._pending[robots_url] = asyncio.ensure_future(self._load(robots_url))
            task.add_done_callback(lambda _: self._pending.pop(robots_url, None))
        entry = await asyncio.shield(task)
        self._cache[robots_url] = entry
        self._cache.move_to_end(robots_url)
        while len(self._cache) > self.max_origins:
            self._cache.popitem(last=False)
        return entry

    async def _load(self, robots_url: str) -> _Entry:
        budgets = replace(
            self.fetcher.budgets, total_seconds=min(self.timeout, self.fetcher.budgets.total_seconds),
            max_decoded_bytes=MAX_ROBOTS_BYTES,
        )  # fmt: skip
        try:
            fetched = await self.fetcher.fetch(
                robots_url, raise_for_status=False, budgets=budgets, truncate=True, headers={"accept": "text/plain"}
            )
        except (TooManyRedirectsError, HttpStatusError):
            return self._made(ALLOW_ALL, temporary=False)  # unavailable: a redirect loop, or one without Location
        except FetchError:
            return self._made(DISALLOW_ALL, temporary=True)  # unreachable
        if 200 <= fetched.status < 300:
            return self._made(RobotsTxt.parse(fetched.body.decode("utf-8", "replace"), self.token), temporary=False)
        if fetched.status == 429 or fetched.status >= 500:
            return self._made(DISALLOW_ALL, temporary=True)
        return self._made(ALLOW_ALL, temporary=False)  # 3xx left over and 4xx: unavailable

    def _made(self, robots: RobotsTxt, *, temporary: bool) -> _Entry:
        return _Entry(robots, temporary, self.clock.now() + (self.error_ttl if temporary else self.ttl))


def _robots_url(parsed_url: httpx.URL) -> str:
    """The robots.txt URL of a (guard-parsed) URL's origin."""
    return str(parsed_url.copy_with(raw_path=b"/robots.txt", fragment=None))
