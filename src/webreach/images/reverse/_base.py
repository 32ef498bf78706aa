"""What a reverse-image backend is: metadata, and hits from one image through an injected `send`.

A backend does no I/O of its own: the service hands it `send`, which sends one request through the engine
client (bounded body, timeouts and transport failures as typed errors) and returns the response. Most backends
send one request; Bing's upload needs two (the upload, then the insights for its token), which is why a backend
gets `send` rather than describing a single request.

Errors are classified exactly as web engines classify theirs: each backend owns `rules`, an engines.Provider (the
part of an Engine every provider shares, without the search contract) of its own name, kind and origin, whose
check_response maps statuses, challenge pages, Retry-After, keys and quotas to the one error tree (so breakers and
auto fallback read the same codes). Settings: a backend that shares a web
engine's account (`web_engine`: serpapi, bing, searxng) starts from that engine's [engines.NAME] settings; its
own [images.reverse_settings.NAME] entry overrides them field by field (keys, base URL, rate, timeout).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar
from urllib.parse import urlsplit

import httpx

from webreach.clock import Clock
from webreach.config import EngineSettings
from webreach.engines import EngineKind, Provider, json_object
from webreach.errors import NotConfiguredError
from webreach.images.reverse._catalog import row_of
from webreach.images.reverse.models import MatchKind, ReverseHit, ReverseQuery

Send = Callable[[httpx.Request], Awaitable[httpx.Response]]


class Rules(Provider):
    """A backend's configuration and response checks; `webreach engines` lists the backends through them."""

    # its checks are every provider's (engines/_catalog.py check_configured); a backend without a public origin
    # (SearXNG) has a base_url_hint, so without its instance's URL it is not configured


class ReverseBackend(ABC):
    """One reverse-image backend. Subclasses set the ClassVars and `search`; a backend in the table
    (_catalog.py) gets its name, key requirement and web engine from its row."""

    name: ClassVar[str]
    kind: ClassVar[EngineKind]
    base_url: ClassVar[str]
    index: ClassVar[str]  # whose index of images it searches (google_lens, bing_images, tineye ...)
    web_engine: ClassVar[str | None] = None
    needs_key: ClassVar[bool] = False
    needs_instance: ClassVar[bool] = False  # no public default origin: the operator names one (SearXNG)
    takes_url: ClassVar[bool] = False
    takes_upload: ClassVar[bool] = False
    rate_per_minute: ClassVar[float] = 10.0

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        row = row_of(cls.__module__, cls.__name__)
        if row is not None:  # the table owns these (classes outside it, tests and plug-ins, set their own)
            cls.name, cls.needs_key, cls.web_engine = row.name, row.needs_key, row.web_engine

    def __init__(self, settings: EngineSettings, *, user_agent: str, clock: Clock) -> None:
        ways = (("url", self.takes_url), ("upload", self.takes_upload))
        attributes = {
            "name": self.name, "kind": self.kind, "base_url": self.base_url, "needs_key": self.needs_key,
            "index": self.index, "rate_per_minute": self.rate_per_minute,
            "base_url_hint": "the instance's base_url" if self.needs_instance else "",
            "shares_settings_of": self.web_engine or "",
            "supports": frozenset(way for way, taken in ways if taken),  # how it takes the image
        }  # fmt: skip
        rules_class = type(f"{type(self).__name__}Rules", (Rules,), attributes)
        self.rules: Rules = rules_class(settings, user_agent=user_agent, clock=clock)
        self.settings = settings

    @abstractmethod
    async def search(self, query: ReverseQuery, send: Send) -> list[ReverseHit]:
        """Matches for `query.data` (uploaded) or `query.url` (fetched by the backend)."""

    def ready(self, query: ReverseQuery) -> None:
        """NotConfiguredError when the backend is off, lacks its key, or needs a URL and `query` has none."""
        self.rules.ensure_configured()
        if not self.takes_upload and query.url is None:
            raise NotConfiguredError(
                'takes image URLs only, and this image has none: set [images] storage = "public_url" or "s3"'
                " so webreach can give it one",
                engine=self.name,
            )

    def answer(self, response: httpx.Response) -> dict[str, Any]:
        """The JSON object of an API answer, after the shared status and challenge checks."""
        self.rules.check_response(response)
        return json_object(response, self.name)

    def hit(self, rank: int, *, match: MatchKind, **fields: Any) -> ReverseHit | None:
        """A ReverseHit, or None when the item names neither an http(s) page nor an http(s) image; numbers
        that are not positive ints are dropped, a similarity outside 0..1 too."""
        for key in ("page_url", "image_url", "thumbnail_url"):
            value = fields.get(key)
            fields[key] = value if isinstance(value, str) and value.startswith(("http://", "https://")) else None
        if fields["page_url"] is None and fields["image_url"] is None:
            return None
        for key in ("width", "height"):
            value = fields.get(key)
            fields[key] = value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
        score = fields.get("similarity")
        valid = isinstance(score, int | float) and not isinstance(score, bool) and 0 <= score <= 1
        fields["similarity"] = float(score) if valid and score is not None else None
        fields["title"] = " ".join(str(fields.get("title") or "").split())
        source = fields.get("source")
        fields["source"] = source if isinstance(source, str) and source else domain(fields["page_url"])
        return ReverseHit(rank=rank, match=match, backend=self.name, **fields)


def domain(url: str | None) -> str | None:
    """The host of `url` without a leading www. (None when there is none)."""
    try:
        host = urlsplit(url or "").hostname or ""
    except ValueError:
        return None
    return host.removeprefix("www.") or None


def kept(hits: list[ReverseHit | None]) -> list[ReverseHit]:
    return [hit for hit in hits if hit is not None]


def upload_name(mime: str) -> str:
    """A file name for a multipart upload of `mime` (backends look at the extension)."""
    return "image." + {"image/jpeg": "jpg", "image/png": "png", "image/webp": "webp"}.get(mime, "jpg")
