"""What an image search asks and answers: ImageSearchRequest, ImageHit and ImageSearchResponse."""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

Safesearch = Literal["off", "moderate", "strict"]
MAX_LIMIT = 50


class ImageSearchRequest(BaseModel):
    """A text query for images."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    query: str = Field(min_length=1, max_length=2000)
    limit: int = Field(10, ge=1, le=MAX_LIMIT)
    safesearch: Safesearch = "moderate"


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


class ImageSearchResponse(BaseModel):
    """Image hits from one engine (the first that answered, in auto mode), deduplicated, with the attempts made."""

    model_config = ConfigDict(frozen=True)

    query: str
    engine: str
    results: tuple[ImageHit, ...]
    attempts: tuple[str, ...] = Field((), description="Engines tried before this one answered, with why they failed.")


def domain(url: str | None) -> str | None:
    """The host of `url` without a leading www. (None when there is none)."""
    host = urlsplit(url or "").hostname or ""
    return host.removeprefix("www.") or None


def deduplicated(hits: list[ImageHit], limit: int) -> tuple[ImageHit, ...]:
    """Hits with repeated image URLs (and a repeated page with the same image) dropped, re-ranked from 1, cut."""
    seen: set[str] = set()
    kept: list[ImageHit] = []
    for hit in hits:
        key = hit.image_url.split("#", 1)[0]
        if key in seen:
            continue
        seen.add(key)
        kept.append(hit.model_copy(update={"rank": len(kept) + 1}))
        if len(kept) == limit:
            break
    return tuple(kept)
