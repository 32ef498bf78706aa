"""Benchmark: crop and downscale latency, and the image-search gateway overhead.

Run: python -m bench.images [--repeat N]. Crops: a 4000x3000 photo-like image (noise over a gradient, so PNG and
JPEG work as on a photo) is decoded, cropped and encoded as crop_images does (images/crop.py) for a small, a
quarter and a full box; downscale: the full image to 1,568 px (a model's usual input side). Gateway overhead: the
same recorded brave_api images answer (the fake web's recording) parsed by the engine alone versus asked through
Gateway.images.search over an in-process transport (no sockets), with the cache off (the whole policy stack and
routing run every time) and on (a cached answer), so the difference is webreach's own cost; likewise a reverse
search of a stored token through tineye (its fake-web recording) against its parser alone, and the preparation of
a 4000x3000 photo for upload. Captures: every real image-search capture in ../shared/data parsed by its image
engine (the per-capture parse table).
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

from webreach import EngineSettings, Gateway, Settings, engines
from webreach.images.crop import CropLimits, Encoded, _jpeg, _png, crop, downscale, encode
from webreach.images.decode import decode
from webreach.images.reverse.prepare import prepare
from webreach.models import SearchRequest
from webreach.testing.recordings import RECORDINGS_DIR, load_recording

from .captures import SHARED_DATA

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


def previous_encode(image: Image.Image, limits: CropLimits) -> Encoded:
    """crop.encode as it was before the PNG estimate (PNG always tried first), for the side-by-side rows."""
    scaled = downscale(image, limits.max_output_side)
    while True:
        for encoded in (_png(scaled), _jpeg(scaled)):
            if len(encoded.data) <= limits.max_output_bytes:
                return encoded
        scaled = downscale(scaled, max(1, int(max(scaled.size) * 2 / 3)))


def encode_rows(repeat: int) -> dict[str, float]:
    """Encoding alone, previous and current strategy in alternating rounds (the machine's drift hits both)."""
    image = decode(photo()).image
    limits = CropLimits()
    rows: dict[str, float] = {}
    for name, box in (("full 4000x3000", (0, 0, 4000, 3000)), ("quarter 2000x1500", (0, 0, 2000, 1500))):
        piece = image.crop(box)
        before, after = [], []
        for _ in range(repeat):
            before.append(median_ms(lambda p=piece: previous_encode(p, limits), 1))
            after.append(median_ms(lambda p=piece: encode(p, limits), 1))
        rows[f"encode {name}: PNG first (previous)"] = statistics.median(before)
        rows[f"encode {name}: PNG estimated (now)"] = statistics.median(after)
        rows[f"encode {name}: now / previous"] = statistics.median(after) / statistics.median(before)
    return rows


async def search_rows(repeat: int) -> dict[str, float]:
    recording = load_recording(RECORDINGS_DIR / "images_brave_api" / "results.http")
    transport = httpx.MockTransport(lambda request: recording.to_response(request))
    keyed = {"brave_api": EngineSettings(api_key=KEY, rate_per_minute=10_000_000)}
    engine = engines.create("images_brave_api", EngineSettings(api_key=KEY))
    request = SearchRequest(query="red panda")

    def parse_only() -> None:
        engine.handle(recording.to_response(engine.build_request(request)))

    rows = {"image search: engine parse only": median_ms(parse_only, repeat)}
    for label, cache in (("cache off", "none"), ("cached answer", "memory")):
        settings = Settings(state={"backend": "memory"}, cache={"backend": cache}, engines=keyed)
        async with Gateway.from_settings(settings, transport=transport) as gateway:
            times = []
            for _ in range(repeat):
                start = time.perf_counter()
                await gateway.images.search(request, engine="brave_api")
                times.append((time.perf_counter() - start) * 1000)
        rows[f"image search: through the gateway, {label}"] = statistics.median(times)
    rows["image search: gateway overhead (cache off)"] = (
        rows["image search: through the gateway, cache off"] - rows["image search: engine parse only"]
    )
    return rows


# image-search capture folders under ../shared/data -> the image engine that parses them; the reverse-search
# captures (serpapi google_reverse_image, yandex_images) belong to reverse_image_search
CAPTURE_ENGINES = {
    "images/brave_images_api": "images_brave_api",
    "api/brave/brave-py-client__images.json": "images_brave_api",
    "images/serpapi_google_images": "images_serpapi",
    "images/google_cse_image": "images_google_cse",
    "images/searxng_images": "images_searxng",
    "images/bing_images_html": "images_bing",
    "images/baidu_images": "images_baidu",
}


def capture_table(repeat: int) -> list[dict[str, object]]:
    """Every real image-search capture parsed by its engine: images, thumbnails, sizes, pages and parse time."""
    rows: list[dict[str, object]] = []
    for where, name in CAPTURE_ENGINES.items():
        found = SHARED_DATA / where
        paths = sorted(found.iterdir()) if found.is_dir() else [found] if found.is_file() else []
        for path in paths:
            if path.suffix == ".js":  # a JavaScript module: its .derived.json beside it is the JSON answer
                continue
            engine = engines.create(name, EngineSettings(api_key=KEY, base_url="https://searx.example"))
            request = engine.build_request(SearchRequest(query="q", limit=50), {"vqd": "4-1"})
            kind = "text/html" if path.read_bytes().lstrip()[:1] == b"<" else "application/json"
            body = path.read_bytes()

            def parse(e: engines.Engine = engine, r: httpx.Request = request, b: bytes = body, k: str = kind) -> list:
                return e.handle(httpx.Response(200, content=b, headers={"content-type": k}, request=r))

            hits = parse()
            images = [hit.image for hit in hits if hit.image is not None]
            rows.append({
                "capture": path.name, "engine": name.removeprefix("images_"), "images": len(images),
                "thumbnails": sum(1 for i in images if i.thumbnail_url),
                "sized": sum(1 for i in images if i.width and i.height),
                "pages": sum(1 for h in hits if h.image is not None and h.url != h.image.image_url),
                "parse_ms": round(median_ms(parse, repeat), 3),
            })  # fmt: skip
    return rows


def print_captures(rows: list[dict[str, object]]) -> None:
    header = ("capture", "engine", "images", "thumbnails", "sized", "pages", "parse_ms")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(str(row[key]) for key in header) + " |")


