"""Hostile engine answers for fuzzing: real responses (recordings, captures) mutated, and generated documents.

    seeds = seed_cases("bing", data_dir=Path("../shared/data"))
    rng = random.Random(7)
    case = mutate(rng.choice(seeds), rng)        # a Case: status, raw headers, body, and what was done to it
    gateway.engines.parse_saved("bing", case.body, status=case.status, headers=case.headers)

Every mutation is a plain function of a Case and a random.Random, so the same seed gives the same case: the
hypothesis tests draw the Random (and shrink it), and bench/fuzz.py (or any script) runs thousands with
no hypothesis installed. Body mutations: byte flips, truncation, encoding swaps under a lying label, BOMs, NUL
and control characters, deep nesting, markup that makes an HTML5 tree builder quadratic, huge attributes,
repeated elements, malformed IPv6 links, JSON values of the wrong type, lone-surrogate escapes, deep JSON.
Header mutations: non-ASCII bytes in any header, Retry-After in non-ASCII digits or absurd sizes, charset labels
that lie, odd statuses. Sizes stay under MAX_BODY so a case takes milliseconds, not seconds, when all is well.

Tool arguments for the doors (bench/fuzz.py, REST, MCP and CLI): `argument_value`, `tool_arguments` and
`request_body` give nested JSON, JSON bombs inside strings, huge strings, bad UTF-8, lone surrogates, numbers
past every range and wrong types, from the same Random.
"""

from __future__ import annotations

import codecs
import io
import json
import random
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from webreach.testing.recordings import RECORDINGS_DIR, engine_recordings

MAX_BODY = 2_500_000  # bytes; the largest real capture is 1.8 MB
Headers = tuple[tuple[bytes, bytes], ...]
# capture folders under <data>/serp and <data>/api that hold answers of each engine (the API folders are named
# after the provider; Bocha answers in Bing's Web Search API shape)
CAPTURES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {"brave_api": ("api/brave",), "google_cse": ("api/google_cse",), "serpapi": ("api/serpapi",),
     "serper": ("api/serper",), "tavily": ("api/tavily",), "bocha": ("api/bing_web_search_api",),
     "images_baidu": ("images/baidu_images",), "images_bing": ("images/bing_images_html",),
     "images_brave_api": ("images/brave_images_api",), "images_google_cse": ("images/google_cse_image",),
     "images_searxng": ("images/searxng_images",), "images_serpapi": ("images/serpapi_google_images",)}
)  # fmt: skip
NASTY_TEXT = ("\x00", "\x01", "\x0b", "\x1f", "\x7f", "\x85", "\ufeff", "\ufffe", "\u2028", "&#0;", "&#xD800;")
BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE)
CHARSETS = ("utf-16", "utf-16-le", "gb18030", "shift_jis", "latin-1", "cp1252", "utf-32", "x-bogus", "utf-7")
# (opening, closing) pieces repeated to nest or to flood: each one is slow for some HTML5 tree builder
FLOODS = (
    ("<div>", ""), ("<div>", "</div>"), ("<b><div>x", "</b>"), ("<a>x<div>y", "</a>"), ("<font>", "x</p>"),
    ("<select><option>x", "</option>"), ("<b class=c{}>", ""), ("<svg><foreignObject><div>", ""),
    ("<table><tr><td>", ""), ("<li><ul>", ""), ("<a href=x><h3>t</h3>", ""),
)  # fmt: skip
ODD_HEADERS = (
    (b"x-served-by", "café".encode()), (b"x-served-by", b"caf\xe9"), (b"retry-after", "²".encode()),
    (b"retry-after", "١٢".encode()), (b"retry-after", b"9" * 400), (b"retry-after", b"9" * 5000),
    (b"retry-after", b"-5"),
    (b"retry-after", b"Wed, 21 Oct 2015 07:28:00 -0000"), (b"retry-after", b"Fri, 31 Dec 9999 23:59:59 GMT"),
    (b"retry-after", b"Mon, 01 Jan 99999999999 00:00:00 GMT"),
    (b"date", b"Thu, 01 Jan 1970 00:00:00 +9999"), (b"location", b"http://[::1/sorry"), (b"server", b"cloudflare"),
    (b"x-ratelimit-reset", "١٢,٣".encode()), (b"x-ratelimit-remaining", b"0,0"), (b"x-ratelimit-reset", b"1e308"),
    (b"content-type", b"text/html; charset=utf-16"), (b"content-type", b"application/json; charset=x-bogus"),
    (b"set-cookie", b"\xff\xfe=\x00"), (b"x-\xe9", b"\x80\x81"),
)  # fmt: skip
STATUSES = (200, 200, 200, 202, 204, 301, 302, 400, 401, 402, 403, 418, 422, 429, 432, 433, 500, 503, 599)


