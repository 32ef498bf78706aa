"""Merging several engines' hits: canonical URLs for dedupe, reciprocal-rank fusion for order. Pure functions.

canonical_url() decides when two hits are the same page. It ignores what does not change the page: the scheme
(http and https alike), a leading "www.", default ports, userinfo, the fragment, a trailing slash, the order
of query parameters, percent-encoding differences, and tracking parameters (TRACKING_PARAMETERS plus any name
starting with "utm_"). Path case is kept: paths are case-sensitive. A URL without a host is returned as given.

Image hits (Hit.image set) are the same when their image URLs are, or when two engines found an image on the
same page (engines link one picture under different sizes and hosts); one engine's several images of one page stay
apart. merge() scores each page by reciprocal-rank fusion, sum over distinct underlying indexes of 1 / (60 + rank),
where an index counts once with its best rank, so DuckDuckGo and Yahoo (both Bing underneath) agreeing is
one vote, not two. k = 60 is the usual RRF constant: it keeps rank 1 from drowning out agreement. Fields are
merged as: first engine's URL (an https one preferred), first non-empty title, date, source and display URL,
longest snippet, and every engine that found the page, in first-seen order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

from webreach.models import Hit

RRF_K = 60

# click IDs and campaign tags that ad networks, mail tools and sites append; none selects content
TRACKING_PARAMETERS = frozenset(
    {
        "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "gad_source",  # Google Ads
        "fbclid", "igshid",  # Meta
        "msclkid",  # Microsoft Ads
        "yclid",  # Yandex
        "twclid", "ttclid", "li_fat_id",  # X, TikTok, LinkedIn
        "mc_cid", "mc_eid",  # Mailchimp
        "_hsenc", "_hsmi", "mkt_tok",  # HubSpot, Marketo
        "_ga", "_gl",  # Google Analytics cross-domain
        "srsltid",  # Google Merchant tag on organic results
        "ref", "ref_src", "ref_url",  # referrer tags
        "spm", "scm",  # Alibaba-family click tracking, common on Chinese sites
    }
)  # fmt: skip
TRACKING_PREFIXES = ("utm_",)
_DEFAULT_PORTS = (80, 443)
# characters left unescaped in a canonical path; everything else is percent-encoded the same way every time
_PATH_SAFE = "/:@!$&'()*+,;=~"


def canonical_url(url: str) -> str:
    """The dedupe key for `url`: scheme-less, lowercase host without www., tracking and fragment dropped."""
    text = url.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:  # an unparseable port or bracket: nothing to normalize against
        return text
    host = (parts.hostname or "").rstrip(".").removeprefix("www.")
    if not host:
        return text
    if ":" in host:
        host = f"[{host}]"  # IPv6 literals keep their brackets
    if port is not None and port not in _DEFAULT_PORTS:
        host = f"{host}:{port}"
    path = quote(unquote(parts.path), safe=_PATH_SAFE).rstrip("/")
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _is_tracking(k)]
    encoded = urlencode(sorted(query), quote_via=quote)
    return f"{host}{path}?{encoded}" if encoded else f"{host}{path}"


def _is_tracking(name: str) -> bool:
    lowered = name.lower()
    return lowered in TRACKING_PARAMETERS or lowered.startswith(TRACKING_PREFIXES)


@dataclass
class _Page:
    """One canonical URL while merging: the fields so far and where each index ranked it."""

    first: Hit
    engine_order: int
    seen_order: int
    url: str
    title: str
    snippet: str
    display_url: str | None
    date: str | None
    source: str | None
    engines: list[str] = field(default_factory=list)
    index_ranks: dict[str, int] = field(default_factory=dict)

    def absorb(self, hit: Hit, engine: str, index: str) -> None:
        if self.url.startswith("http:") and hit.url.startswith("https:"):
            self.url = hit.url
        self.title = self.title or hit.title
        if len(hit.snippet) > len(self.snippet):
            self.snippet = hit.snippet
        self.display_url = self.display_url or hit.display_url
        self.date = self.date or hit.date
        self.source = self.source or hit.source
        if engine not in self.engines:
            self.engines.append(engine)
        self.index_ranks[index] = min(hit.rank, self.index_ranks.get(index, hit.rank))

    @property
    def score(self) -> float:
        # summed in a fixed order so pages with the same ranks get bit-identical scores (ties stay ties)
        return sum(1.0 / (RRF_K + rank) for rank in sorted(self.index_ranks.values()))

    @property
    def best_rank(self) -> int:
        return min(self.index_ranks.values())


def merge(results_by_engine: Mapping[str, Sequence[Hit]], indexes: Mapping[str, str]) -> tuple[Hit, ...]:
    """Dedupe, fuse and rank hits from several engines (iteration order = engine order); every page, best first.

    `indexes` maps engine name to its underlying index; an engine missing from it is its own index.
    """
    pages: dict[str, _Page] = {}
    page_keys: dict[str, tuple[str, str]] = {}  # image hits: page -> (engine that found it first, its key)
    for engine_order, (engine, hits) in enumerate(results_by_engine.items()):
        for hit in hits:
            key = _key(hit, engine, pages, page_keys)
            if key not in pages:
                pages[key] = _Page(
                    hit, engine_order, len(pages), hit.url, hit.title, "", hit.display_url, hit.date, hit.source
                )
            pages[key].absorb(hit, engine, indexes.get(engine, engine))
    ranked = sorted(pages.values(), key=lambda p: (-p.score, p.best_rank, p.engine_order, p.seen_order))
    return tuple(_to_hit(page, rank) for rank, page in enumerate(ranked, start=1))


def _key(hit: Hit, engine: str, pages: Mapping[str, _Page], page_keys: dict[str, tuple[str, str]]) -> str:
    """The dedupe key: the canonical URL; for an image hit its image URL, or the key of the same page's image
    another engine found (engines link one picture under different sizes and CDN hosts; one engine's several
    images of a page stay apart)."""
    if hit.image is None:
        return canonical_url(hit.url)
    key = "image:" + canonical_url(hit.image.image_url)
    if key in pages:
        return key
    page = canonical_url(hit.url)
    first = page_keys.setdefault(page, (engine, key))
    return first[1] if first[0] != engine else key


def _to_hit(page: _Page, rank: int) -> Hit:
    return page.first.model_copy(
        update={
            "rank": rank,
            "url": page.url,
            "title": page.title,
            "snippet": page.snippet,
            "display_url": page.display_url,
            "date": page.date,
            "source": page.source,
            "engine": page.engines[0],
            "engines": tuple(page.engines),
            "score": page.score,
        }
    )
