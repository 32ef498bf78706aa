"""Each engine's recent attempts summed for the console: shares of answers, CAPTCHAs and rate limits, and the
engine's own latency (cache hits and local pacing left out of it), over a bounded window."""

from __future__ import annotations

from webreach.engine_attempt import EngineAttempt
from webreach.search.recent_attempts import RecentAttempts


def attempt(status: str = "ok", code: str | None = None, latency: float = 100.0, cached: bool = False) -> EngineAttempt:
    return EngineAttempt(engine="bing", status=status, code=code, latency_ms=latency, cached=cached)  # type: ignore[arg-type]


def test_shares_and_latency_of_the_last_attempts() -> None:
    recent = RecentAttempts()
    for latency in (100.0, 200.0, 300.0):
        recent.note(attempt(latency=latency))
    recent.note(attempt(cached=True, latency=0.1))
    recent.note(attempt("error", "captcha", latency=50.0))
    recent.note(attempt("skipped", "throttled", latency=0.0))
    recent.note(attempt("cancelled", latency=900.0))  # not needed: not counted
    bing = recent.summary()["bing"]
    assert bing.attempts == 6
    assert (bing.ok_share, bing.captcha_share, bing.rate_limited_share, bing.cached_share) == (
        0.667,
        0.167,
        0.167,
        0.167,
    )
    assert bing.p50_ms == 150.0 and bing.p90_ms == 300.0  # asked: 50, 100, 200, 300


def test_the_window_is_bounded() -> None:
    recent = RecentAttempts(window=10)
    for _ in range(50):
        recent.note(attempt("error", "captcha"))
    for _ in range(10):
        recent.note(attempt())
    assert recent.summary()["bing"].attempts == 10 and recent.summary()["bing"].captcha_share == 0.0
    assert RecentAttempts().summary() == {}
