"""The error tree's two rules: `.code` is the instance's one code, and `retryable` means "transient upstream"."""

from __future__ import annotations

import pytest

from webreach.errors import (
    AllEnginesFailedError,
    AuthFailedError,
    BadRequestError,
    BlockedError,
    EngineTimeoutError,
    FetchTimeoutError,
    FetchUnavailableError,
    HostResolutionError,
    HttpStatusError,
    InvalidInputError,
    NotConfiguredError,
    PageBlockedError,
    ParseError,
    QuotaExhaustedError,
    RateLimitedError,
    RequestRefused,
    RobotsDisallowedError,
    SessionStoreError,
    SuspendedError,
    UnavailableError,
    UrlNotAllowedError,
    WebreachError,
    error_body,
)


def test_code_is_the_instance_code_and_the_body_says_the_same() -> None:
    captcha = BlockedError("wappass", kind="captcha", engine="baidu")
    assert (captcha.code, BlockedError("wall").code) == ("captcha", "blocked")
    assert captcha.to_dict()["code"] == "captcha"
    assert PageBlockedError("challenge", kind="captcha").code == "captcha"
    robots = RobotsDisallowedError(
        "no", url="https://a.example/x", robots_url="https://a.example/robots.txt", temporary=False
    )
    assert (robots.code, robots.kind) == ("robots_disallowed", "blocked")
    assert not hasattr(captcha, "error_code")


TRANSIENT: list[WebreachError] = [
    RateLimitedError("slow down"),
    EngineTimeoutError("late"),
    UnavailableError("503"),
    SessionStoreError("locked"),
    FetchUnavailableError("reset"),
    FetchTimeoutError("late"),
    HttpStatusError("busy", status=503),
    HttpStatusError("slow down", status=429),
    HostResolutionError("no answer", host="a.example", reason="timeout"),
    RobotsDisallowedError("unreadable", url="u", robots_url="r", temporary=True),
]
LASTING: list[WebreachError] = [
    InvalidInputError("bad"),
    NotConfiguredError("no key"),
    AuthFailedError("401"),
    QuotaExhaustedError("402"),
    BlockedError("wall", kind="captcha"),
    BlockedError("wall"),
    BadRequestError("400"),
    ParseError("markup changed"),
    SuspendedError("resting", retry_after=60),
    PageBlockedError("wall"),
    HttpStatusError("gone", status=404),
    HostResolutionError("offline", host="a.example", reason="offline"),
    RobotsDisallowedError("disallowed", url="u", robots_url="r", temporary=False),
    UrlNotAllowedError("loopback", rule="loopback"),
]


@pytest.mark.parametrize("error", TRANSIENT, ids=lambda e: f"{type(e).__name__}-{e.code}")
def test_transient_upstream_failures_are_retryable(error: WebreachError) -> None:
    assert error.retryable


@pytest.mark.parametrize("error", LASTING, ids=lambda e: f"{type(e).__name__}-{e.code}")
def test_failures_that_repeat_unchanged_are_not_retryable(error: WebreachError) -> None:
    assert not error.retryable


def test_all_engines_failed_is_retryable_when_any_engine_failure_was() -> None:
    walls = [BlockedError("wall", kind="captcha"), AuthFailedError("401")]
    assert not AllEnginesFailedError("none", errors=walls).retryable
    assert AllEnginesFailedError("none", errors=[*walls, EngineTimeoutError("late")]).retryable


def test_the_one_error_body_names_a_tool_only_when_one_was_called_and_leaves_out_absent_details() -> None:
    refused = UrlNotAllowedError("private address", rule="private", url="http://10.0.0.1/")
    assert error_body(refused) == {
        "status": "error",
        "code": "url_not_allowed",
        "message": str(refused),
        "retry_after": None,  # always said: a client reads it to know whether to come back
        "rule": "private",  # a detail with a value; engine (None here) is left out, not null
    }
    assert list(error_body(refused, tool="web_fetch"))[:3] == ["status", "tool", "code"]
    assert error_body(refused, tool="web_fetch")["tool"] == "web_fetch" and refused.to_dict() == error_body(refused)
    failed = AllEnginesFailedError(
        "no engine answered", errors=[RateLimitedError("slow", engine="bing", retry_after=5)]
    )
    nested = error_body(failed)["errors"][0]
    assert nested["engine"] == "bing" and nested["retry_after"] == 5 and "tool" not in nested


def test_a_refusal_of_the_servers_own_is_an_error_of_its_code() -> None:
    refusal = RequestRefused("not_found", "no endpoint /v1/x", hint="See /docs for the endpoints.")
    assert error_body(refusal) == {
        "status": "error",
        "code": "not_found",
        "message": "no endpoint /v1/x. See /docs for the endpoints.",
        "retry_after": None,
    }
