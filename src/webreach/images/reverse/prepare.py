"""The image as a reverse-search backend gets it: upright (EXIF orientation applied) and downscaled.

Bytes already upright, small enough and in a format every backend reads (JPEG, PNG, WebP) go as they are;
anything else is re-encoded: PNG when it has transparency, else JPEG at quality 90, shrunk by a third until
under the byte cap.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from webreach.images.crop import downscale
from webreach.images.decode import ImageLimits, decode

if TYPE_CHECKING:
    from PIL import Image

AS_IS = frozenset({"JPEG", "PNG", "WEBP"})


def prepare(data: bytes, limits: ImageLimits, *, max_side: int, max_bytes: int) -> tuple[bytes, str]:
    """(bytes, MIME type) to upload for the image in `data` (typed ImageError when it is no usable image)."""
    decoded = decode(data, limits)
    image = decoded.image
    if decoded.format in AS_IS and max(image.size) <= max_side and len(data) <= max_bytes and not decoded.rotated:
        return data, decoded.mime
    scaled = downscale(image, max_side)
    while True:
        encoded, mime = _encode(scaled)
        if len(encoded) <= max_bytes or max(scaled.size) <= 64:
            return encoded, mime
        scaled = downscale(scaled, max(64, int(max(scaled.size) * 2 / 3)))


def _encode(image: Image.Image) -> tuple[bytes, str]:
    out = io.BytesIO()
    if image.mode == "RGBA":
        image.save(out, format="PNG", compress_level=1)
        return out.getvalue(), "image/png"
    image.convert("RGB").save(out, format="JPEG", quality=90)
    return out.getvalue(), "image/jpeg"
