"""Mutations for bench/fuzz.py: bodies, headers and tool arguments, from real captures and generated documents.

A deliberately simple generator (the project's hypothesis strategies live in tests/): each mutated body applies
one to three byte-level operations to a seed (byte flips, truncation, encoding swaps, BOMs, NUL and control
characters, deep nesting, huge attributes, repeated slices, lone-surrogate escapes, splices of another seed);
headers get non-ASCII values, odd Retry-After values and odd charsets; arguments get nested JSON, huge strings,
bad UTF-8, lone surrogates, big numbers and wrong types. Seeded, so a run can be repeated.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from typing import Any

MAX_BODY = 2 * 1024 * 1024
NEST_TOKENS = (b"<div>", b"<span><b>", b"[", b'{"a":', b"<item>", b"<li><ul>", b"<table><tr><td>")
CONTROL = bytes(range(32)) + b"\x7f"
BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00")
ODD_TEXT = ("²", "café", "\u0660\u0661", "\ud800", "\x00", "9" * 400, "-1", "1e309", "NaN", "")
ODD_HEADER_VALUES = (
    b"caf\xc3\xa9", b"\xff\xfe", b"\xb2", b"Wed, 21 Oct 2015 07:28:00 GMT", b"Wed, 99 Foo 2015 99:99:99 +0000",
    b"9" * 400, b"-5", b"1e9", b"\xd9\xa0", b"text/html; charset=utf-16", b"text/html; charset=x-unknown",
    b"application/json; charset=\xff",
)  # fmt: skip
HEADER_NAMES = (b"retry-after", b"content-type", b"date", b"x-served-by", b"location", b"set-cookie")


class Mutator:
    """Seeded mutations of bytes, headers and argument objects."""

    def __init__(self, seed: int = 16) -> None:
        self.rng = random.Random(seed)

    def body(self, seed: bytes, others: Sequence[bytes] = ()) -> bytes:
        ops: list[Callable[[bytes], bytes]] = [
            self.flip, self.truncate, self.controls, self.bom, self.swap_encoding, self.nest, self.huge_attribute,
            self.repeat, self.surrogate_escape, lambda body: self.splice(body, others), self.odd_digits,
        ]  # fmt: skip
        body = seed
        for _ in range(self.rng.randint(1, 3)):
            body = self.rng.choice(ops)(body)
        return body[:MAX_BODY]

    def _at(self, body: bytes) -> int:
        return self.rng.randint(0, len(body)) if body else 0

    def flip(self, body: bytes) -> bytes:
        data = bytearray(body)
        for _ in range(self.rng.randint(1, max(1, len(data) // 500))):
            if data:
                data[self.rng.randrange(len(data))] = self.rng.randrange(256)
        return bytes(data)

    def truncate(self, body: bytes) -> bytes:
        return body[: self._at(body)]

    def controls(self, body: bytes) -> bytes:
        at = self._at(body)
        return body[:at] + bytes(self.rng.choice(CONTROL) for _ in range(self.rng.randint(1, 20))) + body[at:]

    def bom(self, body: bytes) -> bytes:
        return self.rng.choice(BOMS) + body

    def swap_encoding(self, body: bytes) -> bytes:
        text = body.decode("utf-8", "replace")
        codec = self.rng.choice(("utf-16", "utf-16-le", "utf-32", "gb18030", "shift_jis", "cp1252", "latin-1"))
        return text.encode(codec, "replace")

    def nest(self, body: bytes) -> bytes:
        token = self.rng.choice(NEST_TOKENS)
        depth = self.rng.choice((50, 300, 3_000, 20_000))
        at = self._at(body)
        return body[:at] + token * depth + body[at:]

    def huge_attribute(self, body: bytes) -> bytes:
        at = self._at(body)
        size = self.rng.choice((10_000, 200_000))
        return (
            body[:at]
            + b'<a href="https://x.test/'
            + b"a" * size
            + b'" title="'
            + b"\xe4\xb8\xad" * 1000
            + b'">'
            + body[at:]
        )

    def repeat(self, body: bytes) -> bytes:
        if not body:
            return body
        start = self._at(body)
        piece = body[start : start + self.rng.randint(1, 400)]
        return body[:start] + piece * self.rng.randint(2, max(2, 200_000 // max(1, len(piece)))) + body[start:]

    def surrogate_escape(self, body: bytes) -> bytes:
        at = self._at(body)
        return (
            body[:at]
            + self.rng.choice((b'"\\ud800"', b"\\udfff", b'"https://x.test/\\ud83d"', b"\xed\xa0\x80"))
            + body[at:]
        )

    def splice(self, body: bytes, others: Sequence[bytes]) -> bytes:
        if not others:
            return body
        other = self.rng.choice(others)
        start = self._at(other)
        at = self._at(body)
        return body[:at] + other[start : start + self.rng.randint(1, 20_000)] + body[at:]

    def odd_digits(self, body: bytes) -> bytes:
        at = self._at(body)
        return body[:at] + self.rng.choice(ODD_TEXT).encode("utf-8", "surrogatepass") + body[at:]

    def headers(self, headers: Sequence[tuple[str, str]]) -> list[tuple[bytes, bytes]]:
        """The recorded headers as bytes, with a few replaced or added by odd ones."""
        out = [(name.encode("latin-1", "replace"), value.encode("latin-1", "replace")) for name, value in headers]
        for _ in range(self.rng.randint(0, 3)):
            out.append((self.rng.choice(HEADER_NAMES), self.rng.choice(ODD_HEADER_VALUES)))
        return out

    def value(self, depth: int = 0) -> Any:
        """A hostile JSON-ish value for one argument."""
        choice = self.rng.randrange(12)
        if choice == 0:
            return self.nested(self.rng.choice((5, 17, 200, 900)))
        if choice == 1:
            return "x" * self.rng.choice((501, 70_000, 900_000))
        if choice == 2:
            return self.rng.choice((2**63, -(2**63) - 1, 10**400, 2**31, -1, 0, 1.5, float("1e308")))
        if choice == 3:
            return self.rng.choice(("a\ud800b", "\udfff", "\x00", "a\x01b", "研究", "²"))
        if choice == 4:
            return self.rng.choice((True, False, None, [], {}, [1, 2], {"a": 1}))
        if choice == 5:
            depth = self.rng.choice((20, 2_000, 100_000))  # a JSON bomb inside a string
            return "[" * depth + '"x"' + "]" * depth
        if choice == 6 and depth < 2:
            return [self.value(depth + 1) for _ in range(self.rng.randint(0, 40))]
        if choice == 7:
            return " " * self.rng.randint(0, 600) + "python" + " " * self.rng.randint(0, 600)
        if choice == 8:
            return self.rng.choice(("bing", "exa", "auto", "multi", "altavista", "BING ", "mojeek,bing", '["bing"]'))
        if choice == 9:
            return self.rng.choice(
                ("http://8.8.8.8/", "file:///etc/passwd", "http://169.254.169.254/", "http://[::1]/")
            )
        return self.rng.choice(("python asyncio", "5", "en", "python.org", "", "  ", "-3", "[3]"))

    def nested(self, depth: int) -> Any:
        value: Any = "x"
        for _ in range(depth):
            value = [value] if self.rng.random() < 0.5 else {"a": value}
        return value

    def arguments(self, names: Sequence[str]) -> dict[str, Any]:
        """Tool arguments: mostly the tool's own names (some valid values), sometimes unknown ones."""
        args: dict[str, Any] = {}
        for name in self.rng.sample(list(names), self.rng.randint(0, len(names))):
            args[name] = self.value()
        if self.rng.random() < 0.1:
            args[self.rng.choice(("extra", "\ud800", "x" * 300))] = self.value()
        return args

    def raw_body(self, names: Sequence[str]) -> bytes:
        """A request body: usually mutated arguments as JSON, sometimes broken JSON or bytes no decoder likes."""
        roll = self.rng.random()
        if roll < 0.75:
            return encode_json(self.arguments(names))
        if roll < 0.85:
            depth = self.rng.choice((17, 1_000, 200_000))
            return b'{"query": ' + b"[" * depth + b"]" * depth + b"}"
        if roll < 0.95:
            return self.body(encode_json(self.arguments(names)))
        return self.rng.choice((b"", b"null", b"[]", b'"x"', b"{", b"\xff\xfe{}", b'{"query": "\xff"}'))


def encode_json(value: Any) -> bytes:
    """JSON bytes of `value`; lone surrogates kept as surrogate bytes (invalid UTF-8), numbers as they are."""
    return json.dumps(value, ensure_ascii=False, allow_nan=True).encode("utf-8", "surrogatepass")
