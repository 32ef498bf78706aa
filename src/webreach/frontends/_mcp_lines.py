"""Stdio MCP: every line the SDK would refuse gets a JSON-RPC error, not silence.

The SDK's stdin reader hands each line to its JSON-RPC validator and drops a line the validator refuses (broken
JSON, a lone surrogate escape, a message of no JSON-RPC shape, nesting deeper than its parser recurses) without an
answer, so the client waits for ever. `guarded_lines` stands in front of it: a line longer than the size limit
(read in bounded pieces, never whole) or nesting deeper than MAX_MESSAGE_DEPTH is answered here with -32600 naming
the limit; a line the SDK's own validator refuses is answered -32700 (not JSON) or -32600 (not a JSON-RPC message).
Each answer carries the request's id when a cheap look at the line's top-level members finds it (else null), and
the line never reaches the SDK. Blank lines are skipped. Every other line passes through as the SDK would have
read it (UTF-8, undecodable bytes replaced); validating it here too costs about 3 us a line.

The stdin descriptor is claimed as the SDK claims it when it reads stdin itself: the pipe moves to a private
descriptor and fd 0 points at the null device while serving, so a child process or handler that reads stdin
reads end of file instead of the client's messages.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any, BinaryIO

import anyio
from mcp import types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from webreach.bounded_json import nests_deeper_than
from webreach.defaults import MAX_JSON_DEPTH

# tool arguments sit three levels down a tools/call message ({"params": {"arguments": {...}}}); the other levels
# leave room for _meta and initialize's capabilities, and the whole stays far below the SDK parser's ~200
MAX_MESSAGE_DEPTH = MAX_JSON_DEPTH + 8
INVALID_REQUEST = -32600
PARSE_ERROR = -32700
_ID_LOOKAHEAD = 4096  # bytes of a refused line searched for its id
_SKIP_CHUNK = 1 << 16


@contextlib.contextmanager
def claimed_stdin() -> Iterator[BinaryIO]:
    """The process's stdin pipe on a private descriptor, fd 0 on the null device until the block ends."""
    if not sys.stdin or not _backed_by_fd0():
        yield sys.stdin.buffer
        return
    private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        # closefd=False: the reader thread may still block on it after serving ends; it must not be recycled
        yield os.fdopen(private, "rb", closefd=False)
    finally:
        os.dup2(private, 0)


def _backed_by_fd0() -> bool:
    try:
        return sys.stdin.buffer.fileno() == 0
    except (AttributeError, OSError, ValueError):
        return False


async def guarded_lines(
    source: BinaryIO, answers: anyio.abc.ObjectSendStream[SessionMessage], *, max_bytes: int
) -> AsyncIterator[str]:
    """The lines of `source` the SDK may read; the others answered on `answers` with a JSON-RPC error. `answers`
    is closed at end of input, after the last error answer was taken."""
    async with answers:
        async for line in _guarded(source, answers, max_bytes):
            yield line


async def _guarded(
    source: BinaryIO, answers: anyio.abc.ObjectSendStream[SessionMessage], max_bytes: int
) -> AsyncIterator[str]:
    while True:
        line = await anyio.to_thread.run_sync(source.readline, max_bytes + 1)
        if not line:
            return
        if len(line) > max_bytes and not line.endswith(b"\n"):
            head = line[:_ID_LOOKAHEAD]
            await anyio.to_thread.run_sync(_skip_rest_of_line, source)
            await _refuse(answers, head, f"message over {max_bytes:,} bytes; send smaller tool arguments")
        elif _too_deep(line):
            message = f"message nests deeper than {MAX_MESSAGE_DEPTH} levels (tool arguments: {MAX_JSON_DEPTH})"
            await _refuse(answers, line[:_ID_LOOKAHEAD], f"{message}; send a flat JSON object of arguments")
        elif not line.isspace():
            text = line.decode("utf-8", "replace")
            if (refusal := _refusal(text)) is None:
                yield text
            else:
                await _refuse(answers, line[:_ID_LOOKAHEAD], *refusal)


def _refusal(text: str) -> tuple[str, int] | None:
    """Why the SDK's validator would refuse the line, with the JSON-RPC error code; None when it takes it."""
    try:
        types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValidationError as error:
        problems = error.errors(include_url=False, include_context=False, include_input=False)
        for problem in problems:
            if problem["type"] == "json_invalid":
                return f"not valid JSON ({problem['msg']}); send one JSON-RPC message per line", PARSE_ERROR
        return "not a JSON-RPC 2.0 request, notification or response; see the MCP specification", INVALID_REQUEST
    return None


def _too_deep(line: bytes) -> bool:
    return line.count(b"[") + line.count(b"{") > MAX_MESSAGE_DEPTH and nests_deeper_than(line, MAX_MESSAGE_DEPTH)


def _skip_rest_of_line(source: BinaryIO) -> None:
    while (piece := source.readline(_SKIP_CHUNK)) and not piece.endswith(b"\n"):
        pass


async def _refuse(
    answers: anyio.abc.ObjectSendStream[SessionMessage], head: bytes, message: str, code: int = INVALID_REQUEST
) -> None:
    error = types.JSONRPCError(jsonrpc="2.0", id=request_id(head), error=types.ErrorData(code=code, message=message))
    with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):  # the server already stopped
        await answers.send(SessionMessage(error))


def request_id(head: bytes) -> Any:
    """The id among the top-level members of a JSON object's first bytes, before any nested value; else None.

    Only scalars are decoded (json's raw_decode on one string or number), so a refused line costs no recursion.
    """
    text = head.decode("utf-8", "replace")
    decoder = json.JSONDecoder()
    at = _skip_space(text, 0)
    if not text.startswith("{", at):
        return None
    at += 1
    try:
        while True:
            key, at = decoder.raw_decode(text, _skip_space(text, at))
            at = _skip_space(text, at)
            if not isinstance(key, str) or not text.startswith(":", at):
                return None
            at = _skip_space(text, at + 1)
            if text.startswith(("{", "["), at):
                return None  # a nested value: the id, if it follows, is not cheap to reach
            value, at = decoder.raw_decode(text, at)
            if key == "id":
                return value if isinstance(value, str | int) and not isinstance(value, bool) else None
            at = _skip_space(text, at)
            if not text.startswith(",", at):
                return None
            at += 1
    except ValueError:  # truncated or not JSON
        return None


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at
