"""The console's wording (frontends/_console_words.py): the provider's own message out of every recorded refusal
body, cut or whole; next steps in operator words; breakers with the time left; one time format."""

from __future__ import annotations

import pytest

from webreach.errors import Arg, AuthFailedError, InvalidInputError
from webreach.frontends._console_words import (
    console_syntax,
    engine_row,
    left,
    probe_view,
    provider_says,
    said,
    when,
)
from webreach.gateway import CanaryResult, EngineStatus


@pytest.mark.parametrize(
    ("body", "message"),
    [  # the fake web's recorded refusals (webreach/testing/recordings/*/auth_failed.http), as engines quote them
        ('{ "type": "ErrorResponse", "error": { "id": "b1", "status": 422, "code": "SUBSCRIPTION_TOKEN_INVALID", '
         '"detail": "The provided subscription token is invalid.", "meta": {',
         "The provided subscription token is invalid."),
        ('{ "error": { "code": 400, "message": "API key not valid. Please pass a valid API key.", "errors": [',
         "API key not valid. Please pass a valid API key."),
        ('{ "message": "Unauthorized.", "statusCode": 403 }', "Unauthorized."),
        ('{ "detail": { "error": "Unauthorized: missing or invalid API key." } }',
         "Unauthorized: missing or invalid API key."),
        ('{ "code": "401", "message": "Invalid API KEY", "log_id": "e8" }', "Invalid API KEY"),
        ('{ "requestId": "1f2e", "error": "Invalid API key", "tag": "INVALID_API_KEY" }', "Invalid API key"),
        ('{ "error": "Invalid API key. Your API key should be here: https://serpapi.com/manage-api-ke',
         "Invalid API key. Your API key should be here: https://serpapi.com/manage-api-ke…"),
    ],
)  # fmt: skip
def test_the_providers_own_message_is_taken_from_its_body(body: str, message: str) -> None:
    assert provider_says(f"rejected the API key (HTTP 401): {body}") == message


def test_no_body_no_message() -> None:
    assert provider_says("connection refused") is None
    assert provider_says("odd: { not json, no message field") is None


def test_next_steps_read_as_an_operator_would_and_end_with_a_full_stop() -> None:
    assert console_syntax(Arg("engine", "auto")) == "the auto mode"
    assert console_syntax(Arg("reader", "browser")) == "the browser reader"
    refused = AuthFailedError("rejected the API key", engine="brave_api")
    assert (
        said(refused)
        == "Rejected the API key. Check the engine's API key; meanwhile use another engine or the auto mode."
    )
    assert said(InvalidInputError("Timeout (seconds) must be a number", hint="e.g. 30.")) == (
        "Timeout (seconds) must be a number. E.g. 30."
    )


def status(**fields: object) -> EngineStatus:
    base: dict[str, object] = {
        "name": "mojeek", "kind": "scrape", "index": "own", "supports": (), "rate_per_minute": 6.0,
        "language_hint": None, "needs_key": False, "key_configured": False, "usable": True, "reason": None,
        "breaker": "closed", "retry_after": None,
    }  # fmt: skip
    return EngineStatus.model_validate({**base, **fields})


def test_a_breaker_says_how_long_its_rest_lasts() -> None:
    assert engine_row(status(), testable=True)["breaker_text"] == "closed"
    assert engine_row(status(failures=2), testable=True)["breaker_text"] == "closed (2 failures)"
    row = engine_row(status(breaker="open", retry_after=250.4), testable=False)
    assert row["breaker_text"] == "open · 4 min 10 s left" and row["testable"] is False
    assert engine_row(status(breaker="half_open"), testable=True)["breaker_text"] == "half-open"
    assert left(3725) == "1 h 2 min 5 s" and left(0.2) == "1 s" and left(None) == ""


def test_every_time_reads_the_same() -> None:
    assert when(1_000_000.0) == "1970-01-12 13:46:40 UTC"
    assert when("1970-01-12T13:46:40Z") == "1970-01-12 13:46:40 UTC"
    assert when("1970-01-12T14:46:40+01:00") == "1970-01-12 13:46:40 UTC"
    assert when(None) == "—"


def test_a_body_without_a_message_is_left_out_not_shown_as_json() -> None:
    refused = AuthFailedError('rejected the API key (HTTP 401): {"id": 7, "ok": false}', engine="exa")
    result = CanaryResult(engine="exa", status="error", code=refused.code, message=str(refused), error=refused)
    assert probe_view(result)["message"] == "exa rejected the API key (HTTP 401)."
