"""Which engines auto and multi use by default, by query language.

Decisions (written down because the design leaves them open):
- A configured order (auto_order / auto_order_zh / multi_engines) is used verbatim; engines in it that are
  not usable are still attempted and show up in meta as skipped (not_configured), so a misconfiguration is
  visible instead of silent.
- The default order puts what the operator deliberately configured first: a self-hosted SearXNG, then
  keyed APIs (reliable, no CAPTCHAs), then keyless scraped engines, most tolerant of automated traffic first.
  Unusable engines (an API without a key, SearXNG without an instance) are left out of the default order.
- A query is Chinese when at least a fifth of its letters are CJK ideographs; Chinese queries start with the
  Chinese engines (Bocha, Metaso, Baidu, Sogou, 360) and then continue with the general order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

GENERAL_ORDER = (
    "searxng",
    "brave_api",
    "serper",
    "tavily",
    "exa",
    "serpapi",
    "google_cse",
    "jina",
    "duckduckgo",
    "bing",
    "brave",
    "mojeek",
    "startpage",
    "yahoo",
    "google",
)
CHINESE_FIRST = ("bocha", "metaso", "baidu", "sogou", "bing", "so360")
# image search (issue 14): the same rule over image engines; DuckDuckGo's images come from Bing's index
IMAGE_ORDER = tuple(
    f"images_{name}"
    for name in ("searxng", "brave_api", "serper", "serpapi", "google_cse", "tavily", "bing", "duckduckgo", "sogou",
                 "baidu")
)  # fmt: skip
IMAGE_CHINESE_FIRST = ("images_baidu", "images_sogou", "images_bing")
MULTI_SIZE = 3


def is_chinese(text: str) -> bool:
    """True when CJK ideographs make up at least a fifth of the letters."""
    if text.isascii():  # most queries: no need to look at each character
        return False
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return False
    cjk = sum(1 for ch in letters if "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf")
    return cjk * 5 >= len(letters)


def default_order(query: str, known: Sequence[str], usable: Callable[[str], bool], vertical: str = "web") -> list[str]:
    """The default auto order for `query`: usable engines only, Chinese engines first for Chinese queries."""
    general, chinese = (IMAGE_ORDER, IMAGE_CHINESE_FIRST) if vertical == "images" else (GENERAL_ORDER, CHINESE_FIRST)
    preferred = (*chinese, *general) if is_chinese(query) else general
    ordered = list(dict.fromkeys(name for name in preferred if name in known))
    # engines added later that no list mentions still take part, after the listed ones
    ordered += [name for name in known if name not in ordered]
    return [name for name in ordered if usable(name)]


def default_multi(order: Sequence[str], index_of: Callable[[str], str], size: int = MULTI_SIZE) -> list[str]:
    """The first `size` engines of `order` with distinct underlying indexes (fan-out over one index is waste)."""
    chosen: list[str] = []
    seen: set[str] = set()
    for name in order:
        if index_of(name) not in seen:
            chosen.append(name)
            seen.add(index_of(name))
        if len(chosen) == size:
            break
    return chosen
