"""What Searching answers the same way for one set of engines (one settings), kept until the settings change.

Searching replaces its Orders whenever it rebuilds its engines (Searching.reconfigure), so nothing here outlives
the settings it was worked out under: whether each engine is usable, auto's order per (vertical, Chinese query),
and a named engine's candidate with the request routing asks it, per request object. The tools plan a repeated
call once (tools/planned_calls.py), so a cached search meets the same frozen SearchRequest again; its candidate
(the engine looked up and checked, its unsupported parameters) and its language defaults (a regex over the query,
and for a Chinese query a model copy, which also kept the cache from finding its key) are worked out once.
Measured: a cached REST search with engine=mojeek makes 11 fewer Python calls (bench/rest_call.py --profile).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from webreach.models import SearchRequest
from webreach.routing import Candidate
from webreach.routing.order import is_chinese

SINGLES_KEPT = 256  # requests whose named engine's candidate is kept; past it the memo starts over

# (engine, vertical, id of the request asked, whether attempts are listened to) -> (that request, its candidate,
# the request routing asks)
SingleKey = tuple[str, str, int, bool]
Single = tuple[SearchRequest, Candidate, SearchRequest]


@dataclass
class Orders:
    """Searching's answers for one settings (see the module docstring)."""

    usable: dict[str, bool] = field(default_factory=dict)
    auto: dict[tuple[str, bool], tuple[str, ...]] = field(default_factory=dict)
    single: dict[SingleKey, Single] = field(default_factory=dict)

    def keep_single(self, key: SingleKey, single: Single) -> None:
        if len(self.single) >= SINGLES_KEPT:
            self.single.clear()
        self.single[key] = single


def language_defaults(request: SearchRequest) -> SearchRequest:
    """A Chinese query with neither language nor region asked for is searched as language zh, region cn."""
    if request.language is None and request.region is None and is_chinese(request.query):
        return request.model_copy(update={"language": "zh", "region": "cn"})
    return request
