"""What an engine is: metadata, one request from a SearchRequest, and hits (or a typed error) from a response.

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
import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Literal
from urllib.parse import quote, quote_plus, urljoin, urlsplit

import httpx
from selectolax.lexbor import LexborNode

from webreach.clock import Clock, SystemClock
from webreach.config import EngineSettings
from webreach.engines._clean import clean_hits
from webreach.engines._generic import find_results
from webreach.engines._html import attribute
from webreach.errors import (
    AuthFailedError,
    BadRequestError,
    BlockedError,
    NotConfiguredError,
    ParseError,
    QuotaExhaustedError,
    RateLimitedError,
    UnavailableError,
    WebreachError,
)
from webreach.models import Hit, ParsedBy, SearchRequest
from webreach.retry_after import MAX_RETRY_AFTER, retry_after_seconds

LOGGER = logging.getLogger(__name__)

EngineKind = Literal["scraped", "api"]
Vertical = Literal["web", "images"]
Tokens = Mapping[str, str]
COOKIE_TOKEN = "cookie"  # the session cookie a warm-up hands to build_request (session_cookie)

# Cloudflare's interstitials, the generic wall in front of many sites (markers from SearXNG's
# raise_for_httperror): an engine answering with these is behind a challenge, whatever its kind.
CLOUDFLARE_MARKERS = (
    "/cdn-cgi/challenge-platform/",
    "window._cf_chl_opt",
    "__cf_chl_jschl_tk__=",
    "__cf_chl_captcha_tk__=",
    "cf-turnstile",
)
RECAPTCHA_MARKER = "https://www.google.com/recaptcha/"
# statuses a wall in front of an engine answers with; a 200 is only suspect for scraped pages served by Cloudflare
CHALLENGE_STATUSES = frozenset({403, 429, 503})


@dataclass(frozen=True)
class ParsedPage:
    """Hits from one response, and which parser found them: the engine's own, or the generic one."""

    hits: list[Hit]
    parsed_by: ParsedBy


