"""Runs one engine over HTTP: warm-up tokens, the request, a bounded body, and typed transport failures.

This is the only place engine traffic touches the network. Engines stay pure (build_request / handle); this
module sends what they describe through the Gateway's engine client, never following redirects (a redirect is
the engine's business: Google /sorry, Baidu wappass and Sogou antispider are CAPTCHAs), and turns every
transport failure into EngineTimeoutError, UnreachableError (this machine's network: no DNS, no route, refused;
network_failure.py) or UnavailableError.

Response headers are kept as the bytes that arrived (a non-ASCII byte in any header, `x-served-by: café`, is
no reason to fail); engines read them through httpx's tolerant decoding. Anything unexpected the transport
raises becomes UnavailableError; parsing runs through search/parsing.py, off the event loop for large answers.

Keys stay out of messages: transport error texts can quote the request URL (a SerpApi URL carries the key), so
they pass through the engine's `redact` before they become a message. Log lines are search/log_redaction.py's
business; warm-up tokens are kept by search/warm_up.py.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import httpx

from webreach.engines import Engine, Tokens
from webreach.errors import EngineError, EngineTimeoutError, NotConfiguredError, UnavailableError, UnreachableError
from webreach.models import SearchRequest
from webreach.network_failure import describe, unreachable_cause
from webreach.policies.contract import EngineResult
from webreach.search.parsing import EngineParsing
from webreach.search.warm_up import WarmUpTokens

LOGGER = logging.getLogger(__name__)


class EngineCaller:
    """A Search callable for one engine: the innermost layer, below every policy."""

    def __init__(
        self,
        engine: Engine,
        client: httpx.AsyncClient | Callable[[], httpx.AsyncClient],
        *,
        tokens: WarmUpTokens,
        max_body_bytes: int,
        parsing: EngineParsing | None = None,
    ) -> None:
        self.engine = engine
        self._client = client
        self._tokens = tokens
        self._max_body_bytes = max_body_bytes
        self._parsing = parsing or EngineParsing()

    async def __call__(self, request: SearchRequest) -> EngineResult:
        self.engine.ensure_configured()
        tokens = await self._warm_up(request)
        response = await self.send(self.engine.build_request(request, tokens))
        parsed = await self._parsing.handle(self.engine, response)
        return EngineResult(tuple(parsed.hits), parsed_by=parsed.parsed_by, answer=parsed.answer)

    async def _warm_up(self, request: SearchRequest) -> Tokens | None:
        warm_up = self.engine.warm_up(request)
        if warm_up is None:
            return None
        key = self.engine.warm_up_key(request)
        cached = self._tokens.get(self.engine.name, key)
        if cached is not None:
            return cached
        response = await self.send(warm_up)
        tokens = await self._parsing.warm_up_tokens(self.engine, response)
        if tokens:
            # an empty answer (no cookie set, no vqd on the page) is not cached, so the next search warms up again
            self._tokens.put(self.engine.name, key, tokens, self.engine.warm_up_ttl)
        return tokens

    @property
    def client(self) -> httpx.AsyncClient:
        """The HTTP client, got from its source on the first send: a gateway lists every engine at start-up, and
        an httpx client without a given transport loads the CA bundle when built (~22 ms CPU, measured
        2026-11-28), so engines never called never pay it."""
        if not isinstance(self._client, httpx.AsyncClient):
            self._client = self._client()
        return self._client

    async def send(self, http_request: httpx.Request) -> httpx.Response:
        """Send one request and read at most max_body_bytes of its (decoded) body."""
        name = self.engine.name
        try:
            response = await self.client.send(http_request, stream=True, follow_redirects=False)
            try:
                body = await self._read_capped(response)
            finally:
                await response.aclose()
        except httpx.TimeoutException as exc:
            raise EngineTimeoutError(f"no answer in time ({type(exc).__name__})", engine=name) from None
        except httpx.HTTPError as exc:
            cause = unreachable_cause(exc)
            if cause is not None:  # our network, not the engine: never held against it (policies/breaker.py)
                said = describe(cause, http_request.url.host)
                if cause == "proxy":  # what the proxy said (httpx's text names no credentials)
                    said = f"{said} ({self.engine.redact(str(exc))})"
                raise UnreachableError(said, cause=cause, engine=name) from None
            # httpx's texts may quote the request URL, and a SerpApi URL carries the key
            reason = self.engine.redact(str(exc))
            raise UnavailableError(f"connection failed ({type(exc).__name__}: {reason})", engine=name) from None
        except (EngineError, NotConfiguredError):
            raise
        except Exception as exc:  # the transport's own bugs on odd input: still this engine's failure
            LOGGER.warning("%s: the request raised %s", name, type(exc).__name__)
            raise UnavailableError(f"connection failed ({type(exc).__name__})", engine=name) from None
        return rebuilt_response(response.status_code, response.headers.raw, body, http_request)

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


def rebuilt_response(
    status: int, raw_headers: Sequence[tuple[bytes, bytes]], body: bytes, request: httpx.Request
) -> httpx.Response:
    """A response holding `body` already read and decoded (Content-Encoding and -Length dropped), its headers as
    the bytes that arrived: decoded and encoded again as str, a non-ASCII value raised UnicodeEncodeError."""
    headers = [(k, v) for k, v in raw_headers if k.lower() not in (b"content-encoding", b"content-length")]
    return httpx.Response(status, headers=headers, content=body, request=request)
