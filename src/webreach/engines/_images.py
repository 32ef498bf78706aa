"""What every image-search engine shares (engines/images_*.py, issue 14): hits that carry an image, settings shared
with the web engine of the same service, and the filters an engine honours.

An image engine subclasses the web engine of its service (images_bing is a Bing), so the web engine's error
classification (its blocks, CAPTCHA redirects, key and quota errors) and its key handling are the image engine's
too; only the request and the parser are new, and its own `name` gives it its own breaker, bucket and cache
entries in the one policy machinery of search/. Settings: an image engine not configured by name uses its web
engine's configuration (`shares_settings_of`; the base URL as well when `shares_origin`), so one key serves both.

A hit is a Hit whose `url` is the page the image sits on (the image's own URL when the engine names no page) and
whose `image` holds the image URL, thumbnail and size; a result without an http(s) image URL is no hit. An engine
lists each image once (by image URL, fragment ignored). The generic result parser does not apply: it finds links
to pages, not images.
"""

from __future__ import annotations

from abc import ABC
from collections.abc import Iterable, Mapping
from typing import Any

from webreach.engines._base import Engine
from webreach.engines._clean import usable_url
from webreach.engines._html import host_of, plain_text
from webreach.models import Hit, ImageFields


class ImageSearchEngine(Engine, ABC):
    """Base of the image engines, put before the web engine class: `class ImagesBing(ImageSearchEngine, Bing)`."""

    @property
    def generic_fallback(self) -> bool:
        return False

    def image_hit(
        self, rank: int, image_url: Any, *, page_url: Any = None, title: Any = None, **fields: Any
    ) -> Hit | None:
        """A Hit carrying an image, or None when `image_url` is no usable http(s) URL; sizes that are not positive
        whole numbers ("1024" as text counts) and a thumbnail that is no usable URL are dropped, and a page that is
        none is replaced by the image."""
        if not _http(image_url):
            return None
        page = page_url if _http(page_url) else image_url
        image = ImageFields(
            image_url=image_url,
            thumbnail_url=fields.get("thumbnail_url") if _http(fields.get("thumbnail_url")) else None,
            width=_size(fields.get("width")),
            height=_size(fields.get("height")),
        )
        source = fields.get("source")
        hit = self.hit(
            rank,
            plain_text(title) if isinstance(title, str) else "",
            page,
            source=source if isinstance(source, str) and source else (host_of(page) or "").removeprefix("www.") or None,
        )
        return hit.model_copy(update={"image": image})

    def image_hits(self, hits: Iterable[Hit | None]) -> list[Hit]:
        """The hits kept, each image once (first listing wins), ranked from 1."""
        kept: list[Hit] = []
        seen: set[str] = set()
        for hit in hits:
            if hit is None or hit.image is None:
                continue
            key = hit.image.image_url.split("#", 1)[0]
            if key not in seen:
                seen.add(key)
                kept.append(hit.model_copy(update={"rank": len(kept) + 1}))
        return kept


def filter_values(request_value: str | None, table: Mapping[str, str]) -> str | None:
    """The engine's value for a filter the request set (None when unset or the engine has no such value)."""
    return table.get(request_value) if request_value else None


def _http(value: Any) -> bool:
    """An absolute http(s) URL the stores and the JSON writer can keep (no lone surrogate or control character)."""
    return isinstance(value, str) and usable_url(value)


def _size(value: Any) -> int | None:
    if isinstance(value, str) and value.isdecimal() and len(value) <= 6:
        value = int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 1_000_000 else None
