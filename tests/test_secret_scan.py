"""The secret-leak scan itself: it must see a configured key wherever it lands in a line."""

from __future__ import annotations

from secret_keys import CONFIGURED_SECRETS, GATEWAY_KEY, TEST_KEY, find_secrets


def test_scan_finds_every_configured_key_inside_other_text() -> None:
    for secret in CONFIGURED_SECRETS:
        assert find_secrets(f'INFO GET https://api.example/?api_key={secret}&q=x "{secret}"') == [secret]


def test_scan_ignores_redacted_and_partial_keys() -> None:
    assert find_secrets(f"Authorization: Bearer *** {TEST_KEY[:-1]}") == []
    assert find_secrets(f"{GATEWAY_KEY} and {TEST_KEY}") == sorted([GATEWAY_KEY, TEST_KEY])
