"""The image service the Gateway owns: images named in messages into the store, crops as new `<obs_i>`, and image
search.

Images from URLs come through `fetch` (the Gateway's guarded reader: the SSRF guard, redirects re-checked, byte
caps), never through a client of this package. Every image is decoded (bounded, decode.py) before it is stored, so
the store only ever holds images the crops can read.

Image search (docs/decisions.md, issue 14) is web search's machinery over the image engines (engines/images_*.py):
`search` is the Gateway's search service with vertical "images", so one engine, auto (fallback with hedging) and
multi (fan out and merge), the cache, breakers, rate limits, retries, deadlines and stale-if-error are the very
ones web search uses. This service only translates engine names and shapes the answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from webreach import engines
from webreach.config import ImageSettings, Settings
from webreach.engines import Vertical
from webreach.errors import AllEnginesFailedError, InvalidInputError, SessionStoreError, WebreachError
from webreach.images.crop import CropLimits, Units, crop, encode
from webreach.images.decode import ImageLimits, decode
from webreach.images.hits import ImageSearchResponse, engine_name, short_attempt, short_name
from webreach.images.messages import named_images
from webreach.models import SearchRequest, SearchResponse
from webreach.state.image_store import ImageStore, StoredImage

FetchBytes = Callable[[str, int], Awaitable[bytes]]
MAX_CROPS = 20


class SearchFunction(Protocol):
    """The search service's search (search/service.py Searching.search)."""

    async def __call__(
        self, request: SearchRequest, *, engine: str, engines: Sequence[str] | None, vertical: Vertical
    ) -> SearchResponse: ...


@dataclass(frozen=True)
class CropOutcome:
    """One crop asked for: the token it was cut from, and the new `<obs_i>` with its image, or the typed error."""

    source: str
    image: StoredImage | None = None
    error: WebreachError | None = None


class Images:
    """Session images over `store` (URLs read with `fetch`) and image search through `search`."""

    def __init__(
        self,
        settings: Settings,
        store: ImageStore,
        *,
        fetch: FetchBytes,
        search: SearchFunction,
    ) -> None:
        config: ImageSettings = settings.images
        self.settings = config
        self.store = store
        self._fetch = fetch
        self.input_limits = ImageLimits(config.max_input_bytes, config.max_input_pixels, config.max_input_side)
        self.crop_limits = CropLimits(
            config.min_crop_side, config.max_crop_aspect, config.max_output_side, config.max_output_bytes
        )
        self._search = search

    async def aclose(self) -> None:
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

    # --- search ------------------------------------------------------------------------------------------

    def engine_names(self) -> list[str]:
        """The image engines, as callers name them (bing, duckduckgo, brave_api, ...)."""
        return [short_name(name) for name in engines.names("images")]

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
