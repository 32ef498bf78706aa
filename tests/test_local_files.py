"""Local files the CLI reads are bounded: a FIFO nobody writes to, or one that stops sending, never hangs.

Real FIFOs (os.mkfifo) and real processes: `webreach parse` and `webreach extract` of a FIFO without a writer end
at once with a typed answer; a writer that holds the FIFO open without sending ends the read after the idle time.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from webreach.errors import InvalidInputError
from webreach.local_files import read_local, read_under

RUN_TIMEOUT = 60  # a hang fails the test here instead of stalling the suite


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


@pytest.fixture
def silent_writer(fifo: Path) -> Iterator[Path]:
    """A writer that opens the FIFO and sends nothing until the test is done."""
    done = threading.Event()

    def hold() -> None:
        with open(fifo, "wb"):  # blocks until the reader opens it
            done.wait(RUN_TIMEOUT)

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    yield fifo
    done.set()
    thread.join(RUN_TIMEOUT)


def test_a_regular_file_is_read_up_to_one_byte_past_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_bytes(b"x" * 100)
    assert read_local(path, 1000) == b"x" * 100
    assert len(read_local(path, 10)) == 11


def test_a_fifo_without_a_writer_reads_as_empty(fifo: Path) -> None:
    assert read_local(fifo, 1000) == b""


def test_a_fifo_that_stops_sending_ends_after_the_idle_time(silent_writer: Path) -> None:
    deadline = time.monotonic() + RUN_TIMEOUT
    while True:  # the writer's open() returns once we open; until then there is no writer yet
        try:
            with pytest.raises(InvalidInputError) as caught:
                read_local(silent_writer, 1000, idle=0.3)
            break
        except pytest.fail.Exception:
            if time.monotonic() > deadline:
                raise
    assert "sent nothing" in caught.value.message


def test_a_directory_is_refused_as_unreadable(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError):
        read_local(tmp_path, 1000)


@pytest.mark.parametrize("command", [["parse", "bing"], ["extract"]])
@pytest.mark.slow
def test_the_cli_answers_a_fifo_instead_of_hanging(fifo: Path, tmp_path: Path, command: list[str]) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "WEBREACH_CONFIG": os.devnull}
    done = subprocess.run(
        [sys.executable, "-m", "webreach", *command, str(fifo)],
        capture_output=True, text=True, timeout=RUN_TIMEOUT, env=env, cwd=tmp_path,
    )  # fmt: skip
    print(done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    # an empty FIFO is an empty file: parse finds no results page (a typed error's exit code), extract an empty
    # document
    assert done.returncode in (0, 2, 3, 4)


def _webreach(args: list[str], tmp_path: Path) -> subprocess.Popen[str]:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "WEBREACH_CONFIG": os.devnull,
           "WEBREACH_STATE__PATH": str(tmp_path / "state.sqlite3")}  # fmt: skip
    if "PYTHONPATH" in os.environ:  # the tree under test, when it is not the installed one
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return subprocess.Popen(
        [sys.executable, "-m", "webreach", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path,
    )  # fmt: skip


@pytest.mark.slow  # a subprocess or a heavy model: a cheaper sibling covers the rule in the fast loop
def test_image_add_of_a_fifo_without_a_writer_is_refused_instead_of_hanging(fifo: Path, tmp_path: Path) -> None:
    process = _webreach(["image", "add", str(fifo), "--json"], tmp_path)
    try:
        out, err = process.communicate(timeout=RUN_TIMEOUT)
    finally:
        process.kill()  # a hang (the blocking open of old) fails the test rather than leaving a process behind
    print(out, err)
    assert "Traceback" not in err
    assert process.returncode == 2
    assert json.loads(out)["code"] == "invalid_input" and "empty" in json.loads(out)["message"]


@pytest.mark.slow  # a subprocess or a heavy model: a cheaper sibling covers the rule in the fast loop
def test_image_add_reads_an_image_a_pipe_sends(fifo: Path, tmp_path: Path) -> None:
    # `webreach image add <(curl ...)`: a pipe that sends an image is read like the file
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), "teal").save(buffer, format="PNG")

    def send() -> None:
        with open(fifo, "wb") as writer:  # a writer from the start (Linux counts it while open() waits for a reader)
            writer.write(buffer.getvalue())

    sender = threading.Thread(target=send, daemon=True)
    sender.start()  # before the command starts, which takes far longer than reaching open()
    process = _webreach(["image", "add", str(fifo), "--json"], tmp_path)
    try:
        out, err = process.communicate(timeout=RUN_TIMEOUT)
    finally:
        process.kill()
        if sender.is_alive():  # the command never opened the FIFO: release the writer
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        sender.join(RUN_TIMEOUT)
    print(out, err)
    assert process.returncode == 0
    assert json.loads(out)["token"] == "<obs_1>" and json.loads(out)["width"] == 40


# --- read_under: a file an agent named, inside the upload directory only -------------------------------------


@pytest.fixture
def uploads(tmp_path: Path) -> Path:
    root = tmp_path / "uploads"
    (root / "day1").mkdir(parents=True)
    (root / "day1" / "a.png").write_bytes(b"inside")
    (tmp_path / "secret.txt").write_bytes(b"outside")
    return root


def test_read_under_reads_relative_and_absolute_names_inside_the_directory(uploads: Path) -> None:
    assert read_under(uploads, "day1/a.png", 100) == b"inside"
    assert read_under(uploads, "./day1//a.png", 100) == b"inside"
    assert read_under(uploads, str(uploads / "day1" / "a.png"), 100) == b"inside"
    assert read_under(uploads, "day1/a.png", 3) == b"insi"  # limit + 1: the caller refuses more


@pytest.mark.parametrize("name", ["../secret.txt", "day1/../../secret.txt", "/etc/passwd", "", ".", "a\0b", "x" * 2000])
def test_read_under_refuses_names_outside_the_directory(uploads: Path, name: str) -> None:
    with pytest.raises(InvalidInputError, match="not a file inside the upload directory"):
        read_under(uploads, name, 100)


def test_read_under_follows_no_symbolic_link(uploads: Path) -> None:
    (uploads / "out.png").symlink_to(uploads.parent / "secret.txt")
    (uploads / "up").symlink_to(uploads.parent)  # a directory link leading out
    (uploads / "same.png").symlink_to(uploads / "day1" / "a.png")  # even one pointing back inside
    for name in ("out.png", "up/secret.txt", "same.png", str(uploads / "up" / "secret.txt")):
        with pytest.raises(InvalidInputError, match="not a file inside the upload directory"):
            read_under(uploads, name, 100)


def test_read_under_reads_regular_files_only(uploads: Path) -> None:
    os.mkfifo(uploads / "pipe.png")
    with pytest.raises(InvalidInputError, match="not a regular file"):
        read_under(uploads, "pipe.png", 100)  # and at once: a FIFO without a writer is never waited on
    with pytest.raises(InvalidInputError, match="not a regular file"):
        read_under(uploads, "day1", 100)
    with pytest.raises(InvalidInputError, match=r"no file 'day1/b\.png'"):
        read_under(uploads, "day1/b.png", 100)
    with pytest.raises(InvalidInputError, match="upload directory cannot be opened"):
        read_under(uploads / "missing", "a.png", 100)
