"""A token budget that ends inside a multi-byte character (a token holding part of a CJK character or an emoji)
cuts before that character instead of failing: the exact tokenizer's fit() never raises on any text."""

from __future__ import annotations

import pytest

from webreach.read.window import load_tokenizer, window

TEXT = "Café “quoted” — 北京是中国的首都 🎉🎉 " * 200


def test_fit_never_fails_inside_a_character_and_stays_within_the_budget() -> None:
    tokenizer = load_tokenizer()
    if tokenizer.estimated:
        pytest.skip("bpe-openai is not installed (the `tokens` extra)")
    for max_tokens in range(10, 400, 7):
        shown = window(TEXT, 0, 200_000, max_tokens, tokenizer)
        assert shown.tokens is not None and shown.tokens <= max_tokens
        assert TEXT.startswith(shown.content) and shown.content
