"""What an engine is: a Provider (engines/_provider.py: metadata, settings, the response checks) that builds one
request from a SearchRequest and reads hits (or a typed error) from a response.

Engines do no I/O and keep no state between calls. Anything fetched beforehand (DuckDuckGo's vqd, 360's
cookie, Startpage's sc token) is a warm-up: the engine describes the request and reads the tokens out of
its response; the gateway sends it and caches the tokens, then passes them to build_request.
Engines that need the time (freshness filters given as absolute dates) read it from `self.clock`, never from
the system clock, so tests pin it with a FakeClock.

handle_page() is the one path from a response to hits. When a scraped engine's own parser raises ParseError (its
selectors found nothing, and the page carries neither its no-results notice nor a block marker: parse() checked
those first), the generic parser (engines/_generic.py) looks for the page's repeated result blocks by structure,
with links decoded by the engine's decode_link(); its hits come back marked parsed_by "generic", so the agent
still gets results and the operator sees that the engine's parser needs attention. The option
`generic_fallback = "off"` turns it off per engine.
"""

from __future__ import annotations

import codecs
import logging
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

import httpx

from webreach.engines._catalog import ENGINES, ROW_FIELDS
from webreach.engines._clean import clean_hits
from webreach.engines._html import attribute
from webreach.engines._provider import Provider, base_domain, under_domain
from webreach.errors import (
    ParseError,
    WebreachError,
)
from webreach.models import Hit, ParsedBy, SearchRequest

if TYPE_CHECKING:  # selectolax (and the generic parser) load with the first page parsed
    from selectolax.lexbor import LexborNode

LOGGER = logging.getLogger(__name__)

Tokens = Mapping[str, str]
COOKIE_TOKEN = "cookie"  # the session cookie a warm-up hands to build_request (session_cookie)


@dataclass(frozen=True)
class ParsedPage:
    """Hits from one response, and which parser found them: the engine's own, or the generic one."""

    hits: list[Hit]
    parsed_by: ParsedBy
    answer: str | None = None  # an AI answer the provider wrote beside its results (Tavily's include_answer)