class Provider:
    """What every provider (web engine, image engine, reverse-image backend) shares: metadata, settings, and the
    checks that turn its answers into the one error tree. Engine adds the search contract."""

    name: ClassVar[str]
    kind: ClassVar[EngineKind]
    base_url: ClassVar[str]
    index: ClassVar[str] = ""
    # what the engine searches: web pages, or images (engines/images_*.py, issue 14); web search and image search
    # each see only their own engines
    vertical: ClassVar[Vertical] = "web"
    # an image engine (or a reverse-image backend's rules): the web engine whose [engines.NAME] settings it uses
    # unless configured by its own name
    shares_settings_of: ClassVar[str] = ""
    needs_key: ClassVar[bool] = False
    # optional request parameters honoured (subset of models.OPTIONAL_PARAMETERS)
    supports: ClassVar[frozenset[str]] = frozenset()
    # request fields the engine's request never depends on ("limit" for engines that take no count): left out of
    # its cache key (policies/cache.py), so requests differing only there share one entry; respond() trims
    ignores: ClassVar[frozenset[str]] = frozenset()
    rate_per_minute: ClassVar[float] = 15.0
    language_hint: ClassVar[str | None] = None  # "zh" for engines that serve Chinese best
    warm_up_ttl: ClassVar[float] = 3600.0
    # hosts whose links are the engine's own pages (navigation, paging), not results; default: the base URL's
    # domain. The generic parser counts only links elsewhere (after decode_link) as results.
    own_domains: ClassVar[tuple[str, ...]] = ()
    # strings only this engine's result pages carry, for `webreach parse auto` (engine.recognise)
    page_markers: ClassVar[tuple[str, ...]] = ()

    def __init__(
        self, settings: EngineSettings | None = None, *, user_agent: str = "Mozilla/5.0", clock: Clock | None = None
    ) -> None:
        self.settings = settings or EngineSettings()
        self.origin = (self.settings.base_url or type(self).base_url).rstrip("/")
        self.user_agent = user_agent
        self.clock: Clock = clock or SystemClock()

    # --- configuration and response checks (every provider) -------------------------------------------

    def unreadable(self, exc: Exception) -> ParseError:
        """The ParseError an unexpected exception while reading an answer becomes (logged, key redacted)."""
        LOGGER.warning(
            "%s: reading its answer raised %s: %s", self.name, type(exc).__name__, self.redact(str(exc))[:200]
        )
        return ParseError(f"could not read its answer ({type(exc).__name__})", engine=self.name)

    def api_key(self) -> str:
        """The configured key, or NotConfiguredError when the engine needs one and has none."""
        if self.settings.unreadable:
            raise NotConfiguredError(self.settings.unreadable, engine=self.name)
        key = self.settings.key()
        if not key:
            service = self.shares_settings_of or self.name  # an image engine's key is its web engine's
            whose = f"the {service} " if self.shares_settings_of else "an "
            raise NotConfiguredError(
                f"needs {whose}API key (set WEBREACH_ENGINES__{service.upper()}__API_KEY, or enter it in the console)",
                engine=self.name,
            )
        return key

    def ensure_configured(self) -> None:
        """Raise NotConfiguredError when the engine is disabled or lacks its key."""
        if not self.settings.enabled:
            raise NotConfiguredError("is disabled in the configuration", engine=self.name)
        if self.settings.unreadable:  # a stored secret (key or proxy) this server cannot decrypt
            raise NotConfiguredError(self.settings.unreadable, engine=self.name)
        if self.needs_key:
            self.api_key()

    def url(self, path: str) -> str:
        """Absolute URL on this engine's (possibly overridden) origin."""
        return f"{self.origin}{path}"

    def browser_headers(self, **extra: str) -> dict[str, str]:
        """Headers a plain browser sends; scraped engines start from these."""
        headers = {
            "User-Agent": self.user_agent,
            "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            "Accept-Language": "en-US,en;q=0.9",
        }
        headers.update(extra)
        return headers

    def classify(self, response: httpx.Response) -> bool:
        """The engine's own reading of a response: the one hook for its quirks (ban pages, error codes in bodies).

        check_response calls it after the shared challenge check and before the generic status mapping. Raise
        the typed error a quirk means; return True when the response is an answer whatever its status (the
        generic mapping is then skipped), False to leave it to the generic mapping.
        """
        return False

    def check_response(self, response: httpx.Response) -> None:
        """Turn a non-success response into the typed error it means, in one order for every engine:

        1. a challenge page (check_challenge), for every kind of engine: a 403 from a wall in front of an API is
           a CAPTCHA, not a rejected key (which would suspend a correctly keyed engine until it is reconfigured);
        2. the engine's quirks (classify);
        3. the generic status mapping below.
        """
        self.check_challenge(response)
        if self.classify(response):
            return
        status = response.status_code
        if status == 429:
            raise self.rate_limited(response)
        if 300 <= status < 400:
            self.check_redirect(response)
        if self.kind == "scraped":
            if status in (401, 402, 403, 418, 451):
                raise BlockedError(f"refused us (HTTP {status})", engine=self.name)
        elif status in (401, 403):
            raise AuthFailedError(f"rejected the API key (HTTP {status}){self._detail(response)}", engine=self.name)
        elif status == 402:
            raise QuotaExhaustedError(f"quota exhausted (HTTP 402){self._detail(response)}", engine=self.name)
        elif status in (400, 422):
            # an API names what it refused; the same request would fail again, so this is not retryable
            raise BadRequestError(f"refused the request (HTTP {status}){self._detail(response)}", engine=self.name)
        if status >= 500:
            raise UnavailableError(f"server error (HTTP {status})", engine=self.name)
        if status >= 400:
            raise UnavailableError(f"refused the request (HTTP {status}){self._detail(response)}", engine=self.name)

    def check_challenge(self, response: httpx.Response) -> None:
        """Raise BlockedError(captcha) when `response` is a Cloudflare or reCAPTCHA challenge page.

        check_response runs it first, before any engine's classify, so engines never call it themselves.
        """
        status = response.status_code
        # API results are arbitrary text (a search about Turnstile quotes its markers), so only a wall's status
        # makes an API answer suspect; a scraped page served by Cloudflare is suspect whatever its status
        cloudflare = self.kind == "scraped" and response.headers.get("server", "").lower() == "cloudflare"
        if (status in CHALLENGE_STATUSES or cloudflare) and any(m in response.text for m in CLOUDFLARE_MARKERS):
            raise BlockedError("answered with a Cloudflare challenge page", kind="captcha", engine=self.name)
        if status in CHALLENGE_STATUSES and RECAPTCHA_MARKER in response.text:
            raise BlockedError("answered with a reCAPTCHA page", kind="captcha", engine=self.name)

    def check_redirect(self, response: httpx.Response) -> None:
        """A redirect instead of results; engines with known CAPTCHA redirects override to say captcha."""
        location = response.headers.get("location", "")
        # the host (or a relative target's path) only: a Location may carry userinfo or a key in its query,
        # and neither belongs in a message
        try:
            target = urlsplit(location)
            where = target.netloc.rpartition("@")[2] if target.netloc else target.path
        except ValueError:  # a malformed IPv6 host
            where = "an unreadable address"
        raise BlockedError(
            f"redirected to {where or 'nowhere'} (HTTP {response.status_code}) instead of results",
            engine=self.name,
        )

    def rate_limited(self, response: httpx.Response, wait: float | None = None) -> RateLimitedError:
        """A RateLimitedError for a 429, waiting as Retry-After says, else `wait` (an engine's own hint)."""
        said = retry_after_seconds(response.headers, now=self.clock.now())
        if said is None and wait is not None:
            # an engine's own hint (a body field, a rate-limit reset header) is clamped like Retry-After
            said = min(max(wait, 0.0), MAX_RETRY_AFTER) if math.isfinite(wait) else None
        return RateLimitedError(
            f"rate limited (HTTP {response.status_code}){self._detail(response)}",
            engine=self.name,
            retry_after=said,
        )

    def _detail(self, response: httpx.Response) -> str:
        """A short, key-free excerpt of an error body for the message."""
        text = self.redact(" ".join(response.text[:200].split()))
        return f": {text}" if text else ""

    def redact(self, text: str) -> str:
        """`text` with the configured key masked (as written and URL-encoded), for anything that reaches a message."""
        key = self.settings.key()
        return redact_secrets(text, secret_forms(key)) if key else text

    def page_url(self, response: httpx.Response) -> httpx.URL:
        """The URL that produced `response` (relative links resolve against it); the origin for a bare response."""
        try:
            return response.url
        except RuntimeError:  # a Response built without its request, as `webreach parse` and tests do
            return httpx.URL(self.url("/"))

    def parse_error(self, what: str) -> ParseError:
        """A ParseError for this engine."""
        return ParseError(what, engine=self.name)


