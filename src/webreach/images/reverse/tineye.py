"""TinEye (keyless, the website's JSON): POST /api/v1/result_json/ with the image uploaded (multipart `image`)
or its URL (`url`), as tineye.com's own page and SearXNG's tineye engine ask it.

Answer: matches[] with image_url (TinEye's copy of the match), domain, width, height, score where given, and
backlinks[] {url (the image on the page), backlink (the page), crawl_date}. TinEye finds copies of the image
(resized, cropped, recoloured), so every match is "exact"; a score (0..100) becomes similarity 0..1. No real
capture exists (PROVENANCE.md gaps): the parser follows the shape PicImageSearch's and SearXNG's parsers read,
and the fake web's recording is written from it (said so in the recording). An answer without `matches` is a
ParseError unless num_matches says 0.
"""

from __future__ import annotations

from typing import Any

import httpx

from webreach.images.reverse._base import ReverseBackend, Send, kept, upload_name
from webreach.images.reverse.models import ReverseHit, ReverseQuery


class TinEye(ReverseBackend):
    index = "tineye"
    kind = "scraped"
    base_url = "https://tineye.com"
    takes_url = True
    takes_upload = True
    rate_per_minute = 6.0

    async def search(self, query: ReverseQuery, send: Send) -> list[ReverseHit]:
        params = {"sort": "score", "order": "desc", "page": "1"}
        headers = self.rules.browser_headers(Accept="application/json")
        url = self.rules.url("/api/v1/result_json/")
        if query.url is not None:
            request = httpx.Request("POST", url, params=params, data={"url": query.url}, headers=headers)
        else:
            files = {"image": (upload_name(query.mime), query.data, query.mime)}
            request = httpx.Request("POST", url, params=params, files=files, headers=headers)
        return self.parse(self.answer(await send(request)))

    def parse(self, data: dict[str, Any]) -> list[ReverseHit]:
        matches = data.get("matches")
        if not isinstance(matches, list):
            if data.get("num_matches") == 0:
                return []
            raise self.rules.parse_error("answered without a matches list")
        return kept([self._hit(rank, item) for rank, item in enumerate(matches, 1) if isinstance(item, dict)])

    def _hit(self, rank: int, item: dict[str, Any]) -> ReverseHit | None:
        backlinks = item.get("backlinks")
        links = [link for link in backlinks if isinstance(link, dict)] if isinstance(backlinks, list) else []
        first = links[0] if links else {}
        score = item.get("score")
        similarity = score / 100 if isinstance(score, int | float) and not isinstance(score, bool) else None
        return self.hit(
            rank, match="exact", title=first.get("image_name") or item.get("domain"), page_url=first.get("backlink"),
            image_url=first.get("url"), thumbnail_url=item.get("image_url"), source=item.get("domain"),
            similarity=similarity, width=item.get("width"), height=item.get("height"),
        )  # fmt: skip
