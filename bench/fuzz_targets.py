"""In-process fuzz targets for bench/fuzz.py: every engine, the extractor, charset and sniffing, Retry-After and dates.

Each target yields cases; a case is a zero-argument callable (sync or async) whose outcome the runner classifies:
returns -> ok, raises WebreachError -> typed, raises anything else -> untyped. Engines are driven the way a search
drives them: the engine caller (search/engine_caller.py) sends the engine's request through an httpx transport that
answers with a mutated recording or capture (status, headers as bytes, body), then the engine parses it, so the
response rebuild and the header handling are exercised too. Every input is made by webreach.testing.mutations,
the project's one source of hostile inputs (the hypothesis tests use it too).
"""

from __future__ import annotations

import gzip
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
from pydantic import SecretStr

from bench.captures import SHARED_DATA
from webreach import engines
from webreach.clock import SystemClock
from webreach.config import EngineSettings
from webreach.extract.cascade import extract
from webreach.extract.charset import decode
from webreach.extract.sniff import sniff
from webreach.images.crop import CropLimits
from webreach.images.crop import crop as crop_image
from webreach.images.crop import encode as encode_image
from webreach.images.decode import decode as decode_image
from webreach.models import SearchRequest
from webreach.retry_after import retry_after_seconds
from webreach.search.engine_caller import EngineCaller
from webreach.search.warm_up import WarmUpTokens
from webreach.testing import mutations

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from extract.hostile_pdf import bomb_pdf, write_pdf

Case = Callable[[], Any]
PAGES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "pages"


def engine_cases(name: str, count: int, rng: random.Random) -> Iterator[Case]:
    """Answers for engine `name`: its recordings and real captures mutated (webreach.testing.mutations), one in
    ten generated from scratch, each sent through the engine caller."""
    seeds = mutations.seed_cases(name, data_dir=SHARED_DATA)
    # a key, an engine id and an instance URL, so every engine gets as far as parsing
    settings = EngineSettings(api_key=SecretStr("fuzz-key"), options={"cx": "fuzz-cx"})
    if name.endswith("searxng"):  # the instance is the operator's to give, for web and image search alike
        settings = settings.model_copy(update={"base_url": "https://searx.fuzz.test"})
    engine = engines.create(name, settings)
    tokens = WarmUpTokens(SystemClock())
    for _ in range(count):
        answer = mutations.generated(rng) if rng.random() < 0.1 else mutations.mutate(rng.choice(seeds), rng)
        page = rng.choice((1, 2))

        async def case(answer: mutations.Case = answer, page: int = page) -> Any:
            def reply(request: httpx.Request) -> httpx.Response:
                return httpx.Response(answer.status, headers=list(answer.headers), content=answer.body, request=request)

            async with httpx.AsyncClient(transport=httpx.MockTransport(reply)) as client:
                caller = EngineCaller(engine, client, tokens=tokens, max_body_bytes=8 * 1024 * 1024)
                return await caller(SearchRequest(query="python asyncio", page=page))

        yield case


def mutated(body: bytes, rng: random.Random, content_type: str = "text/html") -> bytes:
    """`body` after one to three of webreach.testing.mutations' body, header and status mutations."""
    return mutations.mutate(mutations.Case(200, ((b"content-type", content_type.encode()),), body), rng).body


def text_pdf(text: str) -> bytes:
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    return write_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
            b"/Resources << /Font << /F1 5 0 R >> >> >>",
            b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        ]
    )


def extraction_seeds() -> dict[str, list[tuple[str, bytes]]]:
    """Seeds per content type: (content type header, body)."""
    html = [p.read_bytes() for p in sorted(PAGES.glob("*.html"))]
    html += [
        gzip.decompress(p.read_bytes()) for p in sorted((SHARED_DATA / "extraction" / "aeb" / "html").glob("*.gz"))[:20]
    ]
    xhtml = [
        b'<?xml version="1.0"?><!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml">' + h.split(b"<html", 1)[-1]
        for h in html[:5]
    ]
    feeds = [(PAGES / "feed.rss").read_bytes(), (PAGES / "feed.atom").read_bytes()]
    xml = [b'<?xml version="1.0"?><urlset><url><loc>https://a.test/</loc></url></urlset>', *feeds]
    json_bodies = [p.read_bytes() for p in sorted((SHARED_DATA / "api").glob("*/*.json"))]
    text = [b"Tide tables\n\nMonday 06:12 high\n" * 20, "研究 テキスト 텍스트\n".encode() * 50]
    pdf = [text_pdf("still here " * 20), bomb_pdf(inflated=4 * 1024 * 1024)]
    return {
        "text/html; charset=utf-8": [("text/html; charset=utf-8", b) for b in html],
        "application/xhtml+xml": [("application/xhtml+xml", b) for b in xhtml],
        "application/rss+xml": [("application/rss+xml", feeds[0]), ("application/atom+xml", feeds[1])]
        + [("application/xml", b) for b in xml],
        "application/json": [("application/json", b) for b in json_bodies],
        "text/plain": [("text/plain; charset=utf-8", b) for b in text],
        "application/pdf": [("application/pdf", b) for b in pdf],
    }


