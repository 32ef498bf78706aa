"""Property: whatever the bytes, decoding an image and cropping it end in pixels or a typed webreach error.

Inputs are the seeds of webreach.testing.mutations.image_seeds (every supported format, EXIF rotation, animation,
palette transparency, 16-bit grey, CMYK, a PNG header claiming 10^10 pixels) mutated like any hostile body (byte
flips, truncation, repeats, inserted floods, BOMs), and boxes of any numbers. 200 examples by default;
WEBREACH_FUZZ=long runs 5,000.
"""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webreach.errors import WebreachError
from webreach.images.crop import CropLimits, crop, encode
from webreach.images.decode import ImageLimits, decode
from webreach.testing.mutations import Case, image_seeds, mutate

pytestmark = pytest.mark.fuzz

EXAMPLES = 5000 if os.environ.get("WEBREACH_FUZZ") == "long" else 200
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES < 1000,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
SEEDS = image_seeds()
LIMITS = ImageLimits(max_bytes=3_000_000, max_pixels=4_000_000, max_side=4_096)
NUMBERS = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-(2**70), 2**70))


@FUZZ
@given(st.sampled_from(SEEDS), st.randoms(use_true_random=False), st.lists(NUMBERS, min_size=0, max_size=6))
def test_any_image_bytes_decode_and_crop_or_fail_typed(seed: bytes, rng: random.Random, box: list[float]) -> None:
    body = mutate(Case(200, (), seed), rng).body if rng.random() < 0.9 else seed
    try:
        decoded = decode(body, LIMITS)
        cropped = crop(decoded.image, box, CropLimits())
        encoded = encode(cropped, CropLimits())
    except WebreachError:
        return
    assert encoded.data and cropped.size[0] >= CropLimits().min_side
