"""Windowing extracted content: one slice of at most max_chars (and optionally max_tokens), and where to go next.

    window(content, start=0, max_chars=8000, max_tokens=None, tokenizer=None) -> Window

The slice is content[start:next_start] exactly: concatenating every window from start 0 along next_start gives
back the whole content, character for character. Inside the last fifth of the allowed span the cut prefers a
paragraph break, then a line break, then the end of a sentence (Latin or CJK punctuation), then any space; with
none there it cuts hard, but never between a character and the combining marks or joiners that follow it.

max_tokens counts with a Tokenizer. load_tokenizer() gives the exact o200k tokenizer when bpe-openai is
installed (the `tokens` extra) and otherwise a chars/4 estimate whose windows say tokens_estimated=True. The
caller (the gateway) loads one tokenizer and passes it in: O200kTokenizer builds its vocabulary on first use
(about a second) and keeps it for its own lifetime, never in module state.
"""

from __future__ import annotations

import importlib.util
import math
import re
import unicodedata
import warnings
from dataclasses import dataclass
from typing import Any, Protocol

from webreach.errors import InvalidInputError
from webreach.models import DEFAULT_MAX_CHARS

BOUNDARIES = (
    re.compile(r"\n[ \t]*\n\s*"),  # paragraph
    re.compile(r"\n\s*"),  # line
    re.compile(r"[.!?;:][\"')\]]*\s+|[。！？；…]+[」』）”]*\s*"),  # sentence, Latin or CJK
    re.compile(r"\s+"),  # word
)
LOOKBACK_SHARE = 0.2  # search the last fifth of the span for a boundary
JOINERS = frozenset({"\u200d", "\u200c", "\u034f"})


class Tokenizer(Protocol):
    """Counts tokens; `estimated` says whether the counts are exact."""

    @property
    def estimated(self) -> bool: ...

    def count(self, text: str) -> int:
        """Tokens in `text`."""
        ...

    def fit(self, text: str, max_tokens: int) -> int:
        """How many leading characters of `text` fit in `max_tokens` tokens (at most len(text))."""
        ...


class EstimatedTokenizer:
    """About four characters per token: a fair estimate for English prose, generous for code and CJK."""

    chars_per_token = 4

    @property
    def estimated(self) -> bool:
        return True

    def count(self, text: str) -> int:
        return math.ceil(len(text) / self.chars_per_token)

    def fit(self, text: str, max_tokens: int) -> int:
        return min(len(text), max_tokens * self.chars_per_token)


class O200kTokenizer:
    """The o200k_base encoding (GPT-4o and later) through bpe-openai, built on first use."""

    def __init__(self, encoding_name: str = "o200k_base") -> None:
        self.encoding_name = encoding_name
        self._encoding: Any = None

    @property
    def estimated(self) -> bool:
        return False

    def _get(self) -> Any:
        if self._encoding is None:
            # optional dependency (the `tokens` extra), imported on first use only; bpe-openai 0.1 loads its
            # vocabularies through a deprecated importlib.resources call, noise that is not ours to act on
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                self._encoding = importlib.import_module("bpe_openai").get_encoding(self.encoding_name)
        return self._encoding

    def count(self, text: str) -> int:
        return len(self._get().encode_ordinary(text))

    def fit(self, text: str, max_tokens: int) -> int:
        encoding = self._get()
        tokens = encoding.encode_ordinary(text)
        if len(tokens) <= max_tokens:
            return len(text)
        # the first max_tokens tokens are a prefix of the text's UTF-8 bytes; a character they hold only part of (a
        # token may end inside a CJK character or an emoji) is left to the next window
        head = encoding.decode_bytes(tokens[:max_tokens])
        return len(head.decode("utf-8", errors="ignore"))


def load_tokenizer() -> Tokenizer:
    """The exact o200k tokenizer when bpe-openai is installed, else the estimate."""
    if importlib.util.find_spec("bpe_openai") is not None:
        return O200kTokenizer()
    return EstimatedTokenizer()


@dataclass(frozen=True)
class Window:
    """content == whole[start:next_start] (to the end when next_start is None)."""

    content: str
    start: int
    total_chars: int
    next_start: int | None  # where the next window starts (None: this window reaches the end)
    tokens: int | None = None
    tokens_estimated: bool = False


def window(
    content: str,
    start: int = 0,
    max_chars: int = DEFAULT_MAX_CHARS,
    max_tokens: int | None = None,
    tokenizer: Tokenizer | None = None,
) -> Window:
    """The window of `content` from `start`; raises InvalidInputError for a start past the end."""
    total = len(content)
    if max_chars < 1 or (max_tokens is not None and max_tokens < 1):
        raise InvalidInputError(f"max_chars and max_tokens must be at least 1 (got {max_chars}, {max_tokens}).")
    if start < 0 or start > total or (start == total and total > 0):
        raise InvalidInputError(
            f"start={start} is outside the content, which has total_chars={total}.",
            hint=f"Use a start from 0 to {max(total - 1, 0)}, or the next_start of the previous window.",
        )
    end = min(total, start + max_chars)
    if end < total:
        end = soft_cut(content, start, end)
    tokens = None
    if max_tokens is not None:
        tokenizer = tokenizer or EstimatedTokenizer()
        end, tokens = fit_tokens(content, start, end, max_tokens, tokenizer)
    next_start = end if end < total else None
    return Window(
        content=content[start:end],
        start=start,
        total_chars=total,
        next_start=next_start,
        tokens=tokens,
        tokens_estimated=tokenizer.estimated if tokenizer is not None and max_tokens is not None else False,
    )


def soft_cut(content: str, start: int, end: int) -> int:
    """A cut position in (start, end]: the best boundary in the span's last fifth, else a safe hard cut."""
    floor = max(start + 1, end - max(1, int((end - start) * LOOKBACK_SHARE)))
    for boundary in BOUNDARIES:
        cut = None
        for match in boundary.finditer(content, floor, end):
            cut = match.end()
        if cut is not None and cut > start:
            return cut
    return hard_cut(content, start, end)


def hard_cut(content: str, start: int, end: int) -> int:
    """`end`, moved back so a combining mark, joiner or variation selector stays with its base character."""
    cut = end
    while cut > start + 1 and (_attaches(content[cut]) or content[cut - 1] in JOINERS):
        cut -= 1
    return cut


def _attaches(char: str) -> bool:
    """True for characters that belong to the one before them."""
    return (
        unicodedata.combining(char) != 0
        or char in JOINERS
        or "\ufe00" <= char <= "\ufe0f"  # variation selectors
        or "\U0001f3fb" <= char <= "\U0001f3ff"  # skin-tone modifiers
        or unicodedata.category(char) == "Mn"
    )


def fit_tokens(content: str, start: int, end: int, max_tokens: int, tokenizer: Tokenizer) -> tuple[int, int]:
    """Shrink [start, end) to at most `max_tokens` tokens, preferring boundaries; returns (end, tokens)."""
    tokens = tokenizer.count(content[start:end])
    while tokens > max_tokens and end > start + 1:
        limit = start + tokenizer.fit(content[start:end], max_tokens)
        # a cut can merge tokens differently than the full text did; shrinking strictly guarantees progress
        end = soft_cut(content, start, min(limit, end - 1)) if limit > start else start + 1
        tokens = tokenizer.count(content[start:end])
    return end, tokens
