"""bench/fuzz.py runs end to end on a tiny case count, so the report cannot rot (no timing or count assertions on
what it finds: that is the report's job, not a test's)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TARGETS = ["bing", "exa", "extractor", "charset", "retry_after", "images", "rest", "mcp_http", "mcp_stdio", "cli"]

pytestmark = [pytest.mark.network, pytest.mark.fuzz]


def test_the_fuzz_report_runs_every_kind_of_target(tmp_path: Path, shared_data: Path) -> None:
    output = tmp_path / "fuzz.json"
    command = [
        sys.executable, "-m", "bench.fuzz", "--quick", "--cases", "3", "--targets", ",".join(TARGETS),
        "--cli-subprocess", "1", "--budget", "30", "--output", str(output),
    ]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    print(done.stdout[-5000:], done.stderr[-5000:])
    assert done.returncode == 0
    rows = {row["target"]: row for row in json.loads(output.read_text())["rows"]}
    assert set(rows) == {"engine bing", "engine exa", *TARGETS[2:6], *(f"door {door}" for door in TARGETS[6:])}
    assert all(0 < row["cases"] <= 3 for row in rows.values())  # a CLI argv with a NUL cannot run as a process
    assert all(row["typed"] + row["untyped"] <= row["cases"] for row in rows.values())
    assert "| target | cases | typed errors | untyped | over 0.5 s | max s | over 2 s, timed again |" in done.stdout
