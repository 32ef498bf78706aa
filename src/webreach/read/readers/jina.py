"""The Jina reader: r.jina.ai fetches and renders the page from Jina's network and returns its content.

    POST <base_url>/  {"url": "<target>"}   Accept: application/json   [Authorization: Bearer <key>]

The answer is Jina's JSON envelope, `{"code": 200, "data": {"title", "url", "content", "publishedTime"?}}`
(providers.md A4); `X-Return-Format: text` asks for plain text and `html` for the page's HTML, which then goes
through webreach's own extractor so format="html" means the same cleaned main content for every reader.
POST keeps the target out of the request line (no double encoding, and `#hash` routes survive).

Jina is a proxy that fetches whatever it is given, so the target is checked by a guard first: a URL naming or
resolving to a private, loopback or metadata address is refused here and never sent (no SSRF by proxy). That
guard should be a strict one (no operator allow_cidrs): an intranet page the operator lets webreach read must
not be handed to a third party either. The base URL is the operator's configuration and is talked to with an
ordinary client (no environment proxies, no redirects followed, the answer capped in size and time), through the
operator's proxy when one is set (`proxy`: httpx's own, http/https/socks5; the Jina origin is the operator's).

Requests are paced in this process (reader_pace.py) at read.jina_rate_per_minute, by default Jina's published
tiers: 20 a minute without a key, 200 with one. A 407 is the operator's proxy refusing us
(FetchUnavailableError saying so). Jina's own errors: 401/402/403 mean the key is missing, wrong or out of
credits (NotConfiguredError, which reader="auto" skips); 429 is FetchUnavailableError with retry_after; 451
(refused by Jina) PageBlockedError; other 4xx ExtractionError (Jina could not read the page); 5xx
FetchUnavailableError.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

from webreach.config import JINA_READER_URL
from webreach.errors import (
    Arg,
    ExtractionError,
    FetchTimeoutError,
    FetchUnavailableError,
    NotConfiguredError,
    PageBlockedError,
    WebreachError,
    hint,
)
from webreach.extract.cascade import extract
from webreach.extract.extracted import Extracted, as_json
from webreach.extract.worker import ExtractionWorkers
from webreach.models import ReadFormat, ReadRequest
from webreach.net.guard import Guard
from webreach.read.readers import ReadResult, as_fetch_error
from webreach.read.readers.reader_pace import ReaderPace
from webreach.retry_after import retry_after_seconds

DEFAULT_BASE_URL = JINA_READER_URL
MAX_ANSWER_BYTES = 10 * 1024 * 1024
RETURN_FORMATS: dict[ReadFormat, str | None] = {"markdown": None, "json": None, "text": "text", "html": "html"}


class JinaReader:
    """Reads pages through the Jina reader API; never sends it a URL the guard refuses."""

    name = "jina"

    def __init__(
        self,
        guard: Guard,
        *,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str | None = None,
        timeout: float = 30.0,
        max_bytes: int = MAX_ANSWER_BYTES,
        transport: httpx.AsyncBaseTransport | None = None,
        workers: ExtractionWorkers | None = None,
        pace: ReaderPace | None = None,
        proxy: str | None = None,
    ) -> None:
        self.guard = guard
        self.pace = pace  # Jina's rate for this reader (keyless: its free tier), None: unpaced
        self.workers = workers  # HTML asked for is extracted in a killable child (a thread without them)
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.max_bytes = max_bytes
        self._transport = transport
        self._proxy = proxy  # the operator's ([read] jina_proxy or [network] proxy); unused with a transport
        self._client: httpx.AsyncClient | None = None
        self._retired: list[httpx.AsyncClient] = []  # clients of an earlier proxy, closed once no read uses them
        self._in_use: dict[httpx.AsyncClient, int] = {}  # reads under way per client

    def reroute(self, proxy: str | None) -> None:
        """Call Jina through `proxy` (None: direct) from the next read on (the console changed [network] proxy);
        a read under way finishes on its client, which the next read closes once none uses it."""
        if proxy != self._proxy:
            self._proxy = proxy
            if self._client is not None:
                self._retired.append(self._client)
                self._client = None

    async def read(self, url: str, request: ReadRequest, *, seconds: float | None = None) -> ReadResult:
        target = str((await self.guard.check(url)).url)  # refused URLs never reach the proxy
        if self.pace is not None:
            await self.pace.take()  # throttled (reader='auto' moves on) when no slot is free soon
        timeout = self.timeout if seconds is None else min(self.timeout, seconds)  # what the read has left
        try:
            async with asyncio.timeout(timeout):
                status, headers, body = await self._post(target, request.format)
        except TimeoutError:
            message = f"The Jina reader did not answer for {url} within {timeout:g} s."
            raise FetchTimeoutError(message, url=url) from None
        except httpx.HTTPError as exc:
            message = f"The Jina reader at {self.base_url} could not be reached: {exc}."
            raise FetchUnavailableError(message, url=url) from None
        if status >= 400:
            raise self._service_error(status, headers, body, url)
        return await self._result(body, url, target, request.format)

    async def _post(self, target: str, format: ReadFormat) -> tuple[int, httpx.Headers, bytes]:
        headers = {"accept": "application/json"}
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        if RETURN_FORMATS[format]:
            headers["x-return-format"] = str(RETURN_FORMATS[format])
        await self._close_retired()
        client = self._http()
        self._in_use[client] = self._in_use.get(client, 0) + 1
        try:
            async with client.stream("POST", self.base_url + "/", json={"url": target}, headers=headers) as answer:
                chunks, size = [], 0
                async for chunk in answer.aiter_bytes():
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise FetchUnavailableError(
                            f"The Jina reader's answer is over {self.max_bytes:,} bytes.", url=target
                        )
                    chunks.append(chunk)
                return answer.status_code, answer.headers, b"".join(chunks)
        finally:
            self._in_use[client] -= 1
            if not self._in_use[client]:
                del self._in_use[client]

    async def _close_retired(self) -> None:
        idle = [client for client in self._retired if client not in self._in_use]
        self._retired = [client for client in self._retired if client in self._in_use]
        for client in idle:
            await client.aclose()

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                transport=self._transport, proxy=None if self._transport else self._proxy, trust_env=False,
                follow_redirects=False, timeout=httpx.Timeout(self.timeout),
            )  # fmt: skip
        return self._client

    async def _result(self, body: bytes, url: str, target: str, format: ReadFormat) -> ReadResult:
        data = _envelope(body)
        content = str(data.get("content") or "").strip()
        if not content:
            raise ExtractionError(f"The Jina reader returned no content for {url}.", url=url)
        final_url = str(data.get("url") or target)
        title = str(data["title"]) if data.get("title") else None
        date = str(data["publishedTime"]) if data.get("publishedTime") else None
        if format == "html":
            try:
                if self.workers is not None:
                    html = await self.workers.extract(
                        content.encode(), content_type="text/html", url=final_url, format="html", seconds=self.timeout
                    )
                else:
                    html = await asyncio.to_thread(
                        extract, content.encode(), content_type="text/html", url=final_url, format="html"
                    )
            except WebreachError as exc:
                raise as_fetch_error(exc, url) from None
            extracted = Extracted(html.text, "text/html", "html", title or html.title, date=date, extractor="jina")
        else:
            kind: ReadFormat = "text" if format == "text" else "markdown"
            extracted = Extracted(content, "text/html", kind, title, date=date, extractor="jina")
            if format == "json":
                extracted = as_json(extracted, final_url)
        return ReadResult(url, final_url, 200, extracted, self.name)

    def _service_error(self, status: int, headers: httpx.Headers, body: bytes, url: str) -> WebreachError:
        message = _message(body) or httpx.codes.get_reason_phrase(status)
        said = f"The Jina reader answered {status} for {url}: {message}"
        if status == 407:  # only a proxy answers 407: ours ([read] jina_proxy or [network] proxy), not Jina
            said = f"The outbound proxy refused our credentials (HTTP 407) on the way to the Jina reader for {url}."
            return FetchUnavailableError(said, url=url)
        if status in (401, 402, 403):
            return NotConfiguredError(
                said,
                hint=hint("Set a Jina API key with credits (read.jina_api_key) or use {}.", Arg("reader", "direct")),
            )
        if status == 429:
            # Jina's 429s come with a Date header when they carry a date at all; no header at all means a minute
            wait = retry_after_seconds(headers, now=None)
            return FetchUnavailableError(said, url=url, retry_after=60.0 if wait is None else wait)
        if status == 451:
            return PageBlockedError(said, url=url)
        if status < 500:
            return ExtractionError(said, url=url)
        return FetchUnavailableError(said, url=url)

    async def aclose(self) -> None:
        clients, self._retired = [*self._retired, *([self._client] if self._client is not None else [])], []
        self._client = None
        for client in clients:
            await client.aclose()


def _envelope(body: bytes) -> dict[str, Any]:
    """`data` of Jina's JSON envelope; a non-JSON answer (text mode) is taken as the content itself."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return {"content": body.decode("utf-8", "replace")}
    data = parsed.get("data") if isinstance(parsed, dict) else None
    return data if isinstance(data, dict) else {}


def _message(body: bytes) -> str:
    try:
        parsed = json.loads(body)
    except ValueError:
        return body[:200].decode("utf-8", "replace").strip()
    if isinstance(parsed, dict):
        return str(parsed.get("readableMessage") or parsed.get("message") or "")[:300]
    return ""
