"""What an image search answers: ImageHit and ImageSearchResponse, built from the search machinery's response.

Image engines live in the engine registry as `images_<engine>` (engines/images_*.py) and run through the same
routing and policies as web search; callers (the tools, the Python API) name them without the prefix ("bing"),
and every engine name in an answer is shown that way too.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from webreach.models import EngineAttempt, Hit, SafeSearch, SearchResponse

Safesearch = SafeSearch
PREFIX = "images_"
__all__ = ["ImageHit", "ImageSearchResponse", "Safesearch", "engine_name", "short_attempt", "short_name"]


def engine_name(short: str) -> str:
    """The registry name of image engine `short` ("bing" -> "images_bing")."""
    return f"{PREFIX}{short}"


def short_name(name: str) -> str:
    """The name callers use for registry name `name` ("images_bing" -> "bing")."""
    return name.removeprefix(PREFIX)


def short_attempt(attempt: EngineAttempt) -> EngineAttempt:
    """An attempt naming its engine as callers do, in its engine field and its message's "engine: " lead."""
    short = short_name(attempt.engine)
    message = attempt.message
    if message is not None and message.startswith(f"{attempt.engine}: "):
        message = f"{short}: {message.removeprefix(f'{attempt.engine}: ')}"
    return attempt.model_copy(update={"engine": short, "message": message})


class ImageHit(BaseModel):
    """One image found: where the image is, the page it sits on and what the engine knows of it."""

    model_config = ConfigDict(frozen=True)

    rank: int
    title: str
    page_url: str | None = Field(None, description="The page the image appears on.")
    image_url: str = Field(description="The full-size image.")
    thumbnail_url: str | None = None
    width: int | None = None
    height: int | None = None
    source: str | None = Field(None, description="The page's site (domain or the engine's name for it).")
    engine: str
    engines: tuple[str, ...] = Field((), description="Every engine that found it (multi).")

    @classmethod
    def of(cls, hit: Hit) -> ImageHit:
        image = hit.image
        assert image is not None  # image engines only make hits with an image
        return cls(
            rank=hit.rank, title=hit.title, page_url=hit.url if hit.url != image.image_url else None,
            image_url=image.image_url, thumbnail_url=image.thumbnail_url, width=image.width, height=image.height,
            source=hit.source, engine=short_name(hit.engine), engines=tuple(short_name(e) for e in hit.engines),
        )  # fmt: skip


class ImageSearchResponse(BaseModel):
    """Image hits and what happened with each engine asked (attempts, as web search reports them)."""

    model_config = ConfigDict(frozen=True)

    query: str
    mode: str = Field(description="'engine' (one named), 'auto' (fallback) or 'multi' (fan out and merge).")
    engines_used: tuple[str, ...] = Field(description="The engines the results come from.")
    results: tuple[ImageHit, ...]
    attempts: tuple[EngineAttempt, ...] = Field(description="Every engine asked: ok, empty, error, skipped ...")
    stale: bool = Field(False, description="Served from an expired cache entry because every engine failed.")

    @classmethod
    def of(cls, response: SearchResponse) -> ImageSearchResponse:
        meta = response.meta
        attempts = tuple(short_attempt(attempt) for attempt in meta.attempts)
        return cls(
            query=response.query, mode=meta.mode, engines_used=tuple(short_name(e) for e in meta.engines_used),
            results=tuple(ImageHit.of(hit) for hit in response.results if hit.image is not None),
            attempts=attempts, stale=meta.stale,
        )  # fmt: skip
