"""Reading a local file the user named (`webreach parse`, `webreach extract`), bounded in bytes and in waiting.

`read_local(path, limit)` returns at most limit + 1 bytes whatever the file's size claims (devices and FIFOs say
0), so the caller can refuse more. The file is opened non-blocking, so a FIFO nobody writes to cannot hang the
open (a blocking open waits for a writer forever). A regular file is then read as usual; a FIFO, socket or
character device is read only while it keeps sending: `idle` seconds without a byte end the read with
InvalidInputError, and a FIFO without a writer reads as empty. One module for both commands, below every layer
that reads a local file (frontends/_cli_input.py, read/service.py).
"""

from __future__ import annotations

import errno
import os
import select
import stat
from pathlib import Path

from webreach.errors import InvalidInputError

IDLE_SECONDS = 10.0
CHUNK_BYTES = 1024 * 1024


def read_local(path: Path, limit: int, *, idle: float = IDLE_SECONDS) -> bytes:
    """At most `limit` + 1 bytes of `path`; OSError when it cannot be opened or is a directory."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if stat.S_ISREG(mode):
            os.set_blocking(fd, True)
            with os.fdopen(os.dup(fd), "rb") as file:
                return file.read(limit + 1)
        return _read_stream(fd, path, limit + 1, idle)
    finally:
        os.close(fd)


def _read_stream(fd: int, path: Path, most: int, idle: float) -> bytes:
    """Up to `most` bytes from a non-blocking FIFO, socket or device, giving up after `idle` seconds of silence."""
    chunks: list[bytes] = []
    size = 0
    while size < most:
        try:  # read first: with no writer at all a FIFO reads as end of data at once, where select() would wait
            chunk = os.read(fd, min(CHUNK_BYTES, most - size))
        except BlockingIOError:  # a writer, but nothing sent yet
            ready, _, _ = select.select([fd], [], [], idle)
            if not ready:
                raise InvalidInputError(
                    f"{path} sent nothing for {idle:g} s (a FIFO or device without data)",
                    hint="Save the data to a regular file and pass that file.",
                ) from None
            continue
        if not chunk:  # end of data, or a FIFO with no writer
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)
