"""Reading a local file the user named (`webreach parse`, `webreach extract`), bounded in bytes and in waiting.

`read_local(path, limit)` returns at most limit + 1 bytes whatever the file's size claims (devices and FIFOs say
0), so the caller can refuse more. The file is opened non-blocking, so a FIFO nobody writes to cannot hang the
open (a blocking open waits for a writer forever). A regular file is then read as usual; a FIFO, socket or
character device is read only while it keeps sending: `idle` seconds without a byte end the read with
InvalidInputError, and a FIFO without a writer reads as empty. One module for both commands, below every layer
that reads a local file (frontends/_cli_input.py, read/service.py).

`read_under(root, name, limit)` reads a file an agent named inside the operator's upload directory and nowhere
else (the rollout gateway's hidden upload_file_to_cloud, seed-contracts.md B). The path is walked one component at
a time from a descriptor of `root`, each opened with O_NOFOLLOW: `..`, a symlink anywhere on the way (even one
pointing back inside) and anything but a regular file at the end are refused, so a link swapped in between a check
and the open cannot lead out of the directory. An absolute path is accepted only when it lies under `root`.
"""

from __future__ import annotations

import errno
import os
import select
import stat
from pathlib import Path, PurePosixPath

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


MAX_PATH_CHARS = 1024
MAX_DEPTH = 32
_DIRECTORY_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def inside(root: Path, name: str) -> list[str]:
    """The components of `name` below `root` (InvalidInputError when it names anything outside it)."""
    if not name or len(name) > MAX_PATH_CHARS or "\0" in name:
        raise _outside(name)
    path = PurePosixPath(name)
    if path.is_absolute():
        for base in dict.fromkeys((root.absolute(), root.resolve())):
            if path.is_relative_to(base):
                path = path.relative_to(base)
                break
        else:
            raise _outside(name)
    parts = [part for part in path.parts if part not in ("", ".")]
    if not parts or ".." in parts or len(parts) > MAX_DEPTH:
        raise _outside(name)
    return parts


def read_under(root: Path, name: str, limit: int) -> bytes:
    """At most `limit` + 1 bytes of the regular file `name` names below `root` (blocking: run it off the loop)."""
    parts = inside(root, name)
    try:
        opened = [os.open(root, _DIRECTORY_FLAGS)]
    except OSError:
        raise InvalidInputError(
            "the upload directory cannot be opened", hint="Ask the operator to create [images] upload_dir."
        ) from None
    try:
        for part in parts[:-1]:
            opened.append(_open_in(opened[-1], part, _DIRECTORY_FLAGS | getattr(os, "O_NOFOLLOW", 0), name))
        fd = _open_in(opened[-1], parts[-1], _FILE_FLAGS, name)
    finally:
        for directory in opened:
            os.close(directory)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InvalidInputError(f"{name!r} is not a regular file", hint="Name an image file in the directory.")
        os.set_blocking(fd, True)
        with os.fdopen(os.dup(fd), "rb") as file:
            return file.read(limit + 1)
    finally:
        os.close(fd)


def _open_in(directory: int, part: str, flags: int, name: str) -> int:
    """`part` opened relative to `directory`; a symlink (or a file where a directory should be) is refused."""
    try:
        return os.open(part, flags, dir_fd=directory)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            raise _outside(name) from None
        if exc.errno == errno.ENOENT:
            raise InvalidInputError(f"no file {name!r} in the upload directory", hint="Check the file name.") from None
        raise InvalidInputError(f"{name!r} cannot be read ({exc.strerror})", hint="Check the file.") from None


def _outside(name: str) -> InvalidInputError:
    shown = name if len(name) <= 200 else name[:200] + "…"
    return InvalidInputError(
        f"file_path {shown!r} is not a file inside the upload directory",
        hint="Name an image file in the upload directory (a name relative to it, or an absolute path inside it); "
        "symbolic links are not followed.",
    )