class Engine(Provider, ABC):
    """One search engine or search API. Subclasses set `name` and the two abstract methods; the metadata ClassVars
    (kind, origin, index, key, supports, pace, rules) come from the engine's row in the table (engines/_catalog.py)
    as the class is made, so the table is their one owner."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("name")
        row = ENGINES.get(name) if isinstance(name, str) else None
        if row is not None and cls.__module__ == f"{__package__}.{name}":
            for metadata in ROW_FIELDS:
                setattr(cls, metadata, getattr(row, metadata))
        elif name is not None and cls.__module__.startswith(f"{__package__}."):
            raise RuntimeError(f"engine {name!r} of {cls.__module__} has no row in engines/_catalog.py ENGINES")

    # --- the contract ---------------------------------------------------------------------------------

    @abstractmethod
    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        """The HTTP request that asks this engine for `request`."""

    @abstractmethod
    def parse(self, response: httpx.Response) -> list[Hit]:
        """Hits from a successful response; raise BlockedError or ParseError when it is not one."""

    def warm_up(self, request: SearchRequest) -> httpx.Request | None:
        """A request whose response yields tokens build_request needs, or None when none is needed."""
        return None

    def warm_up_key(self, request: SearchRequest) -> str:
        """Cache key for warm-up tokens (tokens that depend on the query include it here)."""
        return self.name

    def read_warm_up(self, response: httpx.Response) -> dict[str, str]:
        """Tokens from a warm-up response."""
        return {}

    # --- shared behaviour -----------------------------------------------------------------------------

    def handle(self, response: httpx.Response) -> list[Hit]:
        """Check the response for errors and blocks, then parse it (the generic parser as the fallback)."""
        return self.handle_page(response).hits

    def handle_page(self, response: httpx.Response) -> ParsedPage:
        """handle(), saying which parser produced the hits: the one path every caller uses.

        Whatever else a hostile answer makes the parser raise (RecursionError, a ValueError from a malformed
        URL, a TypeError from a field of the wrong type) becomes this engine's ParseError, logged with its type,
        so one engine's answer never fails a whole search. Hits come back through `clean_hits`.
        """
        try:
            settle_encoding(response)
            self.check_response(response)
            page = self._parse_with_fallback(response)
        except WebreachError:
            raise
        except Exception as exc:  # the last resort for parser bugs on odd input; the cause is fixed where found
            raise self.unreadable(exc) from None
        return ParsedPage(clean_hits(page.hits, now=self.clock.now()), page.parsed_by, page.answer)

    def _parse_with_fallback(self, response: httpx.Response) -> ParsedPage:
        try:
            return ParsedPage(self.parse(response), "engine", self.parse_answer(response))
        except ParseError:
            hits = self.generic_parse(response) if self.generic_fallback else []
            if not hits:
                raise
            return ParsedPage(hits, "generic")

    def parse_answer(self, response: httpx.Response) -> str | None:
        """The AI answer the provider wrote beside its results, when it writes one (none by default)."""
        return None

    @property
    def generic_fallback(self) -> bool:
        """Whether the generic parser may answer for this engine: scraped engines unless the option turns it off."""
        return self.kind == "scraped" and self.settings.options.get("generic_fallback", "on").lower() != "off"

    def generic_parse(self, response: httpx.Response) -> list[Hit]:
        """Hits the generic parser finds on an HTML response by structure alone (no engine selectors)."""
        if "html" not in response.headers.get("content-type", "text/html"):
            return []
        from webreach.engines._generic import find_results

        page_url = str(self.page_url(response))
        found = find_results(response.text, lambda link: self.link_target(link, page_url), self.record_target)
        return [self.hit(rank, item.title, item.url, snippet=item.snippet) for rank, item in enumerate(found, 1)]

    def decode_link(self, href: str, page_url: str) -> str:
        """A link of this engine's pages as its target: redirect wrappers decoded, relative links made absolute."""
        return urljoin(page_url, href)

    def link_target(self, link: LexborNode, page_url: str) -> str | None:
        """For the generic parser: the decoded target of a link that may be a result, else None."""
        return self.result_link(attribute(link, "href"), page_url)

    def record_target(self, record: LexborNode, url: str) -> str:
        """For the generic parser: the URL of the result `record` (the engine may carry it beside a redirect)."""
        return url

    def result_link(self, href: str, page_url: str) -> str | None:
        """The decoded target when `href` may be a result (http(s), on another site), else None."""
        url = self.decode_link(href, page_url)
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if parts.scheme not in ("http", "https") or not host:
            return None
        own = {*(self.own_domains or (base_domain(urlsplit(type(self).base_url).hostname or ""),))}
        if host == (urlsplit(page_url).hostname or "").lower() or any(under_domain(host, d) for d in own):
            return url if self.opaque_result(url) or self.result_wrapper(href) else None
        return url

    def opaque_result(self, url: str) -> bool:
        """True for a link on the engine's own host that stands for a result (Baidu's /link?url= redirects)."""
        return False

    def result_wrapper(self, href: str) -> bool:
        """True for a redirect the engine wraps only around results (Google's /url?q=), whatever its target."""
        return False

    def recognise(self, text: str) -> int:
        """How many of this engine's page markers `text` carries (`webreach parse auto` picks the most)."""
        return sum(1 for marker in self.page_markers if marker in text)

    def warm_up_tokens(self, response: httpx.Response) -> dict[str, str]:
        """check_response, then read_warm_up, with `handle`'s last resort: tokens or a typed error."""
        try:
            settle_encoding(response)
            self.check_response(response)
            return self.read_warm_up(response)
        except WebreachError:
            raise
        except Exception as exc:
            raise self.unreadable(exc) from None

    def unsupported(self, request: SearchRequest) -> tuple[str, ...]:
        """Parameters the caller set that this engine cannot honour (reported in meta, never dropped silently)."""
        asked = request.set_parameters()
        return tuple([p for p in asked if p not in self.supports]) if asked else ()

    def hit(self, rank: int, title: str, url: str, **fields: str | None) -> Hit:
        """A Hit from this engine with whitespace normalized; a field of another type than str (an API answer's
        number or list where text belongs) counts as missing."""
        cleaned = {k: " ".join(v.split()) if isinstance(v, str) else None for k, v in fields.items()}
        snippet = cleaned.pop("snippet", None) or ""
        title = " ".join(title.split()) if isinstance(title, str) else ""
        return Hit(rank=rank, title=title, url=url, snippet=snippet, engine=self.name, **cleaned)


def session_cookie(response: httpx.Response) -> dict[str, str]:
    """The warm-up token of engines that only need a session: the first Set-Cookie pair (`name=value`, attributes
    dropped) under COOKIE_TOKEN, or nothing when none was set."""
    for header in response.headers.get_list("set-cookie"):
        pair = header.split(";", 1)[0].strip()
        if "=" in pair:
            return {COOKIE_TOKEN: pair}
    return {}


def settle_encoding(response: httpx.Response) -> None:
    """Decode `response.text` with a codec that cannot fail: a charset label no codec has, or one the body
    contradicts (a UTF-16 label on a UTF-8 body, whose decoder raises on a missing BOM even with errors=replace),
    gives way to UTF-8 with replacement characters, the label httpx assumes when there is none."""
    label = response.charset_encoding
    if label is None:
        return
    try:
        codec = codecs.lookup(label).name
    except LookupError:
        response.encoding = "utf-8"
        return
    if codec in ("utf-8", "ascii"):
        return
    content = response.content
    if codec.startswith(("utf-16", "utf-32")) and b"\x00" not in content:
        response.encoding = "utf-8"  # no UTF-16 or UTF-32 text is free of NUL bytes
        return
    try:  # as httpx decodes: incrementally, where "utf-16" without a byte-order mark raises
        codecs.getincrementaldecoder(codec)("replace").decode(content, final=True)
    except (UnicodeError, ValueError):
        response.encoding = f"{codec}-le" if codec in ("utf-16", "utf-32") else "utf-8"


def query_with_site(request: SearchRequest) -> str:
    """The query with `site:` appended when the request names a site (how most engines take a site filter)."""
    return f"{request.query} site:{request.site}" if request.site else request.query
