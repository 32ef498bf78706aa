"""Windowing: boundaries, continuity (the windows add up to the whole text), unicode, tokens, bad starts."""

from __future__ import annotations

import importlib.util
import itertools

import pytest

from webreach.errors import InvalidInputError
from webreach.read.window import EstimatedTokenizer, O200kTokenizer, Window, load_tokenizer, window

PROSE = "\n\n".join(
    f"Paragraph {n}. The tide turns twice a day, and the harbour wall shows how high it rose. "
    f"Walkers read the table before they set out, then watch the water as they go."
    for n in range(1, 30)
)
UNICODE = (
    "Café déjà vu — naïve “quotes”. 上海的天气很好。东京は晴れ！👩‍👩‍👧 family, 👍🏽 thumbs, e\u0301 accent, "
    "🇫🇷 flag. " * 40
)
HAS_BPE = importlib.util.find_spec("bpe_openai") is not None


class WordTokenizer:
    """A test tokenizer: one token per whitespace-separated word (injected, not looked up)."""

    estimated = False

    def count(self, text: str) -> int:
        return len(text.split())

    def fit(self, text: str, max_tokens: int) -> int:
        words = 0
        for index, char in enumerate(text):
            if not char.isspace() and (index == 0 or text[index - 1].isspace()):
                words += 1
                if words > max_tokens:
                    return index
        return len(text)


def walk(content: str, **kwargs: object) -> list[Window]:
    """Every window from 0 along next_start."""
    windows = [window(content, 0, **kwargs)]  # type: ignore[arg-type]
    while windows[-1].next_start is not None:
        windows.append(window(content, windows[-1].next_start, **kwargs))  # type: ignore[arg-type]
        assert len(windows) < 10_000
    return windows


def test_short_content_is_one_untruncated_window() -> None:
    result = window("hello world", 0, 100)
    assert result == Window("hello world", 0, 11, None)


def test_empty_content_is_one_empty_window() -> None:
    assert window("", 0, 100) == Window("", 0, 0, None)


@pytest.mark.parametrize("content", [PROSE, UNICODE, "x" * 5000, "no-spaces-" * 300 + " end"])
@pytest.mark.parametrize("max_chars", [1, 7, 100, 777, 8000])
def test_windows_add_up_to_the_whole_content(content: str, max_chars: int) -> None:
    windows = walk(content, max_chars=max_chars)
    assert "".join(w.content for w in windows) == content
    for previous, current in itertools.pairwise(windows):
        assert previous.next_start == current.start == previous.start + len(previous.content)
        assert previous.next_start is not None
    assert all(0 < len(w.content) <= max_chars for w in windows)
    assert all(w.total_chars == len(content) for w in windows)
    assert windows[-1].next_start is None


def test_cut_prefers_a_paragraph_break() -> None:
    result = window(PROSE, 0, 1000)
    assert result.content.endswith(".\n\n")
    assert result.next_start is not None and PROSE[result.next_start :].startswith("Paragraph ")


def test_cut_falls_back_to_a_sentence_then_a_space() -> None:
    # the boundary is looked for in the last fifth of the span only
    text = "This sentence ends right about here. The next one runs on for a while longer"
    assert window(text, 0, 40).content == "This sentence ends right about here. "
    words = "alpha beta gamma delta epsilon zeta eta theta"
    assert window(words, 0, 20).content == "alpha beta gamma "
    assert window("x" * 30 + " tail", 0, 20).content == "x" * 20  # no boundary near the end: a hard cut


def test_cjk_text_is_cut_after_its_punctuation() -> None:
    text = "上海的天气很好。" * 10
    result = window(text, 0, 26)
    assert result.content.endswith("。")
    assert len(result.content) == 24


def test_hard_cut_keeps_combining_marks_and_joiners_with_their_base() -> None:
    text = "ab" + "e\u0301" * 20
    result = window(text, 0, 5)  # the span ends just before a combining acute accent
    assert result.content == "abe\u0301"
    family = "👩\u200d👩\u200d👧" * 5  # five code points per family
    for size in range(5, 20):
        assert len(window(family, 0, size).content) % 5 == 0
    skin = "👍🏽" * 10
    assert all(len(window(skin, 0, size).content) % 2 == 0 for size in range(2, 12))


def test_a_start_in_the_middle_reads_from_there() -> None:
    result = window(PROSE, 50, 20)
    assert result.start == 50 and PROSE[50:].startswith(result.content)


@pytest.mark.parametrize(("start", "total"), [(12, 11), (11, 11), (1, 0), (10**9, 11)])
def test_a_start_past_the_end_is_invalid_input_naming_total_chars(start: int, total: int) -> None:
    with pytest.raises(InvalidInputError) as caught:
        window("x" * total, start, 100)
    assert f"total_chars={total}" in str(caught.value)
    assert caught.value.code == "invalid_input"


@pytest.mark.parametrize(("start", "max_chars", "max_tokens"), [(-1, 100, None), (0, 0, None), (0, 100, 0)])
def test_bad_arguments_are_invalid_input(start: int, max_chars: int, max_tokens: int | None) -> None:
    with pytest.raises(InvalidInputError):
        window("some text", start, max_chars, max_tokens)


def test_max_tokens_with_an_injected_tokenizer() -> None:
    tokenizer = WordTokenizer()
    windows = walk(PROSE, max_chars=8000, max_tokens=25, tokenizer=tokenizer)
    assert "".join(w.content for w in windows) == PROSE
    assert all(w.tokens is not None and w.tokens <= 25 for w in windows)
    assert all(w.tokens == tokenizer.count(w.content) for w in windows)
    assert not any(w.tokens_estimated for w in windows)


def test_max_tokens_without_a_tokenizer_is_an_estimate_and_says_so() -> None:
    result = window(PROSE, 0, 8000, max_tokens=100)
    assert result.tokens_estimated and result.tokens is not None and result.tokens <= 100
    assert len(result.content) <= 400


def test_max_chars_still_binds_when_tokens_allow_more() -> None:
    result = window(PROSE, 0, 200, max_tokens=10_000, tokenizer=EstimatedTokenizer())
    assert len(result.content) <= 200 and result.tokens == EstimatedTokenizer().count(result.content)


def test_no_tokens_reported_unless_asked() -> None:
    result = window(PROSE, 0, 100)
    assert result.tokens is None and not result.tokens_estimated


@pytest.mark.skipif(not HAS_BPE, reason="bpe-openai (the tokens extra) is not installed")
@pytest.mark.slow
def test_o200k_windows_respect_the_token_limit_and_add_up() -> None:
    tokenizer = O200kTokenizer()
    for content in (PROSE, UNICODE):
        windows = walk(content, max_chars=8000, max_tokens=50, tokenizer=tokenizer)
        assert "".join(w.content for w in windows) == content
        assert all(w.tokens == tokenizer.count(w.content) and w.tokens <= 50 for w in windows)
        assert not windows[0].tokens_estimated
        assert windows[0].tokens is not None and windows[0].tokens > 40  # the limit is used, not wasted


@pytest.mark.skipif(not HAS_BPE, reason="bpe-openai (the tokens extra) is not installed")
def test_o200k_counts_and_fits() -> None:
    tokenizer = O200kTokenizer()
    assert tokenizer.count("Hello world") == 2
    assert tokenizer.fit("Hello world, hello world", 2) == len("Hello world")
    assert tokenizer.fit("short", 10) == len("short")


def test_load_tokenizer_picks_the_exact_one_when_installed() -> None:
    tokenizer = load_tokenizer()
    assert tokenizer.estimated is (not HAS_BPE)
