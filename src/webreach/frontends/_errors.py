"""One table from error code to CLI exit code (and, later, HTTP status)."""

from __future__ import annotations

from webreach.errors import WebreachError

EXIT_OK = 0
EXIT_INVALID_INPUT = 2
EXIT_REFUSED = 3
EXIT_UPSTREAM = 4

# codes meaning "we declined on purpose"; everything else that is not the caller's fault is upstream
REFUSED_CODES = frozenset({"not_configured", "suspended", "url_not_allowed", "quota_exceeded"})


def exit_code(error: WebreachError) -> int:
    """The CLI exit code for an error: 2 invalid input, 3 refused by policy, 4 upstream failure."""
    code = error.error_code
    if code == "invalid_input":
        return EXIT_INVALID_INPUT
    if code in REFUSED_CODES:
        return EXIT_REFUSED
    return EXIT_UPSTREAM
