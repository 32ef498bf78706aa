"""Crop boxes (pixels or relative 0..1), clamped and checked, and the encoding that keeps output under client limits.

How a box's units are told apart (docs/decisions.md, issue 14): units="pixels" or "relative" say it for every box;
units="auto" (the default) reads a box whose four numbers all lie within 0..1 as relative and any other box as
pixels. A pixel box that small would be at most 1x1 pixel, which the minimum size refuses anyway, so auto never
guesses wrong on a box that could be used.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from webreach.errors import InvalidInputError

if TYPE_CHECKING:
    from PIL import Image

Units = Literal["auto", "pixels", "relative"]
PixelBox = tuple[int, int, int, int]


@dataclass(frozen=True)
class CropLimits:
    """What a crop may be, and what its encoded output may be (defaults: under 5 MB and 8,000 px a side)."""

    min_side: int = 8
    max_aspect: float = 50.0
    max_output_side: int = 8_000
    max_output_bytes: int = 5_000_000


@dataclass(frozen=True)
class BoxPlan:
    """A box as cut: whole pixels inside the image, and what was done to the box as given (named in the answer)."""

    pixels: PixelBox
    notes: tuple[str, ...] = ()


def pixel_box(box: Sequence[float], size: tuple[int, int], units: Units = "auto") -> PixelBox:
    """`box` [left, top, right, bottom] as whole pixels inside an image of `size`, or InvalidInputError."""
    return plan_box(box, size, units).pixels


def plan_box(box: Sequence[float], size: tuple[int, int], units: Units = "auto") -> BoxPlan:
    """`box` as whole pixels inside an image of `size`, noting a relative reading under auto and any clamping."""
    if len(box) != 4 or not all(isinstance(v, int | float) and math.isfinite(v) for v in box):
        raise InvalidInputError("a crop box is four finite numbers [left, top, right, bottom]")
    width, height = size
    relative = units == "relative" or (units == "auto" and all(0 <= v <= 1 for v in box))
    if relative:
        left, top, right, bottom = (box[0] * width, box[1] * height, box[2] * width, box[3] * height)
    else:
        left, top, right, bottom = box
    if right <= left or bottom <= top:
        raise InvalidInputError(f"the box {shown(box)} is empty: right must exceed left and bottom must exceed top")
    outer = (math.floor(left), math.floor(top), math.ceil(right), math.ceil(bottom))
    # clamped to the image: a box running past an edge keeps the part inside it
    clamped = (
        max(0, min(width, outer[0])),
        max(0, min(height, outer[1])),
        max(0, min(width, outer[2])),
        max(0, min(height, outer[3])),
    )
    if clamped[2] <= clamped[0] or clamped[3] <= clamped[1]:
        raise InvalidInputError(f"the box {shown(box)} lies outside the {width}x{height} image")
    notes = []
    if relative and units == "auto":
        notes.append(f"read as relative (0..1) under units=auto: pixels {list(outer)}")
    if clamped != outer:
        notes.append(f"ran past the {width}x{height} image: clamped to pixels {list(clamped)}")
    return BoxPlan(clamped, tuple(notes))


def shown(box: Sequence[float]) -> str:
    """A box as the caller wrote it: [300, 0, 400.5, 50], not [300.0, 0.0, 400.5, 50.0]."""
    return "[" + ", ".join(f"{value:g}" for value in box) + "]"


def check_crop(box: PixelBox, limits: CropLimits) -> None:
    """InvalidInputError when the clamped crop is under the minimum side or over the maximum aspect ratio."""
    width, height = box[2] - box[0], box[3] - box[1]
    if min(width, height) < limits.min_side:
        raise InvalidInputError(
            f"the crop is {width}x{height} pixels; each side must be at least {limits.min_side}",
            hint="Use a larger box.",
        )
    if max(width, height) / min(width, height) > limits.max_aspect:
        raise InvalidInputError(
            f"the crop is {width}x{height} pixels, an aspect ratio over {limits.max_aspect:g}:1",
            hint="Use a less elongated box.",
        )


def crop(image: Image.Image, box: Sequence[float], limits: CropLimits, units: Units = "auto") -> Image.Image:
    """The checked crop of `image` (not yet downscaled)."""
    pixels = pixel_box(box, image.size, units)
    check_crop(pixels, limits)
    return image.crop(pixels)


@dataclass(frozen=True)
class Encoded:
    """An image ready to hand to a client: bytes, MIME type and size."""

    data: bytes
    mime: str
    width: int
    height: int


def encode(image: Image.Image, limits: CropLimits) -> Encoded:
    """PNG (lossless) when it fits, else JPEG; downscaled to max_output_side and further until under the byte cap.

    A large crop's PNG size is estimated from a few sample tiles first, and PNG is not even tried when the estimate
    is well over the cap: a noisy 4000x3000 photo takes 1.2 s to encode as a 24 MB PNG only to be thrown away for
    its 74 ms JPEG (bench/images.py). When neither fits, the next size comes from the JPEG's own size (bytes grow
    with the pixel count), shrinking by at least a third, so one or two rounds reach the cap.
    """
    scaled = downscale(image, limits.max_output_side)
    while True:
        if png_may_fit(scaled, limits.max_output_bytes):
            encoded = _png(scaled)
            if len(encoded.data) <= limits.max_output_bytes:
                return encoded
        encoded = _jpeg(scaled)
        if len(encoded.data) <= limits.max_output_bytes:
            return encoded
        # terminates: each round shrinks by a third at least, and a 1x1 JPEG is far under any sane cap
        factor = min(2 / 3, 0.95 * math.sqrt(limits.max_output_bytes / len(encoded.data)))
        side = max(1, int(max(scaled.size) * factor))
        if side == max(scaled.size):
            raise InvalidInputError("the crop cannot be encoded under the configured byte limit")
        scaled = downscale(scaled, side)


SAMPLE_PIXELS = 1_000_000  # below this, PNG is simply tried (tens of milliseconds at most)
TILE = 256
ESTIMATE_MARGIN = 1.1  # PNG is tried unless the estimate exceeds the cap by this much (tiles are a sample)


def png_may_fit(image: Image.Image, max_bytes: int) -> bool:
    """False when the image's PNG would clearly exceed `max_bytes`, judged from four sample tiles' PNG size."""
    width, height = image.size
    if width * height <= SAMPLE_PIXELS:
        return True
    tile_w, tile_h = min(TILE, width), min(TILE, height)
    sampled, size = 0, 0
    for fx, fy in ((0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)):
        left = min(width - tile_w, max(0, int(width * fx) - tile_w // 2))
        top = min(height - tile_h, max(0, int(height * fy) - tile_h // 2))
        size += len(_png(image.crop((left, top, left + tile_w, top + tile_h))).data)
        sampled += tile_w * tile_h
    return size / sampled * width * height <= max_bytes * ESTIMATE_MARGIN


def downscale(image: Image.Image, max_side: int) -> Image.Image:
    """`image` with its longer side at most `max_side` (aspect kept); the same image when already within it."""
    width, height = image.size
    if max(width, height) <= max_side:
        return image
    scale = max_side / max(width, height)
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    from PIL import Image  # Pillow loads with the first image worked on, not with the server (decode.py)

    return image.resize(size, Image.Resampling.LANCZOS)


def _png(image: Image.Image) -> Encoded:
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)  # fast: crops are sent once, and noisy photos cost seconds at 6
    return Encoded(out.getvalue(), "image/png", *image.size)


def _jpeg(image: Image.Image) -> Encoded:
    out = io.BytesIO()
    (image if image.mode == "RGB" else image.convert("RGB")).save(out, format="JPEG", quality=85)
    return Encoded(out.getvalue(), "image/jpeg", *image.size)
