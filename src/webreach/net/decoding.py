"""Bounded body decoding: Content-Encoding undone step by step, never producing more than the decoded budget.

Only gzip (and x-gzip) and deflate are advertised and accepted, because zlib's `decompressobj` takes a
`max_length`: each step produces at most the bytes still allowed (plus one, to notice the overflow), so a
decompression bomb costs at most the budget in memory before it is refused. brotli and zstd are neither
advertised nor accepted (their Python bindings here cannot bound one decoder step). A chain of codings is
limited (urllib3's CVE-2025-66418 was an unbounded chain), and a stream that ends before its compressed data
does, or is corrupt, is an error rather than partial text.
"""

from __future__ import annotations

import zlib

from webreach.errors import FetchUnavailableError, ResponseTooLargeError, UnsupportedContentError

ACCEPT_ENCODING = "gzip, deflate"
_GZIP = frozenset({"gzip", "x-gzip"})
_DEFLATE = frozenset({"deflate"})
_IDENTITY = frozenset({"identity", ""})


class BodyFull(Exception):
    """Raised inside the decoder when a truncating read has all the bytes it wants."""


def content_codings(header: str | None, *, max_codings: int, content_type: str, url: str) -> list[str]:
    """The codings applied to the body, in the order the server applied them; refuses ones we cannot bound."""
    codings = [c.strip().lower() for c in (header or "").split(",")]
    codings = [c for c in codings if c not in _IDENTITY]
    for coding in codings:
        if coding not in _GZIP | _DEFLATE:
            raise UnsupportedContentError(
                f"{url} is sent with Content-Encoding {coding!r}, which webreach does not accept "
                "(only gzip and deflate can be decoded with a size bound).",
                content_type=content_type or "unknown",
                url=url,
            )
    if len(codings) > max_codings:
        raise UnsupportedContentError(
            f"{url} stacks {len(codings)} content encodings; at most {max_codings} are decoded.",
            content_type=content_type or "unknown",
            url=url,
        )
    return codings


def _is_zlib_header(head: bytes) -> bool:
    return (head[0] & 0x0F) == 8 and ((head[0] << 8) | head[1]) % 31 == 0


class _Inflater:
    """One gzip or deflate layer, decoded in bounded steps (multi-member gzip included)."""

    def __init__(self, coding: str, url: str) -> None:
        self.gzip = coding in _GZIP
        self.url = url
        self._pending = b""
        self._obj: zlib._Decompress | None = zlib.decompressobj(16 + zlib.MAX_WBITS) if self.gzip else None
        self._started = False
        self._ended = False

    def give(self, data: bytes) -> None:
        self._pending += data

    def step(self, max_out: int, *, final: bool = False) -> bytes:
        """At most `max_out` decoded bytes from what was given so far (b"" when nothing more comes out now)."""
        if self._obj is None:
            if len(self._pending) < 2 and not final:
                return b""  # deflate: the first two bytes say zlib-wrapped or raw
            wrapped = len(self._pending) >= 2 and _is_zlib_header(self._pending)
            self._obj = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
        while True:
            if self._obj.eof:
                rest, self._pending = self._obj.unused_data + self._pending, b""
                if self._ended or not (self.gzip and rest.strip(b"\x00")):
                    self._ended = True  # padding or trailing bytes after the last stream are ignored
                    return b""
                self._obj, self._pending = zlib.decompressobj(16 + zlib.MAX_WBITS), rest  # the next gzip member
            data, self._pending = self._pending, b""
            self._started = self._started or bool(data)
            try:
                out = self._obj.decompress(data, max_out)
            except zlib.error as exc:
                message = f"The body of {self.url} is not valid {self.name}: {exc}."
                raise FetchUnavailableError(message, url=self.url) from None
            self._pending = self._obj.unconsumed_tail
            # an empty gzip member yields nothing: go on to the next one rather than stall on it
            if out or not (self._obj.eof and (self._obj.unused_data or self._pending)):
                return out

    @property
    def name(self) -> str:
        return "gzip" if self.gzip else "deflate"

    def check_complete(self) -> None:
        if self._started and (self._obj is None or not self._obj.eof):
            raise FetchUnavailableError(
                f"The body of {self.url} ended inside its {self.name} stream (truncated).", url=self.url
            )


class BoundedDecoder:
    """Undoes the content codings of a body fed in chunks, keeping at most `limit` decoded bytes."""

    def __init__(self, codings: list[str], *, limit: int, url: str, truncate: bool = False) -> None:
        self._layers = [_Inflater(coding, url) for coding in reversed(codings)]
        self.limit = limit
        self.url = url
        self.truncate = truncate
        self.truncated = False
        self._parts: list[bytes] = []
        self._size = 0

    def feed(self, data: bytes) -> None:
        """Decode one raw chunk; raises ResponseTooLargeError past the limit (or BodyFull when truncating)."""
        self._push(0, data, final=False)

    def finish(self) -> bytes:
        """The decoded body, once the raw body has ended; a cut-off compressed stream is an error."""
        self._push(0, b"", final=True)
        for layer in self._layers:
            layer.check_complete()
        return b"".join(self._parts)

    def partial(self) -> bytes:
        """What a truncating read kept."""
        return b"".join(self._parts)

    def _push(self, index: int, data: bytes, *, final: bool) -> None:
        if index == len(self._layers):
            self._emit(data)
            return
        layer = self._layers[index]
        layer.give(data)
        while True:
            out = layer.step(self.limit - self._size + 1, final=final)
            if not out:
                break
            self._push(index + 1, out, final=False)
        if final:
            self._push(index + 1, b"", final=True)

    def _emit(self, data: bytes) -> None:
        if not data:
            return
        room = self.limit - self._size
        if len(data) > room:
            if self.truncate:
                self._parts.append(data[:room])
                self._size = self.limit
                self.truncated = True
                raise BodyFull
            raise ResponseTooLargeError(
                f"The decoded body of {self.url} is over the {self.limit:,} byte budget.", url=self.url
            )
        self._parts.append(data)
        self._size += len(data)