async def reverse_rows(repeat: int) -> dict[str, float]:
    """Reverse search of a stored token through tineye (upload), against its parse alone; and the upload
    preparation of a large photo (EXIF orientation, downscale to 2048, re-encode)."""
    recording = load_recording(RECORDINGS_DIR / "reverse_tineye" / "results.http")
    transport = httpx.MockTransport(lambda request: recording.to_response(request))
    images = {"reverse_backends": ["tineye"], "reverse_settings": {"tineye": {"rate_per_minute": 1e9}}}
    settings = Settings(state={"backend": "memory"}, images=images)
    small = io.BytesIO()
    Image.new("RGB", (400, 300), (30, 120, 200)).save(small, format="PNG")
    async with Gateway.from_settings(settings, transport=transport) as gateway:
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
    rows = {**crop_rows(args.repeat), **encode_rows(args.repeat), **asyncio.run(search_rows(args.repeat * 20))}
    rows.update(asyncio.run(reverse_rows(args.repeat * 20)))
    width = max(len(name) for name in rows)
    print(f"{'measure':<{width}}  median ms")
    for name, value in rows.items():
        print(f"{name:<{width}}  {value:9.3f}")
    captures = capture_table(args.repeat)
    print()
    print_captures(captures)
    RESULTS.mkdir(exist_ok=True)
    body = {**rows, "captures": captures}
    (RESULTS / "images.json").write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
