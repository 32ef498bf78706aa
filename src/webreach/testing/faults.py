"""Fault writers: send a planned reply the way a broken or hostile server would.

Each writer owns the connection once it starts: anything but a clean response leaves it closed. Streams that
could run forever stop at the `Limits` caps, so nothing outlives a forgotten test by more than a minute.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct

from webreach.testing.scenarios import Fault, Limits, Reply
from webreach.testing.wire import response_head, write_response

_FILLER = (b"<!-- webreach fake web: this body never ends -->\n" * 400)[: 16 * 1024]


async def send(
    writer: asyncio.StreamWriter, reply: Reply, fault: Fault, limits: Limits, *, keep_alive: bool, head_only: bool
) -> bool:
    """Write `reply` bent by `fault`; True when the connection may carry another request."""
    if fault is Fault.RESET:
        reset(writer)
    elif fault is Fault.TRUNCATE:
        await truncate(writer, reply)
    elif fault is Fault.ENDLESS:
        await endless(writer, reply, limits)
    elif fault is Fault.DRIP:
        await drip(writer, reply, limits)
    elif fault is Fault.HANG:
        await asyncio.sleep(limits.hang_seconds)
    else:
        status, headers, body = reply.status, reply.headers, reply.body
        await write_response(writer, status, headers, body, keep_alive=keep_alive, head_only=head_only)
        return keep_alive
    return False


def reset(writer: asyncio.StreamWriter) -> None:
    """Close with SO_LINGER 0, so the kernel sends a TCP RST instead of a FIN."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


async def truncate(writer: asyncio.StreamWriter, reply: Reply) -> None:
    """Declare the full Content-Length, send half the body, close."""
    sent = reply.body[: len(reply.body) // 2]
    declared = len(sent) + max(len(reply.body) - len(sent), 1)
    framing = (("content-length", str(declared)), ("connection", "close"))
    writer.write(response_head(reply.status, reply.headers + framing) + sent)
    await writer.drain()


async def endless(writer: asyncio.StreamWriter, reply: Reply, limits: Limits) -> None:
    """A chunked body that starts with the recording and never sends its last chunk (stops at the caps)."""
    framing = (("transfer-encoding", "chunked"), ("connection", "close"))
    writer.write(response_head(reply.status, reply.headers + framing))
    sent = 0
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(limits.stream_seconds):
            chunk = reply.body or _FILLER
            while sent < limits.stream_bytes:
                writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                await writer.drain()  # back-pressure: a client that stops reading stops the stream
                sent += len(chunk)
                chunk = _FILLER


async def drip(writer: asyncio.StreamWriter, reply: Reply, limits: Limits) -> None:
    """The body a few bytes at a time (a slowloris server); gives up at the stream time cap."""
    framing = (("content-length", str(len(reply.body))), ("connection", "close"))
    writer.write(response_head(reply.status, reply.headers + framing))
    await writer.drain()
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(limits.stream_seconds):
            for start in range(0, len(reply.body), limits.drip_bytes):
                await asyncio.sleep(limits.drip_interval)
                writer.write(reply.body[start : start + limits.drip_bytes])
                await writer.drain()
