"""`webreach engines --reset`: close engines' circuit breakers and say whether a running server picked it up.

The reset is written to the state file (every process sharing it sees it); a running `webreach serve` or
`webreach mcp` takes it in within half a second and records the generation it applied there
(policies/__init__.py, state/breaker_followers.py). So after resetting, this waits up to 3 s for every
running server to catch up and reports, per server, "picked up by the running server (pid N)"; when none is
registered it says "no running server seen", at once. `all` resets every engine (image engines and
reverse-image backends too); an unknown name is an invalid_input error listing the engines (not the routing
modes auto and multi, which have no breaker).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from webreach.errors import UnknownEngineError

if TYPE_CHECKING:
    from webreach.gateway import Gateway

ALL = "all"
DOORS = {"serve": "webreach serve", "mcp": "webreach mcp"}


def check_names(names: Sequence[str], valid: Sequence[str]) -> list[str]:
    """The engines to reset, `all` expanded; InvalidInputError for a name that is not an engine."""
    unknown = [name for name in names if name != ALL and name not in valid]
    if unknown:
        raise UnknownEngineError(unknown, valid, also=f"; or {ALL} for every engine")
    return list(valid) if ALL in names else list(dict.fromkeys(names))


async def reset_engines(gateway: Gateway, names: Sequence[str]) -> list[str]:
    """Reset the named engines' breakers; the lines to tell the user (what was reset, who picked it up)."""
    chosen = check_names(names, gateway.engines.breaker_names())
    for name in chosen:
        gateway.engines.reset(name)
    what = "every engine's circuit breaker" if ALL in names else f"the circuit breaker of {', '.join(chosen)}"
    lines = [f"webreach: closed {what}."]
    pickups = await gateway.engines.pickups()
    if not pickups:
        lines.append("webreach: no running server seen; servers started from now on start with it closed.")
    for pickup in pickups:
        door = DOORS.get(pickup.door, pickup.door)
        if pickup.picked_up:
            lines.append(f"webreach: picked up by the running server (pid {pickup.pid}, {door}).")
        else:
            lines.append(
                f"webreach: the running server (pid {pickup.pid}, {door}) has not picked it up within 3 s;"
                " it uses the same state file? See `webreach engines` there, or restart it."
            )
    return lines