def extractor_cases(count: int, rng: random.Random) -> Iterator[Case]:
    seeds = extraction_seeds()
    kinds = list(seeds)
    for index in range(count):
        content_type: str | None
        content_type, body = rng.choice(seeds[kinds[index % len(kinds)]])
        hostile = mutated(body, rng, content_type)
        if rng.random() < 0.1:
            content_type = rng.choice(
                (None, "text/html; charset=utf-16", "application/octet-stream", "text/plain; charset=\udcff")
            )
        fmt = rng.choice(("markdown", "text", "html", "json"))
        yield lambda m=hostile, c=content_type, f=fmt: extract(
            m, content_type=c, url="https://fuzz.test/page", format=f
        )


def charset_cases(count: int, rng: random.Random) -> Iterator[Case]:
    bodies = [p.read_bytes() for p in sorted(PAGES.glob("*"))]
    labels = (None, "utf-8", "utf-16", "gb2312", "x-unknown", "", "utf-8\x00", "\udcff", "latin-1", "utf-7")
    for _ in range(count):
        body = mutated(rng.choice(bodies), rng)
        label = rng.choice(labels)
        content_type = None if label is None else f"text/html; charset={label}"

        def case(body: bytes = body, label: str | None = label, content_type: str | None = content_type) -> Any:
            return sniff(body, content_type, "https://fuzz.test/a.html"), decode(body, label)

        yield case


def retry_after_cases(count: int, rng: random.Random) -> Iterator[Case]:
    from webreach.engines import _dates

    values = [
        "120",
        "²",
        "Wed, 21 Oct 2015 07:28:00 GMT",
        "1e9",
        "-5",
        "9" * 400,
        "NaN",
        "\u0661\u0662",
        "Wed, 21 Oct 2015 07:28:00",
        "9" * 5000,
        "Mon, 01 Jan 99999999999 00:00:00 GMT",
    ]
    for _ in range(count):
        value = mutated(rng.choice(values).encode(), rng, "text/plain").decode("latin-1")
        date = rng.choice((None, "Wed, 21 Oct 2015 07:28:00 GMT", value, "Thu, 01 Jan 1970 00:00:00 +0100"))
        headers = {"retry-after": value} if date is None else {"retry-after": value, "date": date}
        now = rng.choice((None, 1_700_000_000.0, 1e300))

        def case(headers: dict[str, str] = headers, now: float | None = now, text: str = value) -> Any:
            return (
                retry_after_seconds(headers, now=now),
                _dates.shown_date(text), _dates.api_date(text), _dates.numeric_date(text),
            )  # fmt: skip

        yield case


def image_cases(count: int, rng: random.Random) -> Iterator[Case]:
    """Image bytes (webreach.testing.mutations.image_seeds, mutated) decoded, cropped to a random box, encoded."""
    seeds = mutations.image_seeds()
    for _ in range(count):
        body = mutations.mutate(mutations.Case(200, (), rng.choice(seeds)), rng).body
        box = [rng.choice((0, 0.5, 1, 8, 40, -3, 1e12, float("nan"))) for _ in range(rng.choice((2, 4, 4, 4)))]
        if rng.random() < 0.5:  # a box that fits any image, so most decoded images are cropped and encoded too
            box = [0, 0, 1, 1]

        def case(body: bytes = body, box: list[float] = box) -> Any:
            decoded = decode_image(body)
            return encode_image(crop_image(decoded.image, box, CropLimits()), CropLimits())

        yield case
