"""The examples run as a new user would run them: offline, against the fake web, to the end."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.slow
def test_openai_style_tool_loop_runs_offline(tmp_path: Path) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "WEBREACH_STATE__BACKEND": "memory"}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "openai_loop.py")],
        capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "assistant calls web_search" in done.stdout
    assert "[1] " in done.stdout, "the model sees numbered results"
    assert "assistant calls web_fetch" in done.stdout
    assert "BEGIN UNTRUSTED WEB PAGE" in done.stdout, "result [1] was read offline, from the fake web"
    assert "I read [1] and answered from it." in done.stdout
    assert "Traceback" not in done.stderr
