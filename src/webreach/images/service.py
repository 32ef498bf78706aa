"""The image service the Gateway owns: images named in messages into the store, crops as new `<obs_i>`, and image
search with auto fallback across the configured image engines.

Images from URLs come through `fetch` (the Gateway's guarded reader: the SSRF guard, redirects re-checked, byte
caps), never through a client of this package. Every image is decoded (bounded, decode.py) before it is stored, so
the store only ever holds images the crops can read.

Image search (docs/decisions.md, issue 14): engine "auto" asks the configured engines in order and answers with the
first that returns hits, listing why the earlier ones failed; a named engine is asked alone and its error raised.
Breakers, rate limits and the cache of web search are not applied yet (the report says so).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

import httpx

from webreach.clock import Clock
from webreach.config import ImageSettings, Settings
from webreach.engines import Engine
from webreach.engines import create as create_engine
from webreach.errors import (
    AllEnginesFailedError,
    EngineError,
    EngineTimeoutError,
    InvalidInputError,
    NotConfiguredError,
    SessionStoreError,
    UnavailableError,
    WebreachError,
)
from webreach.images.crop import CropLimits, Units, crop, encode
from webreach.images.decode import ImageLimits, decode
from webreach.images.engines import IMAGE_ENGINES, ImageEngine
from webreach.images.hits import ImageHit, ImageSearchRequest, ImageSearchResponse, deduplicated
from webreach.images.messages import named_images
from webreach.images.reverse.models import MAX_REVERSE_LIMIT, ReverseSearchResponse
from webreach.images.reverse.prepare import prepare
from webreach.images.reverse.service import CallGuard, ReverseSearch, Unguarded
from webreach.images.storage import Storage, open_storage
from webreach.state.image_store import TOKEN, ImageStore, StoredImage

FetchBytes = Callable[[str, int], Awaitable[bytes]]
MAX_CROPS = 20


@dataclass(frozen=True)
class CropOutcome:
    """One crop asked for: the token it was cut from, and the new `<obs_i>` with its image, or the typed error."""

    source: str
    image: StoredImage | None = None
    error: WebreachError | None = None


class Images:
    """Session images and image search over `store`, fetching URLs with `fetch` and engines over `transport`."""

    def __init__(
        self,
        settings: Settings,
        store: ImageStore,
        *,
        fetch: FetchBytes,
        clock: Clock,
        transport: httpx.AsyncBaseTransport | None = None,
        guard: CallGuard | None = None,
    ) -> None:
        config: ImageSettings = settings.images
        self.settings = config
        self.store = store
        self._fetch = fetch
        self.input_limits = ImageLimits(config.max_input_bytes, config.max_input_pixels, config.max_input_side)
        self.crop_limits = CropLimits(
            config.min_crop_side, config.max_crop_aspect, config.max_output_side, config.max_output_bytes
        )
        self._max_body = settings.max_body_bytes
        self._clock = clock
        self.engines: dict[str, ImageEngine] = {}
        self.reconfigure(settings)
        self._client = httpx.AsyncClient(
            transport=transport, trust_env=False, follow_redirects=False,
            timeout=httpx.Timeout(settings.engine_timeout, connect=settings.connect_timeout),
        )  # fmt: skip
        self._storage: Storage | None = None  # opened on first use: an unused s3 setting must not fail startup
        self._reverse: ReverseSearch | None = None
        self._guard: CallGuard = guard or Unguarded()
        self._settings, self._clock = settings, clock

    def reconfigure(self, settings: Settings) -> None:
        """The image engines again from `settings` (keys and addresses the console changed while running)."""
        self.engines = {
            name: IMAGE_ENGINES[name](_web_engine(settings, name, self._clock)) for name in self.settings.engines
        }

    async def aclose(self) -> None:
        await self._client.aclose()
        self.store.close()

    # --- tokens ------------------------------------------------------------------------------------------

    async def register(self, session: str, messages: Sequence[object]) -> list[StoredImage]:
        """Store every image `messages` names under its token; the images, in order."""
        stored = []
        for named in named_images(list(messages)):
            data = (
                named.data
                if named.data is not None
                else await self._fetch(named.url or "", self.input_limits.max_bytes)
            )
            decoded = decode(data, self.input_limits)
            image = StoredImage(named.token, data, decoded.mime, *decoded.image.size)
            self.store.put(session, image)
            stored.append(image)
        return stored

    def image(self, session: str, token: str) -> StoredImage:
        """The image `token` names in `session` (UnknownImageTokenError when none)."""
        return self.store.get(session, token)

    # --- crops -------------------------------------------------------------------------------------------

    def crop(self, session: str, crops: Mapping[str, Sequence[float]], units: Units = "auto") -> list[CropOutcome]:
        """Each crop as a new `<obs_i>` (or its typed error): one bad box never fails the others."""
        if not crops:
            raise InvalidInputError("no crops given", hint='Pass {"<image_1>": [left, top, right, bottom]}.')
        if len(crops) > MAX_CROPS:
            raise InvalidInputError(f"at most {MAX_CROPS} crops per call")
        return [self._crop_one(session, token, box, units) for token, box in crops.items()]

    def _crop_one(self, session: str, token: str, box: Sequence[float], units: Units) -> CropOutcome:
        try:
            source = self.store.get(session, token)
            piece = crop(decode(source.data, self.input_limits).image, box, self.crop_limits, units)
            encoded = encode(piece, self.crop_limits)
        except SessionStoreError:
            raise  # the store is down for every crop alike: one error for the call, not one per crop
        except WebreachError as exc:
            return CropOutcome(token, error=exc)
        image = StoredImage("", encoded.data, encoded.mime, encoded.width, encoded.height)
        new = self.store.put(session, image)
        return CropOutcome(token, StoredImage(new, encoded.data, encoded.mime, encoded.width, encoded.height))

    # --- storage, uploads and reverse search (images/storage.py, images/reverse/) ----------------------------

    @property
    def storage(self) -> Storage:
        if self._storage is None:
            self._storage = open_storage(self.settings, self.store)
        return self._storage

    @property
    def reverse(self) -> ReverseSearch:
        if self._reverse is None:
            self._reverse = ReverseSearch(
                self._settings, client=self._client, guard=self._guard, storage=self.storage, clock=self._clock
            )
        return self._reverse

    async def upload(self, session: str, data: bytes) -> StoredImage:
        """Decode (bounded) and store `data` as a new `<obs_i>` of `session`."""
        decoded = decode(data, self.input_limits)
        image = StoredImage("", data, decoded.mime, *decoded.image.size)
        token = self.store.put(session, image)
        return StoredImage(token, data, image.mime, image.width, image.height)

    async def url_for(self, image: StoredImage) -> str | None:
        """A URL of the image per the storage mode (None with storage = inline)."""
        return await self.storage.url_for(image.data, image.mime)

    async def resolve(self, session: str, image: str) -> tuple[StoredImage, str | None]:
        """The image an agent named: a token of the session, an http(s) URL (fetched through the guard and
        stored as a new `<obs_i>`) or base64 data (a data URL or bare); with the URL when one was given."""
        text = image.strip()
        if TOKEN.fullmatch(text):
            return self.store.get(session, text), None
        if text.lower().startswith(("http://", "https://")):
            return await self.upload(session, await self._fetch(text, self.input_limits.max_bytes)), text
        return await self.upload(session, decode_base64(text)), None

    async def reverse_search(
        self, session: str, image: str, *, limit: int = 10, backend: str = "auto"
    ) -> ReverseSearchResponse:
        """Where `image` (token, URL or base64) appears on the web, from `backend` or auto's first answer."""
        if not 1 <= limit <= MAX_REVERSE_LIMIT:
            raise InvalidInputError(f"limit must be 1..{MAX_REVERSE_LIMIT}")
        stored, url = await self.resolve(session, image)
        data, mime = prepare(
            stored.data, self.input_limits, max_side=self.settings.upload_max_side,
            max_bytes=self.settings.upload_max_bytes,
        )  # fmt: skip
        name, hits, attempts = await self.reverse.search(data, mime, url=url, limit=limit, backend=backend)
        return ReverseSearchResponse(token=stored.token, backend=name, results=hits, attempts=attempts)

    # --- search ------------------------------------------------------------------------------------------

    def engine_names(self) -> list[str]:
        return list(self.engines)

    async def search(self, request: ImageSearchRequest, engine: str = "auto") -> ImageSearchResponse:
        """Images for `request` from `engine`, or from the first configured engine that answers (auto)."""
        if engine != "auto" and engine not in self.engines:
            raise InvalidInputError(
                f"unknown image engine {engine!r}", hint=f"Valid engines: auto, {', '.join(self.engines)}."
            )
        names = list(self.engines) if engine == "auto" else [engine]
        failures: list[WebreachError] = []
        for name in names:
            try:
                hits = await self._ask(self.engines[name], request)
            except (EngineError, NotConfiguredError) as exc:
                if engine != "auto":
                    raise
                failures.append(exc)
                continue
            tried = tuple(f"{error.engine}: {error.code}" for error in failures)
            return ImageSearchResponse(
                query=request.query, engine=name, results=deduplicated(hits, request.limit), attempts=tried
            )
        raise AllEnginesFailedError("no image engine answered", errors=failures)

    async def _ask(self, engine: ImageEngine, request: ImageSearchRequest) -> list[ImageHit]:
        engine.web.ensure_configured()
        http_request = engine.build_request(request)
        try:
            response = await self._client.send(http_request, stream=True)
            try:
                body = await _bounded_body(response, self._max_body, engine.name)
            finally:
                await response.aclose()
        except httpx.TimeoutException:
            raise EngineTimeoutError("did not answer in time", engine=engine.name) from None
        except httpx.HTTPError as exc:
            raise UnavailableError(f"could not be reached ({type(exc).__name__})", engine=engine.name) from None
        answer = httpx.Response(response.status_code, headers=response.headers, content=body, request=http_request)
        return engine.handle(answer)


def decode_base64(text: str) -> bytes:
    """The bytes of a base64 image argument (a data URL or bare base64), or InvalidInputError."""
    header, comma, payload = text.partition(",")
    if comma and header.startswith("data:"):
        if not header.endswith(";base64"):
            raise InvalidInputError("only base64 data URLs are supported")
        text = payload
    try:
        return base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        raise InvalidInputError(
            "the image is neither a token, an http(s) URL nor valid base64 data",
            hint="Pass <image_1>, https://..., or data:image/png;base64,....",
        ) from None


async def _bounded_body(response: httpx.Response, limit: int, engine: str) -> bytes:
    chunks, size = [], 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > limit:
            raise UnavailableError(f"answered with more than {limit:,} bytes", engine=engine)
        chunks.append(chunk)
    return b"".join(chunks)


def _web_engine(settings: Settings, name: str, clock: Clock) -> Engine:
    """The web engine `name` as configured; offline, pointed at the fake web's image recordings of it."""
    configured = settings.engine(name)
    if settings.fake_web and not configured.base_url:
        configured = configured.model_copy(update={"base_url": f"{settings.fake_web.rstrip('/')}/images_{name}"})
    return create_engine(name, configured, user_agent=settings.user_agent, clock=clock)