@dataclass(frozen=True)
class Case:
    """One engine answer: status, raw headers, body, and the names of the mutations that made it."""

    status: int
    headers: Headers
    body: bytes
    mutations: tuple[str, ...] = ()

    def with_header(self, name: bytes, value: bytes) -> Case:
        """This case with header `name` set to `value` (other values of that name dropped)."""
        kept = tuple((k, v) for k, v in self.headers if k.lower() != name.lower())
        return replace(self, headers=(*kept, (name, value)))


def seed_cases(engine: str, *, data_dir: Path | None = None, recordings_dir: Path = RECORDINGS_DIR) -> list[Case]:
    """The engine's recordings, plus its real captures under `data_dir` (../shared/data) when given and present."""
    cases = [
        Case(r.status, tuple((k.encode("latin-1"), v.encode("latin-1", "replace")) for k, v in r.headers), r.body)
        for r in engine_recordings(engine, recordings_dir).values()
    ]
    if data_dir is None or not data_dir.is_dir():
        return cases
    for folder in CAPTURES.get(engine, (f"serp/{engine}",)):
        for path in sorted((data_dir / folder).glob("*")):
            if path.suffix in (".html", ".json"):
                kind = b"application/json" if path.suffix == ".json" else b"text/html; charset=utf-8"
                cases.append(Case(200, ((b"content-type", kind),), path.read_bytes()))
    return cases


def mutate(case: Case, rng: random.Random, *, count: int | None = None) -> Case:
    """`case` with `count` (1 to 3 when None) mutations applied, chosen by `rng`."""
    names = list(MUTATIONS)
    for _ in range(count if count is not None else rng.randint(1, 3)):
        name = rng.choice(names)
        case = MUTATIONS[name](case, rng)
        case = replace(case, body=case.body[:MAX_BODY], mutations=(*case.mutations, name))
    return case


