"""Benchmark: crop and downscale latency, and the image-search gateway overhead.

Run: python -m bench.images [--repeat N]. Crops: a 4000x3000 photo-like image (noise over a gradient, so PNG and
JPEG work as on a photo) is decoded, cropped and encoded as crop_images does (images/crop.py) for a small, a
quarter and a full box; downscale: the full image to 1,568 px (a model's usual input side). Gateway overhead: the
same recorded brave_api images answer (the fake web's recording) parsed by the engine alone versus asked through
Gateway.images.search over an in-process transport (no sockets), so the difference is webreach's own cost;
likewise a reverse search of a stored token through tineye (its fake-web recording) against its parser alone,
and the preparation of a 4000x3000 photo for upload.
Prints medians in milliseconds and writes bench/results/images.json.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from PIL import Image

from webreach import EngineSettings, Gateway, Settings
from webreach.images.crop import CropLimits, crop, downscale, encode
from webreach.images.decode import decode
from webreach.images.hits import ImageSearchRequest
from webreach.images.reverse.prepare import prepare
from webreach.testing.recordings import RECORDINGS_DIR, load_recording

RESULTS = Path(__file__).parent / "results"
KEY = "bench-key-0123456789"


def photo(width: int = 4000, height: int = 3000) -> bytes:
    rng = random.Random(7)
    noise = Image.frombytes("L", (width, height), rng.randbytes(width * height))
    base = Image.linear_gradient("L").resize((width, height))
    image = Image.merge("RGB", (base, noise.point(lambda v: v // 4), base.rotate(90, expand=False)))
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=90)
    return out.getvalue()


def median_ms(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def crop_rows(repeat: int) -> dict[str, float]:
    data = photo()
    limits = CropLimits()
    image = decode(data).image
    boxes = {"crop 256x256": [100, 100, 356, 356], "crop quarter": [0, 0, 0.5, 0.5], "crop full": [0, 0, 1, 1]}
    rows = {"decode 4000x3000 JPEG": median_ms(lambda: decode(data), repeat)}
    for name, box in boxes.items():
        rows[f"{name} (decode+crop+encode)"] = median_ms(
            lambda b=box: encode(crop(decode(data).image, b, limits), limits), repeat
        )
    rows["downscale 4000x3000 -> 1568"] = median_ms(lambda: downscale(image, 1568), repeat)
    return rows


async def search_rows(repeat: int) -> dict[str, float]:
    recording = load_recording(RECORDINGS_DIR / "images_brave_api" / "results.http")
    transport = httpx.MockTransport(lambda request: recording.to_response(request))
    settings = Settings(state={"backend": "memory"}, engines={"brave_api": EngineSettings(api_key=KEY)})
    async with Gateway(settings, transport=transport) as gateway:
        engine = gateway.images.engines["brave_api"]
        request = ImageSearchRequest(query="red panda")

        def parse_only() -> None:
            engine.handle(recording.to_response(engine.build_request(request)))

        parse = median_ms(parse_only, repeat)
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            await gateway.images.search(request)
            times.append((time.perf_counter() - start) * 1000)
    whole = statistics.median(times)
    return {"image search: engine parse only": parse, "image search: through the gateway": whole,
            "image search: gateway overhead": whole - parse}  # fmt: skip


async def reverse_rows(repeat: int) -> dict[str, float]:
    """Reverse search of a stored token through tineye (upload), against its parse alone; and the upload
    preparation of a large photo (EXIF orientation, downscale to 2048, re-encode)."""
    recording = load_recording(RECORDINGS_DIR / "reverse_tineye" / "results.http")
    transport = httpx.MockTransport(lambda request: recording.to_response(request))
    images = {"reverse_backends": ["tineye"], "reverse_settings": {"tineye": {"rate_per_minute": 1e9}}}
    settings = Settings(state={"backend": "memory"}, images=images)
    small = io.BytesIO()
    Image.new("RGB", (400, 300), (30, 120, 200)).save(small, format="PNG")
    async with Gateway(settings, transport=transport) as gateway:
        token = (await gateway.images.upload("bench", small.getvalue())).token
        backend = gateway.images.reverse.backends["tineye"]
        body = recording.to_response(httpx.Request("POST", "https://tineye.com/")).json()
        parse = median_ms(lambda: backend.parse(body), repeat)
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            await gateway.images.reverse_search("bench", token)
            times.append((time.perf_counter() - start) * 1000)
        large = photo()
        limits = gateway.images.input_limits
        prepared = median_ms(lambda: prepare(large, limits, max_side=2048, max_bytes=4_000_000), max(3, repeat // 20))
    whole = statistics.median(times)
    return {"reverse search: backend parse only": parse, "reverse search: through the gateway": whole,
            "reverse search: gateway overhead": whole - parse,
            "reverse search: prepare 4000x3000 JPEG for upload": prepared}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    rows = {**crop_rows(args.repeat), **asyncio.run(search_rows(args.repeat * 20))}
    rows.update(asyncio.run(reverse_rows(args.repeat * 20)))
    width = max(len(name) for name in rows)
    print(f"{'measure':<{width}}  median ms")
    for name, value in rows.items():
        print(f"{name:<{width}}  {value:9.3f}")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "images.json").write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
