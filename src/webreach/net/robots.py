"""robots.txt (RFC 9309), fetched through the guarded fetcher with a short deadline and cached per origin.

Fetch outcomes, as the RFC puts them (section 2.3.1):
- 2xx: parse it (the first 512 KiB; the RFC asks for at least 500 KiB).
- 4xx (other than 429), a redirect without Location, or more redirects than the fetcher follows: "unavailable",
  so everything is allowed.
- 429, 5xx, and "unreachable" (timeout, connection failure, DNS failure, a redirect the guard refuses): complete
  disallow for now, cached only briefly (`error_ttl`), so a site that was down is asked again soon. 429 goes
  with 5xx as Google treats it: a server asking us to slow down is not a server saying "no rules".

Parsing and matching are Protego's (Scrapy's robots.txt parser, written to the RFC and Google's behaviour):
groups start with one or more `user-agent` lines; the group naming our product token (case-insensitively,
`webreach` by default; groups for the same token are merged) applies, else the `*` groups, else nothing applies.
Rules are matched against the URL's path and query with percent-encoding normalized on both sides; `*` matches
any run of characters and a trailing `$` anchors the end; the longest matching pattern wins and `allow` wins a
tie; an empty `disallow` is no rule. `/robots.txt` itself is always allowed. One leniency of Protego's: a group
for a leading part of our token ("web") counts as naming us when no longer one does, so it may restrict us.

A disallowed URL raises RobotsDisallowedError, a PageBlockedError (code `robots_disallowed`) with `robots_url` and
`temporary` (True when the site's robots.txt could not be read right now, so a retry later may succeed).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace

import httpx
from cachetools import TLRUCache
from protego import Protego

from webreach.clock import Clock, SystemClock
from webreach.errors import FetchError, HttpStatusError, RobotsDisallowedError, TooManyRedirectsError
from webreach.net.fetcher import Fetcher
from webreach.net.guard import parse_url

DEFAULT_TOKEN = "webreach"
MAX_ROBOTS_BYTES = 512 * 1024
# Protego matches whole URLs; a bare path is given this origin first, so a path starting "//" stays a path
_ANY_ORIGIN = "http://robots.invalid"


@dataclass(frozen=True)
class RobotsTxt:
    """One site's robots.txt as it applies to one product token; `allows(path)` decides."""

    rules: Protego | None = None  # None: no rules at all
    token: str = DEFAULT_TOKEN
    disallow_all: bool = False

    @classmethod
    def parse(cls, text: str, token: str = DEFAULT_TOKEN) -> RobotsTxt:
        return cls(Protego.parse(text), token.lower())

    def allows(self, target: str) -> bool:
        """Whether `target` (path and query as sent, or a whole URL) may be fetched."""
        if self.disallow_all:
            return False
        if self.rules is None:
            return True
        url = _ANY_ORIGIN + target if target.startswith("/") else target
        return self.rules.can_fetch(url, self.token)


ALLOW_ALL = RobotsTxt()
DISALLOW_ALL = RobotsTxt(disallow_all=True)


@dataclass(frozen=True)
class _Entry:
    robots: RobotsTxt
    temporary: bool


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
        # per entry: error answers are asked again sooner; past max_origins the least recently used goes
        self._cache: TLRUCache[str, _Entry] = TLRUCache(maxsize=max_origins, ttu=self._expires, timer=self.clock.now)
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
        if cached is not None:
            return cached
        task = self._pending.get(robots_url)
        if task is None:  # concurrent readers of one site share one robots.txt fetch
            task = self._pending[robots_url] = asyncio.ensure_future(self._load(robots_url))
            task.add_done_callback(lambda _: self._pending.pop(robots_url, None))
        entry = await asyncio.shield(task)
        self._cache[robots_url] = entry
        return entry

    def _expires(self, robots_url: str, entry: _Entry, now: float) -> float:
        return now + (self.error_ttl if entry.temporary else self.ttl)

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
            return _Entry(ALLOW_ALL, temporary=False)  # unavailable: a redirect loop, or one without Location
        except FetchError:
            return _Entry(DISALLOW_ALL, temporary=True)  # unreachable
        if 200 <= fetched.status < 300:
            return _Entry(RobotsTxt.parse(fetched.body.decode("utf-8", "replace"), self.token), temporary=False)
        if fetched.status == 429 or fetched.status >= 500:
            return _Entry(DISALLOW_ALL, temporary=True)
        return _Entry(ALLOW_ALL, temporary=False)  # 3xx left over and 4xx: unavailable


def _robots_url(parsed_url: httpx.URL) -> str:
    """The robots.txt URL of a (guard-parsed) URL's origin."""
    return str(parsed_url.copy_with(raw_path=b"/robots.txt", fragment=None))
