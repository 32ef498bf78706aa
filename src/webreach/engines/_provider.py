"""What every provider is (web engine, image engine, reverse-image backend): metadata, settings, and the checks that
turn its answers into the one error tree (challenge pages, statuses, Retry-After, keys, quotas).

Engine (engines/_base.py) adds the search contract; a reverse-image backend (images/reverse/_base.py) holds a
Provider of its own name for its configuration and response checks, so neither carries methods it never uses.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar
from urllib.parse import quote, quote_plus, urlsplit

import httpx

from webreach.clock import Clock, SystemClock
from webreach.config import EngineSettings
from webreach.engines._catalog import Choices, EngineKind, Variant, Vertical, api_key, check_configured, keyless
from webreach.errors import (
    AuthFailedError,
    BadRequestError,
    BlockedError,
    ParseError,
    QuotaExhaustedError,
    RateLimitedError,
    UnavailableError,
    UnreachableError,
)
from webreach.retry_after import MAX_RETRY_AFTER, retry_after_seconds

LOGGER = logging.getLogger(__name__)

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
    # configuration rules beyond enabled, readable and keyed (engines/_catalog.py EngineInfo says what each means;
    # an engine's come from its row there)
    shares_origin: ClassVar[bool] = False
    keyless_option: ClassVar[bool] = False
    keyless_rate: ClassVar[float | None] = None
    base_url_hint: ClassVar[str] = ""
    required_options: ClassVar[tuple[tuple[str, str], ...]] = ()
    choices: ClassVar[Choices | None] = None
    variants: ClassVar[Mapping[str, Variant]] = MappingProxyType({})

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

    @property
    def keyless(self) -> bool:
        """Running without the key it normally needs, at an anonymous tier (Jina's keyless option): the default
        auto order puts such an engine last; a configured order may put it anywhere."""
        return keyless(self, self.settings)

    def api_key(self) -> str:
        """The configured key, or NotConfiguredError when the engine needs one and has none."""
        return api_key(self, self.settings)

    def ensure_configured(self) -> None:
        """Raise NotConfiguredError when the engine is disabled or lacks its key (or what its rules require)."""
        check_configured(self, self.settings)

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
        if status == 407:  # only a proxy answers 407: ours, in front of every engine, so never the engine's fault
            message = "the outbound proxy refused our credentials (HTTP 407 Proxy Authentication Required)"
            raise UnreachableError(message, cause="proxy", engine=self.name)
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
        # whitespace collapsed before the cut: a pretty-printed body keeps 200 characters of what it says
        text = self.redact(" ".join(response.text[:4000].split())[:200])
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


def base_domain(host: str) -> str:
    """The last two labels of a host name (search.brave.com -> brave.com)."""
    return ".".join(host.lower().split(".")[-2:])


def under_domain(host: str, domain: str) -> bool:
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