class Engine(Provider, ABC):
    """One search engine or search API. Subclasses set the ClassVars and the two abstract methods."""

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
        return ParsedPage(clean_hits(page.hits, now=self.clock.now()), page.parsed_by)

    def _parse_with_fallback(self, response: httpx.Response) -> ParsedPage:
        try:
            return ParsedPage(self.parse(response), "engine")
        except ParseError:
            hits = self.generic_parse(response) if self.generic_fallback else []
            if not hits:
                raise
            return ParsedPage(hits, "generic")

    @property
    def generic_fallback(self) -> bool:
        """Whether the generic parser may answer for this engine: scraped engines unless the option turns it off."""
        return self.kind == "scraped" and self.settings.options.get("generic_fallback", "on").lower() != "off"

    def generic_parse(self, response: httpx.Response) -> list[Hit]:
        """Hits the generic parser finds on an HTML response by structure alone (no engine selectors)."""
        if "html" not in response.headers.get("content-type", "text/html"):
            return []
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
        own = {*(self.own_domains or (_domain(urlsplit(type(self).base_url).hostname or ""),))}
        if host == (urlsplit(page_url).hostname or "").lower() or any(_under(host, d) for d in own):
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


def _domain(host: str) -> str:
    """The last two labels of a host name (search.brave.com -> brave.com)."""
    return ".".join(host.lower().split(".")[-2:])


def _under(host: str, domain: str) -> bool:
    """True when `host` is `domain` or one of its subdomains."""
    return host == domain or host.endswith(f".{domain}")


def secret_forms(secret: str) -> tuple[str, ...]:
    """The ways `secret` can appear in text about a request: as is, and URL-encoded as a query value."""
    forms = {secret, quote(secret, safe=""), quote_plus(secret, safe=""), str(httpx.QueryParams({"k": secret}))[2:]}
    return tuple(sorted(forms, key=len, reverse=True))  # longest first, so no form is left half-masked


def redact_secrets(text: str, forms: tuple[str, ...]) -> str:
    """`text` with every one of `forms` replaced by ***."""
    for form in forms:
        if form:
            text = text.replace(form, "***")
    return text


def query_with_site(request: SearchRequest) -> str:
    """The query with `site:` appended when the request names a site (how most engines take a site filter)."""
    return f"{request.query} site:{request.site}" if request.site else request.query
