"""SerpApi engine=google_lens (by URL): visual_matches[] (similar images) and exact_matches[] (the same image).

No real capture of a complete google_lens answer exists (shared/data/images/PROVENANCE.md, gaps): the parser
follows SerpApi's documented shape (serpapi.com/google-lens-api: visual_matches[] with position, title, link,
source, thumbnail, image, image_width/height; exact_matches[] likewise with type=exact_matches), and its fixture
in the fake web is written from that shape, said so in the recording. Both lists are read: SerpApi returns
exact_matches when asked with type=exact_matches and visual_matches by default, so one request asks for "all".
"""

from __future__ import annotations

from typing import Any

from webreach.images.reverse._base import kept
from webreach.images.reverse._serpapi import SerpApiReverse, items
from webreach.images.reverse.models import MatchKind, ReverseHit


class SerpApiLens(SerpApiReverse):
    index = "google_lens"
    serpapi_engine = "google_lens"

    def parse(self, data: dict[str, Any]) -> list[ReverseHit]:
        exact = [self._hit(item, "exact") for item in items(data, "exact_matches")]
        visual = [self._hit(item, "visual") for item in items(data, "visual_matches")]
        return kept(exact + visual)

    def _hit(self, item: dict[str, Any], match: MatchKind) -> ReverseHit | None:
        position = item.get("position")
        return self.hit(
            position if isinstance(position, int) else 0, match=match, title=item.get("title"),
            page_url=item.get("link"), image_url=item.get("image"), thumbnail_url=item.get("thumbnail"),
            source=item.get("source"), width=item.get("image_width"), height=item.get("image_height"),
        )  # fmt: skip
