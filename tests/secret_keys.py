"""Every API key the test suite configures, in one place, so the leak scan (conftest.py) knows what to look for.

Tests that configure a key import it from here; a key defined anywhere else escapes the scan.
"""

from __future__ import annotations

import re

TEST_KEY = "test-key-0123456789abcdef"
GATEWAY_KEY = "sk-live-SECRET-0123456789"
JINA_KEY = "jina-secret-4c1d2e"
CONSOLE_KEY = "console-key-7f3a9b2c5d"  # entered through the console and the admin config API
CONSOLE_BAD_KEY = "console-bad-key-0e1d2c"
PROXY_PASSWORD = "proxy-pass-9d8c7b6a"  # in [network] proxy URLs (tests/net/test_proxy_paths.py)

CONFIGURED_SECRETS = (TEST_KEY, GATEWAY_KEY, JINA_KEY, CONSOLE_KEY, CONSOLE_BAD_KEY, PROXY_PASSWORD)
_PATTERN = re.compile("|".join(re.escape(secret) for secret in CONFIGURED_SECRETS))


def find_secrets(text: str) -> list[str]:
    """The configured secrets that appear in `text`."""
    return sorted(set(_PATTERN.findall(text)))
