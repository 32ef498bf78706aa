"""The scenario model and the reply it plans, without sockets."""

from __future__ import annotations

from pathlib import Path

import pytest

from webreach.testing import Fault, Scenario, format_recording
from webreach.testing.scenarios import plan_reply


def write(folder: Path, case: str, status: int, body: bytes) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    headers = {"content-type": "text/html", "content-length": "999", "content-encoding": "gzip"}
    (folder / f"{case}.http").write_bytes(format_recording(status, headers, body, comment="test"))


def test_fields_are_coerced_from_json_values() -> None:
    scenario = Scenario.from_fields({"fault": "retry_after", "retry_after": 30, "latency": 1, "times": 2})
    assert scenario == Scenario(fault=Fault.RETRY_AFTER, retry_after="30", latency=1.0, times=2)
    assert scenario.to_json()["fault"] == "retry_after"
    assert Scenario.from_fields({"fault": None}).fault is Fault.NONE


@pytest.mark.parametrize(
    "fields",
    [
        {"fault": "explode"},
        {"colour": "red"},
        {"status": 99},
        {"status": "503"},
        {"status": True},
        {"latency": -0.1},
        {"latency": 3600},
        {"times": 0},
        {"case": "../results"},
        {"case": 7},
        {"retry_after": "1\r\nx-injected: 1"},
    ],
)
def test_bad_fields_are_value_errors(fields: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        Scenario.from_fields(fields)


def test_framing_headers_of_a_recording_are_dropped(tmp_path: Path) -> None:
    write(tmp_path, "results", 200, b"hello")
    reply = plan_reply(Scenario(), tmp_path)
    assert reply.headers == (("content-type", "text/html"),)
    assert (reply.status, reply.body) == (200, b"hello")


def test_captcha_prefers_captcha_then_blocked_recordings_then_a_challenge(tmp_path: Path) -> None:
    write(tmp_path, "results", 200, b"hits")
    challenge = plan_reply(Scenario(fault=Fault.CAPTCHA), tmp_path)
    assert (challenge.status, dict(challenge.headers)["cf-mitigated"]) == (403, "challenge")
    write(tmp_path, "blocked", 403, b"blocked page")
    assert plan_reply(Scenario(fault=Fault.CAPTCHA), tmp_path).body == b"blocked page"
    write(tmp_path, "captcha-2", 200, b"second captcha")
    write(tmp_path, "captcha", 302, b"first captcha")
    assert plan_reply(Scenario(fault=Fault.CAPTCHA), tmp_path).body == b"first captcha"
    assert plan_reply(Scenario(fault=Fault.CAPTCHA, status=200), tmp_path).status == 200


def test_retry_after_replaces_the_recorded_header(tmp_path: Path) -> None:
    (tmp_path / "rate_limited.http").write_bytes(format_recording(429, {"retry-after": "120"}, b"slow"))
    reply = plan_reply(Scenario(fault=Fault.RETRY_AFTER, retry_after="5"), tmp_path)
    assert (reply.status, reply.body, reply.headers) == (429, b"slow", (("retry-after", "5"),))
