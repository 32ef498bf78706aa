"""HTTP/1.1 on raw asyncio streams, just enough for the fake web: read one request, write one response.

The fake web speaks HTTP itself instead of using a server library because its faults live below HTTP
(resets, short bodies, bodies that never end), which need the raw socket.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx

MAX_HEAD = 64 * 1024
MAX_BODY = 1024 * 1024


class BadRequest(Exception):
    """The client sent something that is not an HTTP/1.1 request the fake web accepts."""


@dataclass(frozen=True)
class Request:
    """One parsed request. Header names are lower-cased, in the order received."""

    method: str
    path: str
    query: str
    version: str
    headers: tuple[tuple[str, str], ...]
    body: bytes

    def header(self, name: str) -> str | None:
        """The first value of a header, or None."""
        return next((v for k, v in self.headers if k == name), None)

    @property
    def keep_alive(self) -> bool:
        """Whether the client lets the connection live after this response."""
        connection = (self.header("connection") or "").lower()
        return "close" not in connection and (self.version == "HTTP/1.1" or "keep-alive" in connection)


async def read_request(reader: asyncio.StreamReader) -> Request | None:
    """The next request on the connection, or None when the client closed it cleanly between requests."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        if not exc.partial.strip():
            return None
        raise BadRequest("connection closed inside the request head") from None
    except asyncio.LimitOverrunError:
        raise BadRequest("request head too large") from None
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise BadRequest(f"bad request line {lines[0][:100]!r}")
    headers = []
    for line in lines[1:]:
        if line:
            name, sep, value = line.partition(":")
            if not sep or not name.strip():
                raise BadRequest(f"bad header line {line[:100]!r}")
            headers.append((name.strip().lower(), value.strip()))
    target = urlsplit(parts[1])
    request = Request(parts[0].upper(), unquote(target.path) or "/", target.query, parts[2], tuple(headers), b"")
    return dataclasses.replace(request, body=await _read_body(reader, request))


async def _read_body(reader: asyncio.StreamReader, request: Request) -> bytes:
    if "chunked" in (request.header("transfer-encoding") or "").lower():
        return await _read_chunked(reader)
    length = request.header("content-length")
    if length is None:
        return b""
    if not length.isdigit() or int(length) > MAX_BODY:
        raise BadRequest(f"bad or too large content-length {length[:20]!r}")
    try:
        return await reader.readexactly(int(length))
    except asyncio.IncompleteReadError:
        raise BadRequest("connection closed inside the request body") from None


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    body = bytearray()
    try:
        while True:
            size_line = (await reader.readuntil(b"\r\n")).split(b";")[0].strip()
            size = int(size_line, 16)
            if size == 0:
                while (await reader.readuntil(b"\r\n")) != b"\r\n":  # trailers, ignored
                    pass
                return bytes(body)
            if len(body) + size > MAX_BODY:
                raise BadRequest("request body too large")
            body += (await reader.readexactly(size + 2))[:-2]
    except (ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        raise BadRequest("malformed chunked request body") from None


def response_head(status: int, headers: tuple[tuple[str, str], ...] | list[tuple[str, str]]) -> bytes:
    """The status line and headers, ready to write."""
    reason = httpx.codes.get_reason_phrase(status) or "Unknown"
    lines = [f"HTTP/1.1 {status} {reason}"] + [f"{name}: {value}" for name, value in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", errors="replace")


async def write_response(
    writer: asyncio.StreamWriter,
    status: int,
    headers: tuple[tuple[str, str], ...],
    body: bytes,
    *,
    keep_alive: bool,
    head_only: bool = False,
) -> None:
    """A complete response with Content-Length (the body is left out for HEAD, the length kept)."""
    framing = (("content-length", str(len(body))), ("connection", "keep-alive" if keep_alive else "close"))
    writer.write(response_head(status, headers + framing) + (b"" if head_only else body))
    await writer.drain()


async def write_json(writer: asyncio.StreamWriter, status: int, payload: Any, *, keep_alive: bool) -> None:
    """A JSON response (the control API and the fake web's own errors)."""
    body = json.dumps(payload, ensure_ascii=False).encode()
    await write_response(writer, status, (("content-type", "application/json"),), body, keep_alive=keep_alive)
