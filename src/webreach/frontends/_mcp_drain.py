"""Stdio MCP: every request read before stdin closed is answered before the server stops.

`printf '<initialize + tools/call>' | webreach mcp` closes stdin right after the call. The SDK's loop ends when its
read stream ends and cancels what is still running, answering "Connection closed" instead of the search. So the
stdio server reads through `answered_before_eof`: end of input is passed on only once every request read so far
has its answer written (or the client cancelled it), waiting at most DRAIN_TIMEOUT for a stuck one.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import types
from mcp.shared.message import SessionMessage

# longer than any one tool call may take (the search deadline, a browser read), short enough not to hang a pipe
DRAIN_TIMEOUT = 120.0
Incoming = SessionMessage | Exception


class _Pending:
    """Request ids read and not yet answered, and an event for "none left"."""

    def __init__(self) -> None:
        self.ids: set[Any] = set()
        self.none_left = anyio.Event()
        self.none_left.set()

    def add(self, request_id: Any) -> None:
        self.ids.add(request_id)
        if self.none_left.is_set():
            self.none_left = anyio.Event()

    def settle(self, request_id: Any) -> None:
        self.ids.discard(request_id)
        if not self.ids:
            self.none_left.set()


@contextlib.asynccontextmanager
async def answered_before_eof(
    read_stream: Any, write_stream: Any
) -> AsyncIterator[tuple[MemoryObjectReceiveStream[Incoming], MemoryObjectSendStream[SessionMessage]]]:
    """Streams to run the server on, in place of stdio's `read_stream` and `write_stream`."""
    reads_in, reads = anyio.create_memory_object_stream[Incoming](0)
    writes, writes_out = anyio.create_memory_object_stream[SessionMessage](0)
    pending = _Pending()
    flushed = anyio.Event()

    async def forward_reads() -> None:
        async with reads_in:
            async for message in read_stream:
                if isinstance(message, SessionMessage):
                    _note_read(message.message, pending)
                await reads_in.send(message)
            with anyio.move_on_after(DRAIN_TIMEOUT):
                await pending.none_left.wait()

    async def forward_writes() -> None:
        async with writes_out:
            async for message in writes_out:
                if isinstance(message.message, types.JSONRPCResponse | types.JSONRPCError):
                    pending.settle(message.message.id)
                await write_stream.send(message)
        await write_stream.aclose()  # as the server would close it: the transport's writer ends with it
        flushed.set()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(forward_reads)
        tasks.start_soon(forward_writes)
        try:
            yield reads, writes
        finally:
            await writes.aclose()  # the server is done writing: pass on what it wrote, then stop reading
            with anyio.move_on_after(DRAIN_TIMEOUT):
                await flushed.wait()
            tasks.cancel_scope.cancel()


def _note_read(message: Any, pending: _Pending) -> None:
    """Track a request (it needs an answer) or a cancellation (its request will get none)."""
    if isinstance(message, types.JSONRPCRequest):
        pending.add(message.id)
    elif isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
        params = message.params if isinstance(message.params, dict) else {}
        pending.settle(params.get("requestId"))
