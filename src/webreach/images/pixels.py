"""The image service's pixel work off the event loop: decode, crop and encode on a bounded pool of worker threads,
with each session's decoded images kept in a bounded LRU so crops of one image decode it once.

Why threads: Pillow releases the GIL while it decodes, resizes and encodes, so a crop on a worker leaves the loop
free (three concurrent 2000x1500 crops held /healthz at 1.9 s on the loop; bench/fuzz_liveness.py). The pool has
`workers` threads (ImageSettings.workers), so at most that many images are decoded at once whatever the load: with
the decompression-bomb limits of decode.py (40 M pixels) that bounds the transient memory too; work beyond it
queues. A crop whose caller has gone (a deadline, a disconnect) still finishes on its thread, bounded by those
limits, and its result is dropped.

The decoded-image cache (DecodedCache): keyed by (session, token), each entry remembering the SHA-256 of the bytes
it was decoded from (a token registered again with other bytes is decoded again); its budget is in bytes of pixels
(width x height x bands; ImageSettings.decoded_cache_bytes, 256 MB by default: seven 12 MP RGB photos); the least
recently used entries are dropped to fit, and an image larger than the whole budget is not kept. Registering an
image (messages, uploads) decodes it to check it, so the decode is kept then and the first crop is already cheap.
Measured (a 400x300 crop of a 4000x3000 noisy 4.8 MB JPEG through Images.crop after registering it, median of 6
crops, on the shared 2-core machine): 151-258 ms before (decoded again for every crop), 19-47 ms after, most of it
encoding the crop's PNG and hashing the bytes to check the cache entry (4 ms).

Liveness is about the GIL as much as the loop: a worker holding the GIL in one long C call stops the loop's thread
as surely as work on the loop. So decode.py decodes in one call (Pillow releases the GIL inside it), base64 runs in
1 MB pieces (base64_pieces.py), crop answers splice their base64 in after json.dumps, and the workers run at nice
+10 (Linux: per thread) so the loop's thread gets the CPU first. Three concurrent 2000x1500 crops of a 12 MP
JPEG (bench/fuzz_liveness.py): /healthz p99 371-1113 ms before, 45-93 ms after.

JPEG draft mode (decoding at 1/2..1/8 scale) is not used: a crop is cut at full resolution unless it is over
max_output_side (8,000 px), and a draft decode could not be reused by the next, smaller crop.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from webreach.images.crop import CropLimits, Encoded, Units, check_crop, encode, plan_box
from webreach.images.decode import Decoded, ImageLimits, decode

if TYPE_CHECKING:
    from PIL import Image

T = TypeVar("T")
CacheKey = tuple[str, str]  # (session, token)


@dataclass(frozen=True)
class Cut:
    """One crop made: the encoded image, the pixel box it was cut from, and what was done to the box as given."""

    encoded: Encoded
    pixels: tuple[int, int, int, int]
    notes: tuple[str, ...] = ()


class DecodedCache:
    """A bounded LRU of decoded images by (session, token), within `max_bytes` of pixels; safe across threads."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[CacheKey, tuple[str, Decoded, int]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    @property
    def size(self) -> int:
        """Bytes of pixels held now."""
        return self._size

    def get(self, key: CacheKey, digest: str) -> Decoded | None:
        """The image decoded from bytes of `digest` under `key`, now the most recently used; None when not held."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry[0] != digest:
                return None
            self._entries.move_to_end(key)
            return entry[1]

    def put(self, key: CacheKey, digest: str, decoded: Decoded) -> None:
        """Keep `decoded` under `key`, dropping the least recently used entries to stay within the budget."""
        cost = pixel_bytes(decoded.image)
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._size -= old[2]
            if cost > self.max_bytes:
                return
            while self._entries and self._size + cost > self.max_bytes:
                _, (_, _, freed) = self._entries.popitem(last=False)
                self._size -= freed
            self._entries[key] = (digest, decoded, cost)
            self._size += cost


def pixel_bytes(image: Image.Image) -> int:
    """What a decoded image holds in memory: width x height x bands (one byte each in RGB, RGBA and L)."""
    return image.width * image.height * len(image.getbands())


WORKER_NICENESS = 10


def lower_priority() -> None:
    """Make the calling worker thread yield the CPU to the event loop's: on Linux a thread has its own nice value
    (a busy 2-core machine otherwise made /healthz wait behind the crops). Elsewhere, or when refused, nothing."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), WORKER_NICENESS)
    except (AttributeError, OSError):
        return


class PixelWork:
    """Decoding, cropping and encoding on `workers` threads, decoded images cached in a DecodedCache."""

    def __init__(self, input_limits: ImageLimits, crop_limits: CropLimits, *, workers: int, cache_bytes: int) -> None:
        self.input_limits = input_limits
        self.crop_limits = crop_limits
        self.cache = DecodedCache(cache_bytes)
        self._pool = ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix="webreach-image", initializer=lower_priority
        )

    async def run(self, work: Callable[..., T], *args: object) -> T:
        """`work(*args)` on a worker thread; its exception (a typed ImageError) is raised here."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, work, *args)

    async def check(self, data: bytes, key: CacheKey | None = None) -> Decoded:
        """`data` decoded (bounded; typed errors) on a worker, and kept in the cache under `key` when given."""
        return await self.run(self._decoded, data, key)

    async def cut(self, key: CacheKey, data: bytes, box: Sequence[float], units: Units) -> Cut:
        """The crop of the image `data` (cached under `key`) to `box`, encoded, on a worker."""
        return await self.run(self._cut, key, data, box, units)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _decoded(self, data: bytes, key: CacheKey | None) -> Decoded:
        if key is None:
            return decode(data, self.input_limits)
        digest = hashlib.sha256(data).hexdigest()
        decoded = self.cache.get(key, digest)
        if decoded is None:
            decoded = decode(data, self.input_limits)
            self.cache.put(key, digest, decoded)
        return decoded

    def _cut(self, key: CacheKey, data: bytes, box: Sequence[float], units: Units) -> Cut:
        image = self._decoded(data, key).image
        plan = plan_box(box, image.size, units)
        check_crop(plan.pixels, self.crop_limits)
        encoded = encode(image.crop(plan.pixels), self.crop_limits)
        notes = plan.notes
        width, height = plan.pixels[2] - plan.pixels[0], plan.pixels[3] - plan.pixels[1]
        if (encoded.width, encoded.height) != (width, height):
            notes += (f"downscaled from {width}x{height} to fit the output limits",)
        return Cut(encoded, plan.pixels, notes)
