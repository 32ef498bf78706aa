"""Recorded engine responses: the `.http` file format, loading, and turning a recording into an httpx.Response.

A recording is one raw HTTP response, readable in any editor:

    # optional comment lines (what was recorded, from where)
    HTTP/1.1 429 Too Many Requests
    content-type: text/html; charset=utf-8
    retry-after: 120

    <body bytes...>

Recordings ship inside the package (webreach/testing/recordings/<engine>/<case>.http) so the fake web works
from an installed wheel, not only from a checkout. The case name says what the engine must make of it:
`results*` parses to hits, `no_results*` to zero hits without error, any other case is named after the
error code it must raise (`captcha*`, `blocked*`, `rate_limited*`, `auth_failed*`, `quota_exhausted*`,
`unavailable*`, `parse_error*`). `warm_up` is no answer to a search: the fake web serves it at the engine's root,
where engines send the request that yields their token or cookie.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import httpx

RECORDINGS_DIR = Path(__file__).parent / "recordings"


@dataclass(frozen=True)
class Recording:
    """One recorded HTTP response."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes
    path: Path | None = field(default=None, compare=False)

    @property
    def case(self) -> str:
        """The case name (file stem), which says what the engine must make of it."""
        return self.path.stem if self.path else ""

    @property
    def expected_code(self) -> str | None:
        """The error code this case must raise, or None for results / no_results cases."""
        stem = self.case.split("-", 1)[0]
        return None if stem in ("results", "no_results", "warm_up") else stem

    def to_response(self, request: httpx.Request | None = None) -> httpx.Response:
        """An httpx.Response carrying this recording (content-encoding dropped: bodies are stored decoded)."""
        headers = [(k, v) for k, v in self.headers if k.lower() not in ("content-encoding", "content-length")]
        return httpx.Response(self.status, headers=headers, content=self.body, request=request)


def parse_recording(data: bytes, path: Path | None = None) -> Recording:
    """Parse the `.http` format."""
    lines = data.split(b"\n")
    index = 0
    while index < len(lines) and (lines[index].startswith(b"#") or not lines[index].strip()):
        index += 1
    if index >= len(lines) or not lines[index].startswith(b"HTTP/"):
        raise ValueError(f"{path or 'recording'}: expected an 'HTTP/1.1 <status>' line")
    status = int(lines[index].split()[1])
    headers: list[tuple[str, str]] = []
    index += 1
    while index < len(lines) and lines[index].strip():
        name, _, value = lines[index].decode("latin-1").partition(":")
        headers.append((name.strip().lower(), value.strip()))
        index += 1
    body = b"\n".join(lines[index + 1 :])
    return Recording(status=status, headers=tuple(headers), body=body, path=path)


def format_recording(status: int, headers: dict[str, str], body: bytes, comment: str = "") -> bytes:
    """Serialize a response in the `.http` format (used to record new fixtures)."""
    reason = httpx.codes.get_reason_phrase(status)
    head = "".join(f"# {line}\n" for line in comment.splitlines())
    head += f"HTTP/1.1 {status} {reason}\n" + "".join(f"{k}: {v}\n" for k, v in headers.items()) + "\n"
    return head.encode("utf-8") + body


def load_recording(path: Path) -> Recording:
    """Read one `.http` file."""
    return parse_recording(path.read_bytes(), path)


def engine_recordings(engine: str, directory: Path = RECORDINGS_DIR) -> dict[str, Recording]:
    """Every recording of one engine, by case name."""
    folder = directory / engine
    return {p.stem: load_recording(p) for p in sorted(folder.glob("*.http"))}
