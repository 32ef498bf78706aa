"""Throttling of failed admin credentials: wrong or missing admin tokens, per client address, in a sliding window.

One FailureThrottle per server (the admin gate holds it; the console's login form shares it), so the bearer
check and the login form count against the same budget. A client with LIMIT failures in the last WINDOW seconds
is refused (429 `admin_throttled`, Retry-After: when its oldest failure leaves the window) whatever it sends,
the right token included, so guessing gains nothing by trying faster. Every failure is logged as a warning with
the client's address and the path, never what was presented.

The address is the peer's, or, behind a proxy listed in `[server] trusted_proxies`, the client the proxy names in
X-Forwarded-For (uvicorn's proxy-headers rule, frontends/http.py): so clients behind one proxy are told apart.
At most MAX_CLIENTS addresses are tracked; past that the one seen longest ago is forgotten first.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass, field

from webreach.clock import Clock

logger = logging.getLogger(__name__)
LIMIT = 10  # failures a client may make ...
WINDOW = 60.0  # ... within this many seconds
MAX_CLIENTS = 10_000


@dataclass
class FailureThrottle:
    """Failed admin credentials per client address (see the module docstring)."""

    clock: Clock
    limit: int = LIMIT
    window: float = WINDOW
    max_clients: int = MAX_CLIENTS
    _failures: dict[str, deque[float]] = field(default_factory=dict)

    def retry_after(self, client: str) -> float | None:
        """Seconds until `client` may present a credential again; None when it may now."""
        recent = self._recent(client)
        if recent is None or len(recent) < self.limit:
            return None
        return max(0.0, recent[0] + self.window - self.clock.now())

    def failed(self, client: str, path: str) -> None:
        """Count one failure of `client` on `path` and log it (never the credential)."""
        recent = self._recent(client)
        if recent is None:
            if len(self._failures) >= self.max_clients:
                self._forget_one()
            recent = self._failures[client] = deque(maxlen=self.limit)
        recent.append(self.clock.now())
        logger.warning(
            "admin: a wrong or missing admin token from %s on %s (%d in the last %gs; %d throttles it)",
            client,
            path,
            len(recent),
            self.window,
            self.limit,
        )

    def _recent(self, client: str) -> deque[float] | None:
        """The client's failures still inside the window (an address with none left is forgotten)."""
        recent = self._failures.get(client)
        if recent is None:
            return None
        cutoff = self.clock.now() - self.window
        while recent and recent[0] <= cutoff:
            recent.popleft()
        if not recent:
            del self._failures[client]
            return None
        return recent

    def _forget_one(self) -> None:
        """Make room: drop the expired addresses, else the one whose last failure is oldest."""
        for client in list(self._failures):
            self._recent(client)
        if len(self._failures) >= self.max_clients:
            oldest = min(self._failures, key=lambda client: self._failures[client][-1])
            del self._failures[oldest]
