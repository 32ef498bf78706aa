"""Console settings across a restart of a real `webreach serve` process (issue 35): a value saved before the
restart keeps the console's rank afterwards, so a later change applies, and the page blames no environment
variable (none is set)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from frontends.serving import ServerProcess, http_server
from webreach.testing import FakeWeb

pytestmark = [pytest.mark.network, pytest.mark.slow]  # webreach processes, outages and restarts
FIELD = "rate_per_minute"


def rate_field(server: ServerProcess, value: float | None = None) -> dict[str, Any]:
    """mojeek's rate as GET /v1/admin/config shows it, after setting it to `value` (POST) when given."""
    if value is None:
        answer = httpx.get(f"{server.url}/v1/admin/config", trust_env=False, timeout=30)
    else:
        body = {"engines": {"mojeek": {FIELD: value}}}
        answer = httpx.post(f"{server.url}/v1/admin/config", json=body, trust_env=False, timeout=30)
    assert answer.status_code == 200, answer.text
    field: dict[str, Any] = answer.json()["engines"]["mojeek"][FIELD]
    return field


def rate_in_effect(server: ServerProcess) -> float:
    """The rate mojeek runs with on the server (GET /v1/admin/engines reports the effective settings)."""
    answer = httpx.get(f"{server.url}/v1/admin/engines", trust_env=False, timeout=30)
    return float(next(e for e in answer.json()["engines"] if e["name"] == "mojeek")[FIELD])


def test_a_console_value_keeps_its_rank_after_a_restart(web: FakeWeb, tmp_path: Path) -> None:
    with http_server(web, tmp_path) as first:
        assert rate_field(first, 30)["winner"] == "console"
        assert rate_in_effect(first) == 30
    with http_server(web, tmp_path) as again:
        kept = rate_field(again)
        assert kept["winner"] == "console"
        assert [layer["source"] for layer in kept["layers"]] == ["console", "default"]
        changed = rate_field(again, 45)
        assert changed["winner"] == "console" and changed["layers"][0] == {"source": "console", "value": "45"}
        assert rate_in_effect(again) == 45
        page = httpx.get(f"{again.url}/console/engines/mojeek", trust_env=False, timeout=30)
        assert page.status_code == 200, page.text
        assert "the console's value is not used" not in page.text
        assert f"WEBREACH_ENGINES__MOJEEK__{FIELD.upper()}" not in page.text
