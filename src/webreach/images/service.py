"""The image service the Gateway owns: images named in messages into the store, crops as new `<obs_i>`, image
search and reverse image search.

Images from URLs come through `fetch` (the Gateway's guarded reader: the SSRF guard, redirects re-checked, byte
caps), never through a client of this package. Every image is decoded (bounded, decode.py) before it is stored, so
the store only ever holds images the crops can read.

Image search (docs/decisions.md, issue 14) is web search's machinery over the image engines (engines/images_*.py):
`search` is the Gateway's search service with vertical "images", so one engine, auto (fallback with hedging) and
multi (fan out and merge), the cache, breakers, rate limits, retries, deadlines and stale-if-error are the very
ones web search uses. This service only translates engine names and shapes the answer.

Reverse image search (images/reverse/) gets its backends from the `reverse` factory the Gateway passes: they send
over the search service's engine client and run under its policy stack (policies/guarded.py), so this package owns
no HTTP client at all.
"""

from __future__ import annotations

import binascii
import functools
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from webreach.config import ImageSettings, Settings, effective_proxy
from webreach.defaults import MAX_CROPS
from webreach.engines import Vertical
from webreach.errors import AllEnginesFailedError, InvalidInputError, SessionStoreError, WebreachError
from webreach.images.base64_pieces import b64decode
from webreach.images.crop import CropLimits, Units
from webreach.images.decode import ImageLimits
from webreach.images.hits import ImageSearchResponse, engine_name, short_attempt, short_name
from webreach.images.messages import named_images
from webreach.images.pixels import PixelWork
from webreach.images.reverse.models import ReverseSearchResponse
from webreach.images.reverse.prepare import prepare
from webreach.images.reverse.service import ReverseSearch
from webreach.images.storage import Storage, open_storage
from webreach.local_files import read_under
from webreach.models import TOOL_LIMITS, SearchRequest, SearchResponse
from webreach.state.image_store import TOKEN, ImageTokens, StoredImage

FetchBytes = Callable[[str, int], Awaitable[bytes]]
# the reverse-image backends over a storage: the Gateway's, over its search service's engine client and policies
ReverseFactory = Callable[[Storage], ReverseSearch]
REVERSE_LIMIT = TOOL_LIMITS["reverse_image_search"]  # the library's call takes the tool's limit

T = TypeVar("T")


class SearchFunction(Protocol):
    """The search service's search (search/service.py Searching.search)."""

    async def __call__(
        self, request: SearchRequest, *, engine: str, engines: Sequence[str] | None, vertical: Vertical
    ) -> SearchResponse: ...


@dataclass(frozen=True)
class CropOutcome:
    """One crop asked for: the token it was cut from, its box as given, and the new `<obs_i>` with its image, the
    pixel box cut and what was done to the box (clamped, read as relative, downscaled), or the typed error."""

    source: str
    image: StoredImage | None = None
    error: WebreachError | None = None
    box: tuple[float, ...] = ()
    pixels: tuple[int, int, int, int] | None = None
    notes: tuple[str, ...] = ()


