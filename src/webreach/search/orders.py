"""What Searching answers the same way for one set of engines (one settings), kept until the settings change.

Searching replaces its Orders whenever it rebuilds its engines (Searching.reconfigure), so nothing here outlives
the settings it was worked out under: whether each engine is usable, auto's order per (vertical, Chinese query),
and per request object the candidates routing asks with the request it asks them. The tools plan a repeated call
once (tools/planned_calls.py), so a cached search meets the same frozen SearchRequest again; its candidates (a
named engine looked up and checked, its unsupported parameters; auto's order and its lazily built candidates) and
its language defaults (a regex over the query, and for a Chinese query a model copy, which also kept the cache
from finding its key) are worked out once. A call naming its own list of engines is worked out each time.
Measured (bench/rest_call.py --profile): a cached REST search makes 22 fewer Python calls with engine=mojeek
(239 -> 217) and 18 fewer with auto (233 -> 215).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from webreach.models import SearchRequest
from webreach.routing import Candidate
from webreach.routing.order import is_chinese

ROUTES_KEPT = 256  # requests whose candidates are kept; past it the memo starts over

# (engine or mode, vertical, id of the request asked, whether attempts are listened to) -> (that request, its
# candidates (one for a named engine; auto's and multi's built as routing looks at them), the request routing asks)
RouteKey = tuple[str, str, int, bool]
Route = tuple[SearchRequest, Sequence[Candidate], SearchRequest]


@dataclass
class Orders:
    """Searching's answers for one settings (see the module docstring)."""

    usable: dict[str, bool] = field(default_factory=dict)
    auto: dict[tuple[str, bool], tuple[str, ...]] = field(default_factory=dict)
    routes: dict[RouteKey, Route] = field(default_factory=dict)

    def keep(self, key: RouteKey, route: Route) -> None:
        if len(self.routes) >= ROUTES_KEPT:
            self.routes.clear()
        self.routes[key] = route


def language_defaults(request: SearchRequest) -> SearchRequest:
    """A Chinese query with neither language nor region asked for is searched as language zh, region cn."""
    if request.language is None and request.region is None and is_chinese(request.query):
        return request.model_copy(update={"language": "zh", "region": "cn"})
    return request
