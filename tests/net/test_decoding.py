"""Bounded content decoding without sockets: every chunking, multi-member gzip, bombs, cut and stacked streams."""

from __future__ import annotations

import gzip
import zlib

import pytest

from webreach.errors import FetchUnavailableError, ResponseTooLargeError, UnsupportedContentError
from webreach.net.decoding import BodyFull, BoundedDecoder, content_codings


def decode(body: bytes, codings: list[str], *, limit: int = 1_000_000, chunk: int = 7) -> bytes:
    decoder = BoundedDecoder(codings, limit=limit, url="http://site.test/")
    for start in range(0, len(body), chunk):
        decoder.feed(body[start : start + chunk])
    return decoder.finish()


def deflate(data: bytes, *, raw: bool) -> bytes:
    packer = zlib.compressobj(wbits=-zlib.MAX_WBITS if raw else zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


@pytest.mark.parametrize("chunk", [1, 3, 64, 1 << 20])
def test_multi_member_gzip_with_empty_members_and_padding(chunk: int) -> None:
    body = gzip.compress(b"hello ") + gzip.compress(b"") * 500 + gzip.compress(b"world") + b"\0" * 8
    assert decode(body, ["gzip"], chunk=chunk) == b"hello world"


@pytest.mark.parametrize("raw", [False, True])
def test_deflate_zlib_wrapped_or_raw(raw: bool) -> None:
    assert decode(deflate(b"abc" * 1000, raw=raw), ["deflate"], chunk=1) == b"abc" * 1000


def test_two_stacked_codings_are_undone_in_reverse() -> None:
    body = gzip.compress(deflate(b"layered " * 100, raw=False))
    assert decode(body, ["deflate", "gzip"]) == b"layered " * 100


def test_a_bomb_stops_at_the_limit_in_bounded_steps() -> None:
    bomb = gzip.compress(bytes(50_000_000), compresslevel=9)
    decoder = BoundedDecoder(["gzip"], limit=100_000, url="u")
    with pytest.raises(ResponseTooLargeError):
        decoder.feed(bomb)
    assert len(decoder.partial()) <= 100_000


def test_a_truncating_decoder_keeps_exactly_the_limit() -> None:
    decoder = BoundedDecoder(["gzip"], limit=1000, url="u", truncate=True)
    with pytest.raises(BodyFull):
        decoder.feed(gzip.compress(b"x" * 5000))
    assert decoder.partial() == b"x" * 1000 and decoder.truncated


@pytest.mark.parametrize(
    "body", [gzip.compress(b"cut short" * 100)[:-10], gzip.compress(b"x")[:5], b"not gzip at all, just text"]
)
def test_cut_or_corrupt_streams_are_errors(body: bytes) -> None:
    with pytest.raises(FetchUnavailableError):
        decode(body, ["gzip"])


def test_an_empty_body_with_an_encoding_is_empty() -> None:
    assert decode(b"", ["gzip"]) == b""
    assert decode(b"", ["deflate"]) == b""


@pytest.mark.parametrize(
    ("header", "codings"),
    [(None, []), ("identity", []), ("GZIP", ["gzip"]), ("x-gzip", ["x-gzip"]), ("deflate, gzip", ["deflate", "gzip"])],
)
def test_accepted_codings(header: str | None, codings: list[str]) -> None:
    assert content_codings(header, max_codings=2, content_type="text/html", url="u") == codings


@pytest.mark.parametrize("header", ["br", "zstd", "compress", "gzip, br", "gzip, gzip, gzip"])
def test_unboundable_or_stacked_codings_are_refused(header: str) -> None:
    with pytest.raises(UnsupportedContentError):
        content_codings(header, max_codings=2, content_type="text/html", url="u")
