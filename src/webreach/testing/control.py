"""The fake web's control API: switch scenarios and read the request log over HTTP, from another process.

    GET    /_fakeweb                     engines with recordings
    GET    /_fakeweb/scenario            every engine's scenario that is not the default
    POST   /_fakeweb/scenario/<engine>   JSON object of Scenario fields; replaces that engine's scenario
    DELETE /_fakeweb/scenario[/<engine>] back to the default, for all engines or one
    GET    /_fakeweb/requests[?engine=e] per-engine request counts and the recent request log
    DELETE /_fakeweb/requests            forget counts and log
    GET    /_fakeweb/resolve?host=H      200 when the fake web serves pages on host H (sites.py), else 404:
                                         how fake-web mode resolves names without DNS (net/fake_web.py)

Bad fields answer 400, unknown engines or recordings 404, all with a JSON `error`. In fake-web mode agents never
reach these routes: webreach's guard refuses them (rule fake_web_control, net/offline.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol
from urllib.parse import parse_qs

from webreach.net.offline import CONTROL_PREFIX
from webreach.testing.scenarios import Scenario
from webreach.testing.sites import Sites
from webreach.testing.wire import Request


class Logged(Protocol):
    """One logged request, as the control API shows it."""

    def to_json(self) -> dict[str, Any]: ...


class ControlledWeb(Protocol):
    """What the control API asks of the fake web (testing/fakeweb.py's FakeWeb), declared here so this module
    does not import fakeweb.py, which imports it."""

    sites: Sites

    def engines(self) -> list[str]: ...

    def scenarios(self) -> Mapping[str, Scenario]: ...

    def set_scenario(self, engine: str, **fields: Any) -> Scenario: ...

    def reset(self, engine: str | None = None) -> None: ...

    def requests(self, engine: str | None = None) -> Sequence[Logged]: ...

    def counts(self) -> Mapping[str, int]: ...

    def clear_requests(self) -> None: ...


def handle_control(web: ControlledWeb, request: Request) -> tuple[int, Any]:
    """Answer one control request: (status, JSON payload)."""
    parts = request.path[len(CONTROL_PREFIX) :].strip("/").split("/")
    try:
        match request.method, parts:
            case "GET", ["scenario"]:
                return 200, {"scenarios": {e: s.to_json() for e, s in web.scenarios().items()}}
            case "POST" | "PUT", ["scenario", engine]:
                fields = json.loads(request.body or b"{}")
                if not isinstance(fields, dict):
                    raise ValueError("the body must be a JSON object of scenario fields")
                return 200, {"engine": engine, "scenario": web.set_scenario(engine, **fields).to_json()}
            case "DELETE", ["scenario", *rest] if len(rest) <= 1:
                web.reset(rest[0] if rest else None)
                return 200, {"reset": rest[0] if rest else "all"}
            case "GET", ["requests"]:
                only = parse_qs(request.query).get("engine", [None])[0]
                return 200, {"counts": web.counts(), "requests": [r.to_json() for r in web.requests(only)]}
            case "DELETE", ["requests"]:
                web.clear_requests()
                return 200, {"cleared": True}
            case "GET", ["resolve"]:
                host = parse_qs(request.query).get("host", [""])[0]
                if not web.sites.serves(host):
                    return 404, {"host": host, "served": False}
                return 200, {"host": host, "served": True}
            case "GET", ["engines"] | [""]:
                return 200, {"engines": web.engines()}
    except LookupError as exc:
        return 404, {"error": str(exc)}
    except ValueError as exc:  # json.JSONDecodeError included
        return 400, {"error": str(exc)}
    return 404, {"error": f"no control endpoint {request.method} {request.path}"}
