"""Bounded image decoding: only JPEG, PNG, WebP, GIF and BMP, size checked from the header before any pixel is read.

Pillow reads the header on open; the pixel count and both sides are checked against ImageLimits before load(), so a
decompression bomb (a few KB of PNG claiming 10^10 pixels) is refused without allocating its pixels. Pillow's own
bomb check (a warning above 89 M pixels, an error above 179 M) fires inside open() and is mapped to the same typed
error. Animated images give their first frame; EXIF orientation is applied so pixel boxes mean what a viewer shows.
Everything that goes wrong ends in an ImageError subclass, never a Pillow exception.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TYPE_CHECKING

from webreach.errors import CorruptImageError, ImageTooLargeError, UnsupportedImageError

if TYPE_CHECKING:
    from PIL import Image

# Pillow format name -> MIME type, the only formats opened (formats= keeps Pillow from trying its other plugins)
ORIENTATION = 0x0112  # the EXIF tag
SUPPORTED: dict[str, str] = {
    "JPEG": "image/jpeg",
    "PNG": "image/png",
    "WEBP": "image/webp",
    "GIF": "image/gif",
    "BMP": "image/bmp",
}


@dataclass(frozen=True)
class ImageLimits:
    """What an input image may be: bytes, pixels and the longer side (defaults keep RGBA under 160 MB)."""

    max_bytes: int = 20_000_000
    max_pixels: int = 40_000_000
    max_side: int = 16_384


@dataclass(frozen=True)
class Decoded:
    """One decoded image: its pixels (first frame, upright, RGB/RGBA/L) and the format it came in."""

    image: Image.Image
    format: str
    rotated: bool = False  # an EXIF orientation other than "upright" was applied (the bytes are not upright)

    @property
    def mime(self) -> str:
        return SUPPORTED[self.format]


def decode(data: bytes, limits: ImageLimits | None = None) -> Decoded:
    """The image in `data`, or UnsupportedImageError / ImageTooLargeError / CorruptImageError."""
    # Pillow (about 2 MB resident) loads with the first image decoded, not with every server (issue 38)
    from PIL import Image, ImageOps, UnidentifiedImageError

    limits = limits or ImageLimits()
    if len(data) > limits.max_bytes:
        raise ImageTooLargeError(f"the image is {len(data):,} bytes, over the limit of {limits.max_bytes:,}")
    try:
        # no `with`: closing the image would free the pixels it hands back; the source is in memory, no file is held
        opened = Image.open(io.BytesIO(data), formats=list(SUPPORTED))
        check_size(opened.size, limits)
        opened.seek(0)  # the first frame of an animation
        # the whole input in one decoder call: the GIL is released once for it, not once per 64 KB block (the event
        # loop's thread waits for the GIL at every hand-back)
        opened.decodermaxblock = max(opened.decodermaxblock, len(data))
        opened.load()
        fmt = opened.format or ""
        rotated = opened.getexif().get(ORIENTATION, 1) not in (1, None)  # read after load(): no second pass
        # transposed only when the EXIF says so: exif_transpose copies even an upright image (120 ms at 12 MP)
        upright = ImageOps.exif_transpose(opened) if rotated else opened
        return Decoded(_normal_mode(upright), fmt, rotated)
    except UnidentifiedImageError:
        raise UnsupportedImageError("not a JPEG, PNG, WebP, GIF or BMP image") from None
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageTooLargeError(f"the image is too large to decode safely ({exc})") from None
    except (OSError, SyntaxError, ValueError, EOFError, IndexError) as exc:
        # Pillow reports truncated and damaged data as OSError ("image file is truncated"), SyntaxError (a bad
        # chunk) or ValueError, depending on the plugin
        raise CorruptImageError(f"the image data cannot be decoded ({type(exc).__name__}: {exc})") from None


def check_size(size: tuple[int, int], limits: ImageLimits) -> None:
    """ImageTooLargeError when a side or the pixel count is over the limits (read from the header only)."""
    width, height = size
    if width <= 0 or height <= 0:
        raise CorruptImageError(f"the image claims an empty size {width}x{height}")
    if max(width, height) > limits.max_side:
        raise ImageTooLargeError(f"the image is {width}x{height} pixels; a side may be at most {limits.max_side:,}")
    if width * height > limits.max_pixels:
        raise ImageTooLargeError(
            f"the image is {width}x{height} = {width * height:,} pixels, over the limit of {limits.max_pixels:,}"
        )


def _normal_mode(image: Image.Image) -> Image.Image:
    """RGB, RGBA or L: palette, CMYK, 16-bit and other modes converted so crops and encoding behave the same."""
    if image.mode in ("RGB", "RGBA", "L"):
        return image
    has_alpha = image.mode in ("LA", "PA", "RGBa", "La") or "transparency" in image.info
    return image.convert("RGBA" if has_alpha else "RGB")