def generated(rng: random.Random) -> Case:
    """A document built from scratch: HTML tag soup or a JSON value, nested and repeated."""
    if rng.random() < 0.5:
        body = json.dumps(_json_value(rng, 0), ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")
        return Case(200, ((b"content-type", b"application/json"),), body, ("generated-json",))
    pieces = []
    for _ in range(rng.randint(1, 400)):
        tag = rng.choice(("div", "p", "a", "h2", "h3", "li", "ul", "span", "table", "td", "b", "option", "script"))
        attributes = rng.choice(("", ' class="b_algo"', ' href="https://e.example/x"', ' href="//[::1', " \x01=\x02"))
        pieces.append(f"<{tag}{attributes}>{rng.choice((*NASTY_TEXT, 'text', 'ü', '结果'))}")
        if rng.random() < 0.5:
            pieces.append(f"</{rng.choice(('div', 'a', tag, 'b'))}>")
    body = ("".join(pieces) * rng.choice((1, 10, 200))).encode("utf-8", "surrogatepass")[:MAX_BODY]
    return Case(200, ((b"content-type", b"text/html"),), body, ("generated-html",))


def _json_value(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if depth > 6 or roll < 0.3:
        return rng.choice((None, True, 0, -1, 1e308, "", "x", "\ud800", "http://[::1", "https://e.example/a", [], {}))
    keys = ("results", "organic", "url", "link", "title", "snippet", "content", "date", "position", "data", "web")
    if roll < 0.6:
        return [_json_value(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    return {rng.choice(keys): _json_value(rng, depth + 1) for _ in range(rng.randint(0, 6))}


# --- body mutations ----------------------------------------------------------------------------------------


def _flip(case: Case, rng: random.Random) -> Case:
    body = bytearray(case.body)
    for _ in range(rng.randint(1, 32) if body else 0):
        body[rng.randrange(len(body))] ^= 1 << rng.randrange(8)
    return replace(case, body=bytes(body))


def _truncate(case: Case, rng: random.Random) -> Case:
    return replace(case, body=case.body[: rng.randint(0, len(case.body))])


def _swap_encoding(case: Case, rng: random.Random) -> Case:
    charset = rng.choice(CHARSETS)
    text = case.body.decode("utf-8", "replace")
    try:
        body = text.encode(charset, "replace")
    except LookupError:
        body = case.body
    label = rng.choice((charset, "utf-8", "utf-16"))  # often a lie
    kind = b"application/json" if _is_json(case) else b"text/html"
    return replace(case, body=body).with_header(b"content-type", kind + b"; charset=" + label.encode())


def _bom(case: Case, rng: random.Random) -> Case:
    return replace(case, body=rng.choice(BOMS) + case.body)


def _nasty_characters(case: Case, rng: random.Random) -> Case:
    body = case.body
    for _ in range(rng.randint(1, 20)):
        at = rng.randint(0, len(body))
        body = body[:at] + rng.choice(NASTY_TEXT).encode("utf-8", "surrogatepass") + body[at:]
    return replace(case, body=body)


def _flood(case: Case, rng: random.Random) -> Case:
    """Markup that nests deep or floods a tree builder, at a random place."""
    opening, closing = rng.choice(FLOODS)
    count = rng.choice((300, 3_000, 30_000, 100_000))
    piece = "".join((opening.format(i) if "{}" in opening else opening) + closing for i in range(count)).encode()
    return replace(case, body=_insert(case.body, piece[: MAX_BODY // 2], rng))


def _huge_attribute(case: Case, rng: random.Random) -> Case:
    size = rng.choice((10_000, 500_000))
    piece = rng.choice((b'<a href="', b'<div class="', b"<h3 title=")) + b"x" * size + b'">t</a>'
    return replace(case, body=_insert(case.body, piece, rng))


def _repeat(case: Case, rng: random.Random) -> Case:
    """A slice of the body (a result block, with luck) repeated many times."""
    if not case.body:
        return case
    start = rng.randrange(len(case.body))
    piece = case.body[start : start + rng.randint(1, 2_000)]
    times = min(rng.choice((10, 1_000, 20_000)), MAX_BODY // max(len(piece), 1))
    return replace(case, body=case.body[:start] + piece * times + case.body[start:])


def _ipv6_links(case: Case, rng: random.Random) -> Case:
    target = rng.choice((b"http://[::1", b"https://[v1.x/", b"http://[::1]x:80/", b"//[", b"http://%5B::1"))
    body = case.body
    for needle in (b'href="http', b'"url": "http', b'"link": "http', b'"url":"http', b"uddg=http"):
        body = body.replace(needle, needle[: -len(b"http")] + target, rng.randint(1, 5))
    return replace(case, body=body)


def _json_types(case: Case, rng: random.Random) -> Case:
    """JSON values swapped for values of other types (or lone surrogates, huge numbers, deep lists)."""
    try:
        value = json.loads(case.body)
    except (ValueError, RecursionError):
        return case
    swaps = rng.randint(1, 8)
    value = _swap_values(value, rng, swaps)
    return replace(case, body=json.dumps(value).encode("utf-8", "surrogatepass"))


def _swap_values(value: Any, rng: random.Random, swaps: int) -> Any:
    if isinstance(value, dict):
        return {k: _maybe_swap(v, rng, swaps) for k, v in value.items()}
    if isinstance(value, list):
        return [_maybe_swap(v, rng, swaps) for v in value]
    return value


def _maybe_swap(value: Any, rng: random.Random, swaps: int) -> Any:
    if rng.random() < swaps / 40:
        return rng.choice((None, 5, -1.5, 10**30, True, [], {}, ["a"], {"a": 1}, "\ud800", "\x00", "x" * 10_000))
    return _swap_values(value, rng, swaps)


def _deep_json(case: Case, rng: random.Random) -> Case:
    depth = rng.choice((100, 10_000, 100_000))
    piece = b"[" * depth + b"1" + b"]" * depth
    if case.body.startswith(b"{") and rng.random() < 0.7:
        return replace(case, body=b'{"results": ' + piece + b", " + case.body[1:])
    return replace(case, body=piece if rng.random() < 0.5 else _insert(case.body, piece, rng))


def _surrogate_escapes(case: Case, rng: random.Random) -> Case:
    escape = rng.choice((b"\\ud800", b"\\udfff", b"\\u0000", b"\\ud83d"))
    body = case.body
    for needle in (b'"https://', b'"http://', b'"title": "', b'"snippet": "'):
        body = body.replace(needle, needle + escape, rng.randint(1, 3))
    return replace(case, body=body)


# --- header and status mutations ---------------------------------------------------------------------------


def _odd_header(case: Case, rng: random.Random) -> Case:
    name, value = rng.choice(ODD_HEADERS)
    return replace(case, headers=(*case.headers, (name, value)))


def _status(case: Case, rng: random.Random) -> Case:
    return replace(case, status=rng.choice(STATUSES))


def _insert(body: bytes, piece: bytes, rng: random.Random) -> bytes:
    at = rng.randint(0, len(body))
    return body[:at] + piece + body[at:]


def _is_json(case: Case) -> bool:
    return any(k.lower() == b"content-type" and b"json" in v.lower() for k, v in case.headers)


MUTATIONS: Mapping[str, Callable[[Case, random.Random], Case]] = MappingProxyType(
    {
        "flip": _flip,
        "truncate": _truncate,
        "encoding": _swap_encoding,
        "bom": _bom,
        "nasty-characters": _nasty_characters,
        "flood": _flood,
        "huge-attribute": _huge_attribute,
        "repeat": _repeat,
        "ipv6-links": _ipv6_links,
        "json-types": _json_types,
        "deep-json": _deep_json,
        "surrogate-escapes": _surrogate_escapes,
        "odd-header": _odd_header,
        "status": _status,
    }
)


# --- tool arguments ----------------------------------------------------------------------------------------


def argument_value(rng: random.Random, depth: int = 0) -> Any:
    """A hostile JSON-ish value for one tool argument."""
    choice = rng.randrange(12)
    if choice == 0:
        return nested_value(rng, rng.choice((5, 17, 200, 900)))
    if choice == 1:
        return "x" * rng.choice((501, 70_000, 900_000))
    if choice == 2:
        return rng.choice((2**63, -(2**63) - 1, 10**400, 2**31, -1, 0, 1.5, float("1e308")))
    if choice == 3:
        return rng.choice(("a\ud800b", "\udfff", "\x00", "a\x01b", "研究", "²"))
    if choice == 4:
        return rng.choice((True, False, None, [], {}, [1, 2], {"a": 1}))
    if choice == 5:
        bomb = rng.choice((20, 2_000, 100_000))  # a JSON bomb inside a string
        return "[" * bomb + '"x"' + "]" * bomb
    if choice == 6 and depth < 2:
        return [argument_value(rng, depth + 1) for _ in range(rng.randint(0, 40))]
    if choice == 7:
        return " " * rng.randint(0, 600) + "python" + " " * rng.randint(0, 600)
    if choice == 8:
        return rng.choice(("bing", "exa", "auto", "multi", "altavista", "BING ", "mojeek,bing", '["bing"]'))
    if choice == 9:
        return rng.choice(("http://8.8.8.8/", "file:///etc/passwd", "http://169.254.169.254/", "http://[::1]/"))
    return rng.choice(("python asyncio", "5", "en", "python.org", "", "  ", "-3", "[3]"))


def nested_value(rng: random.Random, depth: int) -> Any:
    """ "x" inside `depth` lists and objects."""
    value: Any = "x"
    for _ in range(depth):
        value = [value] if rng.random() < 0.5 else {"a": value}
    return value


def tool_arguments(rng: random.Random, names: Sequence[str]) -> dict[str, Any]:
    """Tool arguments: mostly the tool's own names (some with valid values), sometimes unknown ones."""
    arguments = {name: argument_value(rng) for name in rng.sample(list(names), rng.randint(0, len(names)))}
    if rng.random() < 0.1:
        arguments[rng.choice(("extra", "\ud800", "x" * 300))] = argument_value(rng)
    return arguments


def request_body(rng: random.Random, names: Sequence[str]) -> bytes:
    """A request body: usually hostile arguments as JSON, sometimes deep or broken JSON, or mutated bytes."""
    roll = rng.random()
    if roll < 0.75:
        return encode_json(tool_arguments(rng, names))
    if roll < 0.85:
        depth = rng.choice((17, 1_000, 200_000))
        return b'{"query": ' + b"[" * depth + b"]" * depth + b"}"
    if roll < 0.95:
        json_body = Case(200, ((b"content-type", b"application/json"),), encode_json(tool_arguments(rng, names)))
        return mutate(json_body, rng).body
    return rng.choice((b"", b"null", b"[]", b'"x"', b"{", b"\xff\xfe{}", b'{"query": "\xff"}'))


def encode_json(value: Any) -> bytes:
    """JSON bytes of `value`; lone surrogates kept as surrogate bytes (invalid UTF-8), numbers as they are."""
    return json.dumps(value, ensure_ascii=False, allow_nan=True).encode("utf-8", "surrogatepass")


def image_seeds() -> list[bytes]:
    """Small images of every supported format and the awkward modes (EXIF rotation, animation, palette with
    transparency, 16-bit grey, CMYK), plus a PNG whose header claims 10^10 pixels: the seeds image decoding is
    fuzzed from (mutated with `mutate` like any body)."""
    from PIL import Image  # Pillow is only needed by the image fuzz

    def saved(image: Image.Image, fmt: str, **options: Any) -> bytes:
        out = io.BytesIO()
        image.save(out, fmt, **options)
        return out.getvalue()

    rgba = Image.new("RGBA", (64, 48), (200, 40, 40, 128))
    exif = Image.Exif()
    exif[0x0112] = 6  # rotated 90 degrees
    frames = [Image.new("P", (32, 32), index) for index in range(3)]
    seeds = [
        saved(rgba, "PNG"),
        saved(rgba.convert("RGB"), "JPEG", exif=exif.tobytes()),
        saved(rgba, "WEBP"),
        saved(frames[0], "GIF", save_all=True, append_images=frames[1:]),
        saved(rgba.convert("RGB"), "BMP"),
        saved(rgba.convert("P"), "PNG", transparency=0),
        saved(Image.new("I;16", (40, 30), 30_000), "PNG"),
        saved(Image.new("CMYK", (40, 30), (0, 50, 100, 0)), "JPEG"),
    ]
    bomb = bytearray(seeds[0])
    bomb[16:24] = (100_000).to_bytes(4, "big") * 2  # IHDR width and height, then the chunk's CRC to match
    bomb[29:33] = zlib.crc32(bytes(bomb[12:29])).to_bytes(4, "big")
    return [*seeds, bytes(bomb)]