class Images:
    """Session images over `store` (URLs read with `fetch`), image search through `search` over the registry's
    image engines (`image_engines`, registry names) and reverse image search through the backends `reverse` opens."""

    def __init__(
        self,
        settings: Settings,
        store: ImageTokens,
        *,
        fetch: FetchBytes,
        search: SearchFunction,
        reverse: ReverseFactory,
        image_engines: Sequence[str],
    ) -> None:
        config: ImageSettings = settings.images
        self.settings = config
        self._proxy = effective_proxy(config.s3.proxy, settings.network.proxy)  # for an S3 store's uploads
        self.store = store
        self._fetch = fetch
        self.input_limits = ImageLimits(config.max_input_bytes, config.max_input_pixels, config.max_input_side)
        self.crop_limits = CropLimits(
            config.min_crop_side, config.max_crop_aspect, config.max_output_side, config.max_output_bytes
        )
        self.pixels = PixelWork(
            self.input_limits, self.crop_limits, workers=config.workers, cache_bytes=config.decoded_cache_bytes
        )
        self._search = search
        self._engine_names = [short_name(name) for name in image_engines]
        self._open_reverse = reverse
        self._storage: Storage | None = None  # opened on first use: an unused s3 setting must not fail startup
        self._reverse: ReverseSearch | None = None

    def reconfigure(self, settings: Settings) -> None:
        """Take new settings while running (the console's): image search follows them through the search service;
        the reverse backends are opened again on next use, with the keys and addresses now configured, and so is
        an S3 store when [network] proxy changed its route."""
        self._reverse = None
        proxy = effective_proxy(self.settings.s3.proxy, settings.network.proxy)
        if proxy != self._proxy:
            self._proxy, self._storage = proxy, None

    async def aclose(self) -> None:
        self.pixels.close()
        self.store.close()

    # --- tokens ------------------------------------------------------------------------------------------

    async def register(self, session: str, messages: Sequence[object]) -> list[StoredImage]:
        """Store every image `messages` names under its token; the images, in order."""
        stored = []
        for named in await self.pixels.run(named_images, list(messages)):  # base64 decoding: off the loop too
            data = (
                named.data
                if named.data is not None
                else await self._fetch(named.url or "", self.input_limits.max_bytes)
            )
            decoded = await self.pixels.check(data, (session, named.token))  # kept: crops of it follow
            image = StoredImage(named.token, data, decoded.mime, *decoded.image.size)
            await self.store.put(session, image)
            stored.append(image)
        return stored

    async def image(self, session: str, token: str) -> StoredImage:
        """The image `token` names in `session` (UnknownImageTokenError when none)."""
        return await self.store.get(session, token)

    # --- crops -------------------------------------------------------------------------------------------

    async def crop(
        self, session: str, crops: Mapping[str, Sequence[float]], units: Units = "auto"
    ) -> list[CropOutcome]:
        """Each crop as a new `<obs_i>` (or its typed error): one bad box never fails the others. The pixel work
        runs on the worker threads (images/pixels.py), the decoded image reused across crops."""
        if not crops:
            raise InvalidInputError("no crops given", hint='Pass {"<image_1>": [left, top, right, bottom]}.')
        if len(crops) > MAX_CROPS:
            raise InvalidInputError(f"at most {MAX_CROPS} crops per call")
        return [await self._crop_one(session, token, box, units) for token, box in crops.items()]

    async def _crop_one(self, session: str, token: str, box: Sequence[float], units: Units) -> CropOutcome:
        try:
            source = await self.store.get(session, token)
            cut = await self.pixels.cut((session, token), source.data, box, units)
        except SessionStoreError:
            raise  # the store is down for every crop alike: one error for the call, not one per crop
        except WebreachError as exc:
            return CropOutcome(token, error=exc, box=tuple(box))
        encoded = cut.encoded
        image = StoredImage("", encoded.data, encoded.mime, encoded.width, encoded.height)
        new = await self.store.put(session, image)
        made = StoredImage(new, encoded.data, encoded.mime, encoded.width, encoded.height)
        return CropOutcome(token, made, box=tuple(box), pixels=cut.pixels, notes=cut.notes)

    # --- storage, uploads and reverse search (images/storage.py, images/reverse/) ----------------------------

    @property
    def storage(self) -> Storage:
        if self._storage is None:
            self._storage = open_storage(self.settings, self.store, self._proxy)
        return self._storage

    @property
    def storage_mode(self) -> str:
        """How crops and uploads are handed out: inline (their bytes), public_url or s3 (a URL)."""
        return self.storage.mode

    async def on_worker(self, work: Callable[..., T], *args: object) -> T:
        """`work(*args)` on the image worker threads (megabytes of base64 or JSON: never on the event loop)."""
        return await self.pixels.run(work, *args)

    @property
    def reverse(self) -> ReverseSearch:
        if self._reverse is None:
            self._reverse = self._open_reverse(self.storage)
        return self._reverse

    async def upload(self, session: str, data: bytes) -> StoredImage:
        """Decode (bounded) and store `data` as a new `<obs_i>` of `session`."""
        decoded = await self.pixels.check(data)
        image = StoredImage("", data, decoded.mime, *decoded.image.size)
        token = await self.store.put(session, image)
        return StoredImage(token, data, image.mime, image.width, image.height)

    async def upload_file(self, session: str, name: str) -> StoredImage:
        """The image file `name` names inside [images] upload_dir (local_files.read_under: nothing outside it, no
        symbolic links), stored as a new `<obs_i>` of `session`."""
        root = self.settings.upload_dir
        if root is None:
            raise InvalidInputError(
                "local files cannot be uploaded here: no upload directory is configured",
                hint="Ask the operator to set [images] upload_dir, or pass the image as a URL or base64 data.",
            )
        return await self.upload(session, await self.pixels.run(read_under, root, name, self.input_limits.max_bytes))

    async def url_for(self, image: StoredImage) -> str | None:
        """A URL of the image per the storage mode (None with storage = inline)."""
        return await self.storage.url_for(image.data, image.mime)

    async def resolve(self, session: str, image: str) -> tuple[StoredImage, str | None]:
        """The image an agent named: a token of the session, an http(s) URL (fetched through the guard and
        stored as a new `<obs_i>`) or base64 data (a data URL or bare); with the URL when one was given."""
        text = image.strip()
        if TOKEN.fullmatch(text):
            return await self.store.get(session, text), None
        if text[:8].lower().startswith(("http://", "https://")):  # not .lower() of megabytes of base64
            return await self.upload(session, await self._fetch(text, self.input_limits.max_bytes)), text
        return await self.upload(session, await self.pixels.run(decode_base64, text)), None  # megabytes: off the loop

    async def reverse_search(
        self, session: str, image: str, *, limit: int = REVERSE_LIMIT.default, backend: str = "auto"
    ) -> ReverseSearchResponse:
        """Where `image` (token, URL or base64) appears on the web, from `backend` or auto's first answer."""
        if not 1 <= limit <= REVERSE_LIMIT.maximum:
            raise InvalidInputError(f"limit must be 1..{REVERSE_LIMIT.maximum}")
        stored, url = await self.resolve(session, image)
        config = self.settings
        upload = functools.partial(prepare, max_side=config.upload_max_side, max_bytes=config.upload_max_bytes)
        data, mime = await self.pixels.run(upload, stored.data, self.input_limits)
        name, hits, attempts = await self.reverse.search(data, mime, url=url, limit=limit, backend=backend)
        return ReverseSearchResponse(token=stored.token, backend=name, results=hits, attempts=attempts)

    # --- search ------------------------------------------------------------------------------------------

    def engine_names(self) -> list[str]:
        """The image engines, as callers name them (bing, duckduckgo, brave_api, ...)."""
        return list(self._engine_names)

    async def search(
        self, request: SearchRequest, engine: str = "auto", engines: Sequence[str] | None = None
    ) -> ImageSearchResponse:
        """Images for `request` from one engine, `auto` (fallback) or `multi` (fan out, merged and deduplicated by
        image URL and by page): the search machinery's routing and policies, over the image engines."""
        named = engine if engine in ("auto", "multi") else self._registry_name(engine)
        listed = [self._registry_name(name) for name in engines] if engines else None
        try:
            response = await self._search(request, engine=named, engines=listed, vertical="images")
        except WebreachError as exc:
            raise shown(exc) from None
        return ImageSearchResponse.of(response)

    def _registry_name(self, short: str) -> str:
        if short not in self.engine_names():
            raise InvalidInputError(
                f"unknown image engine {short!r}", hint=f"Valid engines: auto, multi, {', '.join(self.engine_names())}."
            )
        return engine_name(short)


def shown(error: WebreachError) -> WebreachError:
    """`error` naming image engines as callers do ("bing", not the registry's "images_bing"): its engine, and for
    all_engines_failed each engine's error, its attempts and the "engine: code" pairs the router's message lists."""
    if error.engine:
        error.engine = short_name(error.engine)
    if isinstance(error, AllEnginesFailedError):
        for inner in error.errors:
            shown(inner)
        for attempt in error.attempts:
            error.message = error.message.replace(f"{attempt.engine}:", f"{short_name(attempt.engine)}:")
        error.attempts = tuple(short_attempt(attempt) for attempt in error.attempts)
    return error


def decode_base64(text: str) -> bytes:
    """The bytes of a base64 image argument (a data URL or bare base64), or InvalidInputError."""
    header, comma, payload = text.partition(",")
    if comma and header.startswith("data:"):
        if not header.endswith(";base64"):
            raise InvalidInputError("only base64 data URLs are supported")
        text = payload
    try:
        return b64decode("".join(text.split()))
    except (binascii.Error, ValueError):
        raise InvalidInputError(
            "the image is neither a token, an http(s) URL nor valid base64 data",
            hint="Pass <image_1>, https://..., or data:image/png;base64,....",
        ) from None
