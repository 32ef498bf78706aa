"""One table from error code to CLI exit code, and one from error code to HTTP status (REST and the server).

HTTP statuses follow whose fault it is and what a client should do next:
- 4xx: the caller can fix it (400 invalid_input, 404 unknown_ref, 403 url_not_allowed or robots_disallowed,
  413/415 a page the reader will not take, 422 needs_browser: a JavaScript-only page), or must slow down (429
  rate_limited with Retry-After).
- 502: an upstream engine or page failed (captcha, blocked, unavailable, parse_error, all_engines_failed, ...);
  504 when it timed out.
- 503 with Retry-After: we decline for now and say when to come back (suspended by the circuit breaker,
  throttled by our own rate limit, the session store or the credits ledger unavailable).
- 502 unreachable: the engine could not be reached from the server (no DNS, no route, refused).
- The calling agent's account (accounts on): 401 agent_auth_failed (no valid key, or the agent is disabled), 403
  tool_not_allowed (the tool is outside the agent's profile), 402
  insufficient_credits, 429 agent_quota_exhausted with Retry-After; idempotency keys: 409 in_progress (with
  Retry-After), 422 idempotency_mismatch.
- 501 not_configured: the engine or reader needs configuration (an API key, a browser) that no retry will bring,
  so not 503, which clients and proxies retry on their own.
Every error status carries the agent error body; Retry-After is sent whenever the error has retry_after.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from types import MappingProxyType

from webreach.errors import InvalidInputError, UrlNotAllowedError, WebreachError

EXIT_OK = 0
EXIT_INVALID_INPUT = 2
EXIT_REFUSED = 3
EXIT_UPSTREAM = 4

# Every error code has its own row (a test walks webreach.errors to keep both tables complete):
# 2 the caller can fix the call; 3 we declined on purpose (policy, configuration); 4 something upstream failed.
EXIT_CODES: Mapping[str, int] = MappingProxyType(
    {
        # the caller's arguments
        "invalid_input": EXIT_INVALID_INPUT,
        "unknown_ref": EXIT_INVALID_INPUT,
        "unknown_passage": EXIT_INVALID_INPUT,
        "invalid_image": EXIT_INVALID_INPUT,
        "corrupt_image": EXIT_INVALID_INPUT,
        "unknown_image": EXIT_INVALID_INPUT,
        "image_too_large": EXIT_INVALID_INPUT,
        "unsupported_image": EXIT_INVALID_INPUT,
        # declined on purpose
        "not_configured": EXIT_REFUSED,
        "admin_required": EXIT_REFUSED,
        "admin_throttled": EXIT_REFUSED,
        "account_error": EXIT_REFUSED,
        "agent_auth_failed": EXIT_REFUSED,
        "tool_not_allowed": EXIT_REFUSED,
        "insufficient_credits": EXIT_REFUSED,
        "agent_quota_exhausted": EXIT_REFUSED,
        "in_progress": EXIT_REFUSED,
        "idempotency_mismatch": EXIT_INVALID_INPUT,
        "suspended": EXIT_REFUSED,
        "throttled": EXIT_REFUSED,
        "url_not_allowed": EXIT_REFUSED,
        "robots_disallowed": EXIT_REFUSED,
        # upstream engines and pages (and our own faults, which no retry of the same call fixes either)
        "error": EXIT_UPSTREAM,
        "session_store_unavailable": EXIT_UPSTREAM,
        "config_store_unavailable": EXIT_UPSTREAM,
        "state_backend_unavailable": EXIT_UPSTREAM,
        "accounting_unavailable": EXIT_UPSTREAM,
        "engine_error": EXIT_UPSTREAM,
        "auth_failed": EXIT_UPSTREAM,
        "quota_exhausted": EXIT_UPSTREAM,
        "rate_limited": EXIT_UPSTREAM,
        "captcha": EXIT_UPSTREAM,
        "blocked": EXIT_UPSTREAM,
        "timeout": EXIT_UPSTREAM,
        "unavailable": EXIT_UPSTREAM,
        "bad_request": EXIT_UPSTREAM,
        "parse_error": EXIT_UPSTREAM,
        "unreachable": EXIT_UPSTREAM,
        "all_engines_failed": EXIT_UPSTREAM,
        "fetch_error": EXIT_UPSTREAM,
        "http_error": EXIT_UPSTREAM,
        "too_many_redirects": EXIT_UPSTREAM,
        "too_large": EXIT_UPSTREAM,
        "unsupported_content": EXIT_UPSTREAM,
        "needs_browser": EXIT_UPSTREAM,
        "extraction_failed": EXIT_UPSTREAM,
        "rendered_empty": EXIT_UPSTREAM,
    }
)

HTTP_STATUS: Mapping[str, int] = MappingProxyType(
    {
        # the caller's request
        "invalid_input": 400,
        "url_not_allowed": 403,
        "robots_disallowed": 403,
        "unknown_ref": 404,
        "unknown_passage": 404,
        "too_large": 413,
        "unsupported_content": 415,
        "needs_browser": 422,
        "rate_limited": 429,
        # images the caller passed (issue 14)
        "invalid_image": 400,
        "corrupt_image": 400,
        "unknown_image": 404,
        "image_too_large": 413,
        "unsupported_image": 415,
        # the calling agent's account (accounts/): its key, credits, quota, idempotency key
        "account_error": 403,
        "agent_auth_failed": 401,
        "tool_not_allowed": 403,
        "insufficient_credits": 402,
        "agent_quota_exhausted": 429,
        "idempotency_mismatch": 422,
        "in_progress": 409,
        # ours
        "error": 500,
        "not_configured": 501,
        "suspended": 503,
        "throttled": 503,
        "session_store_unavailable": 503,
        "config_store_unavailable": 503,
        "state_backend_unavailable": 503,
        "accounting_unavailable": 503,
        # upstream engines and pages
        "engine_error": 502,
        "auth_failed": 502,
        "quota_exhausted": 502,
        "captcha": 502,
        "blocked": 502,
        "unavailable": 502,
        "bad_request": 502,
        "parse_error": 502,
        "unreachable": 502,
        "all_engines_failed": 502,
        "fetch_error": 502,
        "http_error": 502,
        "too_many_redirects": 502,
        "extraction_failed": 502,
        "rendered_empty": 502,
        "timeout": 504,
        # the server's own request checks (frontends/http.py)
        "not_found": 404,
        "request_too_large": 413,
        "method_not_allowed": 405,
        "host_not_allowed": 421,
        "origin_not_allowed": 403,
        "admin_required": 401,
        "admin_throttled": 429,
    }
)


def exit_code(error: WebreachError) -> int:
    """The CLI exit code for an error: 2 invalid input, 3 refused by policy, 4 upstream failure. A URL refused for
    its form (no scheme, a bad host: a typo) is invalid input, not a refusal by policy."""
    if isinstance(error, UrlNotAllowedError) and error.malformed:
        return EXIT_INVALID_INPUT
    return EXIT_CODES.get(error.code, EXIT_UPSTREAM)


def http_status(code: str) -> int:
    """The HTTP status for an error code (500 for a code this table does not know: a bug to add it)."""
    return HTTP_STATUS.get(code, 500)


def retry_after_header(seconds: float | None) -> str | None:
    """A Retry-After value (whole seconds, rounded up so a client never comes back early), or None."""
    if seconds is None or not math.isfinite(seconds):
        return None
    return str(max(0, math.ceil(seconds)))


def cannot_listen(host: str, port: int, exc: OSError) -> InvalidInputError:
    """The error for a server door that cannot bind (`serve`, `fakeweb`): a port in use, an address not ours."""
    # asyncio words its bind errors its own way; the errno's text is the same from every server
    reason = os.strerror(exc.errno) if exc.errno else (exc.strerror or str(exc))
    return InvalidInputError(f"cannot listen on {host}:{port}: {reason}", hint="Pick another port (0: any free one).")
