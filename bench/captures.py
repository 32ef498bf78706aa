"""The real captures in ../shared/data/serp and the result counts PROVENANCE.md gives for them.

Shared by the benchmarks; tests keep their own explicit expectations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
ROW = re.compile(r"^\| `(?:[^`]*/)?([^`/]+)` \|.*\| (\d+)[^|]*\|\s*$")


@dataclass(frozen=True)
class Capture:
    """One real results page and the engine that produced it."""

    engine: str
    path: Path
    expected: int | None

    @property
    def label(self) -> str:
        return self.path.name


def expected_counts(provenance: Path) -> dict[str, int]:
    """File name -> approximate organic-result count, from PROVENANCE.md's tables."""
    counts: dict[str, int] = {}
    for line in provenance.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            counts[match.group(1)] = int(match.group(2))
    return counts


def serp_captures(data: Path = SHARED_DATA) -> list[Capture]:
    """Every real results page (blocked pages excluded), by engine folder."""
    counts = expected_counts(data / "PROVENANCE.md")
    captures = []
    for path in sorted((data / "serp").glob("*/*.html")):
        engine = path.parent.name
        if engine.startswith("_"):
            continue
        captures.append(Capture(engine=engine, path=path, expected=counts.get(path.name)))
    return captures
