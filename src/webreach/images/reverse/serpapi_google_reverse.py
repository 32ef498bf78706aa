"""SerpApi engine=google_reverse_image (by URL): image_results[] (pages holding the image) and inline_images[]
(visually similar images). Real captures: shared/data/images/serpapi_google_reverse_image (two answers, 2023).

image_results are pages with matching images (Google's "pages that include matching images"): exact matches,
with a page and no image URL of their own. inline_images are Google's similar images: visual matches with
`original` (the image), `source` (its page) and `thumbnail`. SerpApi has since steered users to google_lens
(serpapi_lens); this backend stays for accounts and answers that still use it.
"""

from __future__ import annotations

from typing import Any

from webreach.images.reverse._base import domain, kept
from webreach.images.reverse._serpapi import SerpApiReverse, items
from webreach.images.reverse.models import ReverseHit


class SerpApiGoogleReverse(SerpApiReverse):
    index = "google_images"
    serpapi_engine = "google_reverse_image"
    url_parameter = "image_url"

    def parse(self, data: dict[str, Any]) -> list[ReverseHit]:
        pages = [
            self.hit(
                rank,
                match="exact",
                title=item.get("title"),
                page_url=item.get("link"),
                thumbnail_url=item.get("thumbnail"),
                source=item.get("source"),
            )
            for rank, item in enumerate(items(data, "image_results"), 1)
        ]
        similar = [
            self.hit(
                rank,
                match="visual",
                title=item.get("title"),
                page_url=item.get("source"),
                image_url=item.get("original"),
                thumbnail_url=item.get("thumbnail"),
                source=domain(item.get("source")),
            )
            for rank, item in enumerate(items(data, "inline_images"), 1)
        ]
        return kept(pages + similar)
