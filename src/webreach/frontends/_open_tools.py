"""The start-up warning of `webreach serve` for tools served beyond this machine without agent keys."""

from __future__ import annotations

import ipaddress

from webreach.config import Settings


def open_tools_warning(settings: Settings, host: str, address: str) -> str | None:
    """The start-up warning for tools served to the network without keys: a listen address other than loopback
    (a name other than localhost may resolve anywhere) with accounts off. None when there is nothing to say."""
    try:
        loopback = ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        loopback = host.lower() in ("localhost", "localhost.")
    if loopback or settings.accounts.enabled:
        return None
    return (
        f"webreach: warning: {address} is not a loopback address and accounts are off: the tools are open to anyone "
        "who can reach it (set [accounts] enabled = true to require agent keys, or serve on 127.0.0.1)"
    )
