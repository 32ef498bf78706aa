"""Runs one engine over HTTP: warm-up tokens, the request, a bounded body, and typed transport failures.

This is the only place engine traffic touches the network. Engines stay pure (build_request / handle); this
module sends what they describe through the Gateway's engine client, never following redirects (a redirect is
the engine's business: Google /sorry, Baidu wappass and Sogou antispider are CAPTCHAs), and turns every
transport failure into EngineTimeoutError or UnavailableError.

Keys stay out of logs and messages. Some providers (SerpApi) only take the key in the query string, and httpx
logs every request URL at INFO, so `SecretLogFilter` masks the configured keys in the records of the httpx and
httpcore loggers; the Gateway's searching component installs it while it lives. Transport error texts can
quote the request URL too, so they pass through the engine's `redact` before they become a message.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

import httpx

from webreach.clock import Clock
from webreach.engines import Engine, Tokens
from webreach.engines._base import redact_secrets, secret_forms
from webreach.errors import EngineTimeoutError, UnavailableError
from webreach.models import SearchRequest
from webreach.search.contract import EngineResult


@dataclass
class _CachedTokens:
    tokens: dict[str, str]
    expires: float


class TokenCache:
    """Warm-up tokens per (engine, warm-up key), expiring after the engine's warm_up_ttl."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._entries: dict[tuple[str, str], _CachedTokens] = {}

    def get(self, engine: str, key: str) -> dict[str, str] | None:
        entry = self._entries.get((engine, key))
        if entry is None or entry.expires <= self._clock.now():
            return None
        return entry.tokens

    def put(self, engine: str, key: str, tokens: dict[str, str], ttl: float) -> None:
        self._entries[(engine, key)] = _CachedTokens(tokens, self._clock.now() + ttl)


class EngineCaller:
    """A Search callable for one engine: the innermost layer, below every policy."""

    def __init__(
        self,
        engine: Engine,
        client: httpx.AsyncClient,
        *,
        tokens: TokenCache,
        max_body_bytes: int,
    ) -> None:
        self.engine = engine
        self._client = client
        self._tokens = tokens
        self._max_body_bytes = max_body_bytes

    async def __call__(self, request: SearchRequest) -> EngineResult:
        self.engine.ensure_configured()
        tokens = await self._warm_up(request)
        response = await self.send(self.engine.build_request(request, tokens))
        hits = self.engine.handle(response)
        return EngineResult(tuple(hits))

    async def _warm_up(self, request: SearchRequest) -> Tokens | None:
        warm_up = self.engine.warm_up(request)
        if warm_up is None:
            return None
        key = self.engine.warm_up_key(request)
        cached = self._tokens.get(self.engine.name, key)
        if cached is not None:
            return cached
        response = await self.send(warm_up)
        self.engine.check_response(response)
        tokens = self.engine.read_warm_up(response)
        if tokens:
            # an empty answer (no cookie set, no vqd on the page) is not cached, so the next search warms up again
            self._tokens.put(self.engine.name, key, tokens, self.engine.warm_up_ttl)
        return tokens

    async def send(self, http_request: httpx.Request) -> httpx.Response:
        """Send one request and read at most max_body_bytes of its (decoded) body."""
        name = self.engine.name
        try:
            response = await self._client.send(http_request, stream=True, follow_redirects=False)
            try:
                body = await self._read_capped(response)
            finally:
                await response.aclose()
        except httpx.TimeoutException as exc:
            raise EngineTimeoutError(f"no answer in time ({type(exc).__name__})", engine=name) from None
        except httpx.HTTPError as exc:
            # httpx's texts may quote the request URL, and a SerpApi URL carries the key
            reason = self.engine.redact(str(exc))
            raise UnavailableError(f"connection failed ({type(exc).__name__}: {reason})", engine=name) from None
        headers = [(k, v) for k, v in response.headers.multi_items() if k not in ("content-encoding", "content-length")]
        return httpx.Response(response.status_code, headers=headers, content=body, request=http_request)

    async def _read_capped(self, response: httpx.Response) -> bytes:
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > self._max_body_bytes:
                raise UnavailableError(
                    f"response body exceeded {self._max_body_bytes} bytes; refusing to read more",
                    engine=self.engine.name,
                )
            chunks.append(chunk)
        return b"".join(chunks)


# httpx logs under "httpx", httpcore under children of "httpcore"; a logger's filters see only its own records
# (not those propagated up from children), so the filter goes on each of them
HTTP_LOGGERS = (
    "httpx",
    "httpcore",
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "httpcore.socks",
)


class SecretLogFilter(logging.Filter):
    """Masks secrets (as written and URL-encoded) in log records, by rendering each record once and redacting it.

    `install()` puts it on the HTTP client loggers (HTTP_LOGGERS and any other httpx/httpcore logger that
    exists by then); `remove()` takes it off again. It never drops a record.
    """

    def __init__(self, secrets: Iterable[str | None]) -> None:
        super().__init__()
        forms = {form for secret in secrets if secret for form in secret_forms(secret)}
        self.forms = tuple(sorted(forms, key=len, reverse=True))
        self._loggers: list[logging.Logger] = []

    def redact(self, text: str) -> str:
        """`text` with every secret masked as ***."""
        return redact_secrets(text, self.forms)

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.forms:
            return True
        try:
            message = record.getMessage()
        except Exception:  # a record that cannot be formatted: logging would print its raw parts, so mask those
            message = f"{record.msg} {record.args}"
        redacted = self.redact(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True

    def install(self) -> None:
        """Attach to the httpx and httpcore loggers (idempotent)."""
        if self._loggers or not self.forms:
            return
        names = set(HTTP_LOGGERS) | {
            name for name in logging.Logger.manager.loggerDict if name.startswith(("httpx.", "httpcore."))
        }
        self._loggers = [logging.getLogger(name) for name in sorted(names)]
        for logger in self._loggers:
            logger.addFilter(self)

    def remove(self) -> None:
        """Detach from every logger `install` attached to."""
        for logger in self._loggers:
            logger.removeFilter(self)
        self._loggers = []
