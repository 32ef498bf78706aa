"""Bounded decoding and crops: pixel-exact against Pillow, hostile images end in typed errors in bounded memory."""

from __future__ import annotations

import io
import random
import struct
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from webreach.errors import CorruptImageError, ImageTooLargeError, InvalidInputError, UnsupportedImageError
from webreach.images.crop import CropLimits, crop, downscale, encode, pixel_box, png_may_fit
from webreach.images.decode import ImageLimits, decode


def png_bytes(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def gradient(width: int = 300, height: int = 200) -> Image.Image:
    image = Image.new("RGB", (width, height))
    image.putdata([(x % 256, y % 256, (x * y) % 256) for y in range(height) for x in range(width)])
    return image


def bomb_png(width: int, height: int) -> bytes:
    """A small PNG whose header claims width x height pixels (the IHDR rewritten, its CRC recomputed)."""
    data = bytearray(png_bytes(Image.new("L", (1, 1))))
    ihdr = struct.pack(">II", width, height) + bytes(data[24:29])
    data[16:29] = ihdr
    data[29:33] = struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return bytes(data)


@pytest.mark.parametrize("box", [[10, 20, 110, 90], [0, 0, 300, 200], [250, 150, 300, 200]])
def test_pixel_crop_is_exact(box: list[int]) -> None:
    source = gradient()
    decoded = decode(png_bytes(source))
    cropped = crop(decoded.image, box, CropLimits())
    assert ImageChops.difference(cropped, source.crop(tuple(box))).getbbox() is None
    again = Image.open(io.BytesIO(encode(cropped, CropLimits()).data))
    assert ImageChops.difference(again.convert("RGB"), source.crop(tuple(box))).getbbox() is None


def test_relative_box_matches_pixels() -> None:
    source = gradient()
    assert pixel_box([0.1, 0.25, 0.5, 0.75], source.size) == (30, 50, 150, 150)
    # units="pixels" reads even small numbers as pixels, and "relative" large ones as fractions (clamped)
    assert pixel_box([0, 0, 1, 1], source.size, "pixels") == (0, 0, 1, 1)
    assert pixel_box([0.5, 0, 2, 1], source.size, "relative") == (150, 0, 300, 200)


def test_box_is_clamped_to_the_image() -> None:
    assert pixel_box([-50, -5, 400, 199.5], (300, 200)) == (0, 0, 300, 200)


@pytest.mark.parametrize(
    "box",
    [[10, 10, 5, 50], [400, 400, 500, 500], [0, 0, 3, 100], [0, 0, 300, 4], [1, 2, 3], [0, 0, float("nan"), 1]],
)
def test_bad_boxes_are_typed_errors(box: list[float]) -> None:
    with pytest.raises(InvalidInputError):
        crop(gradient(), box, CropLimits())


def test_aspect_ratio_is_capped() -> None:
    with pytest.raises(InvalidInputError, match="aspect ratio"):
        crop(gradient(1000, 200), [0, 0, 1000, 10], CropLimits(min_side=2, max_aspect=50))


def test_output_is_downscaled_to_the_max_side_and_byte_cap() -> None:
    image = gradient(600, 300)
    assert downscale(image, 200).size == (200, 100)
    encoded = encode(image, CropLimits(max_output_side=400, max_output_bytes=20_000))
    assert max(encoded.width, encoded.height) <= 400
    assert len(encoded.data) <= 20_000


def test_formats_and_first_frame() -> None:
    for fmt in ("JPEG", "PNG", "WEBP", "GIF", "BMP"):
        out = io.BytesIO()
        gradient(64, 32).save(out, format=fmt)
        decoded = decode(out.getvalue())
        assert decoded.format == fmt and decoded.image.size == (64, 32)
    frames = [Image.new("RGB", (16, 16), colour) for colour in ("red", "blue")]
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:])
    assert decode(out.getvalue()).image.convert("RGB").getpixel((0, 0)) == (255, 0, 0)


def test_exif_orientation_is_applied() -> None:
    out = io.BytesIO()
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to view
    gradient(60, 20).save(out, format="JPEG", exif=exif)
    assert decode(out.getvalue()).image.size == (20, 60)


HOSTILE = {
    "bomb": (lambda: bomb_png(100_000, 100_000), ImageTooLargeError),
    "wide": (lambda: png_bytes(Image.new("L", (20_000, 1))), ImageTooLargeError),
    "truncated": (lambda: png_bytes(gradient())[:2000], CorruptImageError),
    "svg": (lambda: b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>', UnsupportedImageError),
    "tiff": (lambda: _saved(gradient(8, 8), "TIFF"), UnsupportedImageError),
}


def _saved(image: Image.Image, fmt: str) -> bytes:
    out = io.BytesIO()
    image.save(out, format=fmt)
    return out.getvalue()


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_images_are_typed_errors(name: str) -> None:
    make, error = HOSTILE[name]
    with pytest.raises(error):
        decode(make())


def test_pixel_and_byte_limits_are_configurable() -> None:
    with pytest.raises(ImageTooLargeError):
        decode(png_bytes(gradient()), ImageLimits(max_pixels=1000))
    with pytest.raises(ImageTooLargeError):
        decode(png_bytes(gradient()), ImageLimits(max_bytes=100))


@pytest.mark.slow
def test_bomb_is_refused_within_bounded_memory() -> None:
    """In a child process whose address space is capped at 1 GiB: decoding the bomb's 10^10 pixels would need
    10 GB, so reaching the typed error proves nothing was allocated for them."""
    script = textwrap.dedent(
        """
        import resource, sys
        from tests.images.test_decode_crop import HOSTILE
        from webreach.images.decode import decode
        from webreach.errors import ImageError
        payloads = {name: make() for name, (make, _) in HOSTILE.items()}
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        for name, data in payloads.items():
            try:
                decode(data)
            except ImageError as exc:
                print(name, exc.code)
        """
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False, cwd=root
    )
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.split("\n")[:-1]) == sorted(
        f"{name} {error.code}" for name, (_, error) in HOSTILE.items()
    )


def noise(width: int, height: int) -> Image.Image:
    return Image.frombytes("RGB", (width, height), random.Random(3).randbytes(width * height * 3))


def test_a_noisy_crop_whose_png_cannot_fit_goes_straight_to_jpeg() -> None:
    limits = CropLimits(max_output_bytes=2_000_000)
    image = noise(1600, 1200)  # its PNG is ~5.8 MB: the sample tiles say so, and PNG is not tried
    assert not png_may_fit(image, limits.max_output_bytes)
    encoded = encode(image, limits)
    assert encoded.mime == "image/jpeg" and len(encoded.data) <= limits.max_output_bytes
    assert (encoded.width, encoded.height) == (1600, 1200)


def test_a_large_smooth_crop_stays_lossless_png() -> None:
    image = Image.linear_gradient("L").resize((2000, 1500)).convert("RGB")
    assert png_may_fit(image, CropLimits().max_output_bytes)
    encoded = encode(image, CropLimits())
    assert encoded.mime == "image/png"
    assert ImageChops.difference(Image.open(io.BytesIO(encoded.data)).convert("RGB"), image).getbbox() is None


def test_the_shrink_rounds_reach_a_small_byte_cap() -> None:
    limits = CropLimits(max_output_bytes=60_000)
    encoded = encode(noise(1200, 900), limits)
    assert encoded.mime == "image/jpeg" and len(encoded.data) <= 60_000
    assert encoded.width < 1200 and encoded.width / encoded.height == pytest.approx(4 / 3, rel=0.02)
