"""The fake web's reverse-search backends fetch the image URL they are given, as the real ones do.

A reverse_* route handed an image URL (SerpApi's url / image_url, TinEye's url form field, SearXNG's q) fetches
it over a real socket before it answers, when the URL is on this machine (loopback, e.g. `webreach serve`'s
/i/<id> public link): a URL that does not answer 200 with an image is refused with HTTP 400 and the backend's
kind of error body, like a real backend that could not read the image. URLs elsewhere are never fetched (the
fake web reaches nothing beyond the machine); they are only logged. Every fetch is kept in `fetched` for tests.
"""

from __future__ import annotations

import ipaddress
import threading
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import httpx

from webreach.testing.wire import Request

URL_FIELDS = ("url", "image_url", "q")
IMAGE_TYPES = ("image/jpeg", "image/png", "image/webp", "image/gif", "image/bmp")
MAX_BYTES = 20_000_000


@dataclass(frozen=True)
class FetchedBack:
    """One image URL a reverse backend fetched: what answered."""

    engine: str
    url: str
    status: int
    content_type: str
    size: int

    @property
    def ok(self) -> bool:
        return self.status == 200 and self.content_type.split(";")[0].strip() in IMAGE_TYPES


class ReverseFetcher:
    """Fetches image URLs for the reverse routes and remembers what it saw (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fetched: list[FetchedBack] = []

    def fetched(self) -> list[FetchedBack]:
        with self._lock:
            return list(self._fetched)

    async def refuses(self, engine: str, request: Request) -> str | None:
        """Why the backend could not read its image URL (None: no loopback URL, or it read one fine)."""
        url = image_url(request)
        if url is None or not _loopback(url):
            return None
        try:
            async with httpx.AsyncClient(trust_env=False, timeout=10.0) as client:
                response = await client.get(url)
            fetched = FetchedBack(engine, url, response.status_code, response.headers.get("content-type", ""),
                                  len(response.content))  # fmt: skip
        except httpx.HTTPError as exc:
            fetched = FetchedBack(engine, url, 0, f"unreachable: {type(exc).__name__}", 0)
        with self._lock:
            self._fetched.append(fetched)
        return None if fetched.ok else f"could not fetch the image URL (HTTP {fetched.status} {fetched.content_type})"


def image_url(request: Request) -> str | None:
    """The http(s) image URL the request names in its query or urlencoded form, if any."""
    fields = parse_qs(request.query)
    if (request.header("content-type") or "").startswith("application/x-www-form-urlencoded"):
        fields.update(parse_qs(request.body.decode("latin-1")))
    for name in URL_FIELDS:
        for value in fields.get(name, ()):
            if value.startswith(("http://", "https://")):
                return value
    return None


def _loopback(url: str) -> bool:
    try:
        host = urlsplit(url).hostname or ""
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
