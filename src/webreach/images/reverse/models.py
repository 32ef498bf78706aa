"""What a reverse image search asks and answers: ReverseQuery (the image as a backend gets it), ReverseHit and
ReverseSearchResponse."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

MatchKind = Literal["exact", "visual"]


@dataclass(frozen=True)
class ReverseQuery:
    """The image to look up: its prepared bytes (upright, downscaled) and, when one exists, a public URL of it."""

    data: bytes
    mime: str
    url: str | None
    limit: int


class ReverseHit(BaseModel):
    """One place the image (or one like it) was found."""

    model_config = ConfigDict(frozen=True)

    rank: int
    title: str
    page_url: str | None = Field(None, description="The page the matching image appears on.")
    image_url: str | None = Field(None, description="The matching image itself, when the backend names it.")
    thumbnail_url: str | None = None
    source: str | None = Field(None, description="The page's site (domain or the backend's name for it).")
    match: MatchKind = Field(description="exact: the same image (resized or recompressed); visual: a similar one.")
    similarity: float | None = Field(None, description="0..1 where the backend gives a score, else null.")
    width: int | None = None
    height: int | None = None
    backend: str


class ReverseSearchResponse(BaseModel):
    """Matches from one backend (the first that answered, in auto mode), with the backends that failed first."""

    model_config = ConfigDict(frozen=True)

    token: str | None = Field(None, description="The session token of the image searched for.")
    backend: str
    results: tuple[ReverseHit, ...]
    attempts: tuple[str, ...] = Field((), description="Backends tried before this one answered, with why they failed.")


def deduplicated(hits: list[ReverseHit], limit: int) -> tuple[ReverseHit, ...]:
    """Hits with a repeated (page, image) pair dropped, exact matches kept before visual ones, re-ranked, cut."""
    seen: set[tuple[str, str]] = set()
    kept: list[ReverseHit] = []
    for hit in sorted(hits, key=lambda h: (h.match != "exact", h.rank)):
        key = ((hit.page_url or "").split("#", 1)[0], (hit.image_url or "").split("#", 1)[0])
        if key in seen:
            continue
        seen.add(key)
        kept.append(hit.model_copy(update={"rank": len(kept) + 1}))
        if len(kept) == limit:
            break
    return tuple(kept)
