"""Base64 in pieces (images/base64_pieces.py) is base64: the same text and bytes as the standard library across
piece boundaries, and the same refusals of malformed text."""

from __future__ import annotations

import base64
import binascii
import random

import pytest

from webreach.images.base64_pieces import PIECE, b64decode, b64encode

STEP = PIECE // 4 * 3  # data bytes per piece


@pytest.mark.parametrize("size", [0, 1, 2, 3, STEP - 1, STEP, STEP + 1, 2 * STEP + 2, 3_000_001])
def test_pieces_agree_with_the_standard_library(size: int) -> None:
    data = random.Random(size).randbytes(size)
    text = base64.b64encode(data).decode("ascii")
    assert b64encode(data) == text
    assert b64decode(text) == data


@pytest.mark.parametrize("text", ["abc", "ab=c", "abcd!!!!", "ab\ncd==", "A" * PIECE + "ab*d"])
def test_malformed_base64_is_refused(text: str) -> None:
    with pytest.raises(ValueError):  # binascii.Error is a ValueError, as base64.b64decode(validate=True) raises
        b64decode(text)
    assert issubclass(binascii.Error, ValueError)
