"""Post/redirect/get for the console: what a form POST did is kept here and shown by the page it redirects to.

Every console form POST answers 303 See Other to a page (`?done=<id>`); the result (a notice, an error, a probe,
a new agent's key, playground output) waits in `Flashes` under a random id, bound to the session that made it,
and the page takes it once: a reload shows the page without it and repeats nothing. Results wait FLASH_SECONDS
at most and at most MAX_FLASHES are kept (the oldest go first). They live in this process: behind a balancer
without sticky sessions the page after a POST may come from another replica, which then shows the page without
the result (the change itself is made either way).
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import RedirectResponse

from webreach.clock import Clock

FLASH_SECONDS = 300.0
MAX_FLASHES = 1000
DONE = "done"  # the query parameter naming a result


@dataclass
class Flashes:
    """Results of form POSTs waiting for the page they redirect to (see the module docstring)."""

    clock: Clock
    held: dict[str, tuple[str, float, dict[str, Any]]] = field(default_factory=dict)

    def see_other(self, owner: str, target: str, **result: Any) -> RedirectResponse:
        """303 to `target`, the result kept for `owner` (the session's CSRF token) to see there."""
        self._forget_expired()
        while len(self.held) >= MAX_FLASHES:
            del self.held[next(iter(self.held))]
        flash_id = secrets.token_urlsafe(16)
        self.held[flash_id] = (owner, self.clock.now() + FLASH_SECONDS, result)
        separator = "&" if "?" in target else "?"
        return RedirectResponse(f"{quote(target, safe='/?=&')}{separator}{DONE}={flash_id}", status_code=303)

    def take(self, owner: str, request: Request) -> dict[str, Any]:
        """The result the request's `done` parameter names, once, and only for the session that made it."""
        flash_id = request.query_params.get(DONE, "")
        held = self.held.get(flash_id)
        if held is None or not hmac.compare_digest(held[0].encode(), owner.encode()):
            return {}
        del self.held[flash_id]
        return held[2] if held[1] > self.clock.now() else {}

    def _forget_expired(self) -> None:
        now = self.clock.now()
        for flash_id in [key for key, (_, expires, _) in self.held.items() if expires <= now]:
            del self.held[flash_id]
