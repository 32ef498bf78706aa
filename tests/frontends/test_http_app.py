"""The HTTP app in-process (Starlette's TestClient runs its lifespan): routes, the Host/Origin guard, OpenAPI.

The real server process over loopback is tested in test_http_server.py; these cover the app's own behaviour
quickly, against the fake web in a thread.
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any, cast

import pytest
from starlette.testclient import TestClient

from webreach.config import ServerSettings, Settings
from webreach.errors import BlockedError, WebreachError
from webreach.frontends._admin import ADMIN_PREFIX as ADMIN
from webreach.frontends._errors import HTTP_STATUS, http_status, retry_after_header
from webreach.frontends._host_guard import HostGuard, matches
from webreach.frontends._http_app import _limits
from webreach.frontends._http_served import Served
from webreach.frontends._openapi import rest_path
from webreach.frontends.http import build_app
from webreach.gateway import Gateway
from webreach.testing import FakeWeb
from webreach.tools import DIALECTS, Toolbox

pytestmark = pytest.mark.network
BASE = "http://127.0.0.1:9090"


def settings(web: FakeWeb, **fields: Any) -> Settings:
    return Settings(fake_web=web.url, state={"backend": "memory"}, **fields)


@pytest.fixture
def client(web: FakeWeb) -> Iterator[TestClient]:
    app = build_app(settings(web), server=ServerSettings(port=9090), bare_route=True)
    with TestClient(app, base_url=BASE) as test_client:
        yield test_client


@pytest.fixture
def images_client(web: FakeWeb) -> Iterator[TestClient]:
    """A server with the image tools listed ([tools] profile = "images")."""
    app = build_app(settings(web, tools={"profile": "images"}), server=ServerSettings(port=9090))
    with TestClient(app, base_url=BASE) as test_client:
        yield test_client


def mcp_schemas(*, exact: bool = False, served: bool = False, **fields: Any) -> list[dict[str, Any]]:
    async def schemas() -> list[dict[str, Any]]:
        async with Gateway.from_settings(Settings(state={"backend": "memory"}, **fields)) as gateway:
            return Toolbox.over(gateway).schemas("mcp", exact=exact, served=served)

    return asyncio.run(schemas())


# --- the status table ------------------------------------------------------------------------------------------


def _error_classes(base: type[WebreachError]) -> list[type[WebreachError]]:
    found = [base]
    for sub in base.__subclasses__():
        found += _error_classes(sub)
    return found


def test_every_error_code_has_an_http_status() -> None:
    codes = {cls.code for cls in _error_classes(WebreachError)} | {"captcha", "blocked"}
    assert codes <= set(HTTP_STATUS), f"add these codes to HTTP_STATUS: {sorted(codes - set(HTTP_STATUS))}"
    assert http_status(BlockedError("x", kind="captcha").code) == 502


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("invalid_input", 400),
        ("unknown_ref", 404),
        ("url_not_allowed", 403),
        ("rate_limited", 429),
        ("suspended", 503),
        ("captcha", 502),
        ("all_engines_failed", 502),
        ("timeout", 504),
        ("unsupported_content", 415),
        ("too_large", 413),
        ("not_configured", 501),
        ("session_store_unavailable", 503),
        ("no_such_code", 500),
    ],
)
def test_codes_map_to_statuses(code: str, status: int) -> None:
    assert http_status(code) == status


def test_retry_after_is_whole_seconds_rounded_up() -> None:
    assert retry_after_header(119.2) == "120"
    assert retry_after_header(0) == "0"
    assert retry_after_header(None) is None
    assert retry_after_header(float("inf")) is None


# --- allowed hosts -----------------------------------------------------------------------------------------------


def test_default_hosts_are_the_loopback_names_with_the_port() -> None:
    server = ServerSettings(port=9090)
    assert server.hosts() == ["127.0.0.1:9090", "localhost:9090", "[::1]:9090"]
    assert server.origins() == ["http://127.0.0.1:9090", "http://localhost:9090", "http://[::1]:9090"]
    assert "myhost:8000" in ServerSettings(host="myhost", port=8000).hosts()
    assert ServerSettings(host="0.0.0.0", port=8000).hosts() == ["127.0.0.1:8000", "localhost:8000", "[::1]:8000"]


def test_host_patterns() -> None:
    assert matches("localhost:1234", ["localhost:*"])
    assert not matches("localhost.evil.example:1234", ["localhost:*"])
    assert not matches("localhost:12x", ["localhost:*"])
    assert matches("anything", ["*"])
    assert not matches("evil.example", ["127.0.0.1:9090"])


# --- the app ---------------------------------------------------------------------------------------------------


def test_healthz_and_the_bare_route(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/bench/bare").json() == {"status": "ok"}


def test_no_bare_route_unless_asked(web: FakeWeb) -> None:
    with TestClient(build_app(settings(web), server=ServerSettings(port=9090)), base_url=BASE) as plain:
        assert plain.get("/bench/bare").status_code == 404


@pytest.mark.parametrize("path", ["/healthz", "/v1/search", "/mcp", "/openapi.json"])
def test_foreign_host_is_refused_everywhere(client: TestClient, path: str) -> None:
    response = client.post(path, json={"query": "x"}, headers={"host": "evil.example:9090"})
    assert response.status_code == 421
    assert response.json()["code"] == "host_not_allowed"


def test_foreign_origin_is_refused_and_loopback_origin_accepted(client: TestClient) -> None:
    refused = client.get("/healthz", headers={"origin": "http://evil.example"})
    assert refused.status_code == 403
    assert refused.json()["code"] == "origin_not_allowed"
    assert client.get("/healthz", headers={"origin": "http://localhost:9090"}).status_code == 200


def test_allowed_hosts_are_configurable(web: FakeWeb) -> None:
    server = ServerSettings(port=9090, allowed_hosts=["search.internal"], allowed_origins=["*"])
    app = build_app(settings(web), server=server)
    with TestClient(app, base_url="http://search.internal") as named:
        assert named.get("/healthz", headers={"origin": "https://anything.example"}).status_code == 200
        assert named.get("/healthz", headers={"host": "127.0.0.1:9090"}).status_code == 421


def test_unknown_paths_and_methods_use_the_error_shape(client: TestClient) -> None:
    missing = client.post("/v1/nothing", json={})
    assert missing.status_code == 404
    assert missing.json()["code"] == "not_found"
    assert "/v1/search" in missing.json()["message"]
    wrong = client.get("/v1/search")
    assert wrong.status_code == 405
    assert wrong.json() | {"message": ""} == {
        "status": "error",
        "code": "method_not_allowed",
        "message": "",
        "retry_after": None,
    }
    assert wrong.headers["allow"] == "POST"  # HTTP requires a 405 to name the methods it takes
    assert client.put("/v1/tools").headers["allow"] in ("GET, HEAD", "HEAD, GET")


def test_bad_json_is_invalid_input(client: TestClient) -> None:
    response = client.post("/v1/search", content=b"{not json", headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_input"
    assert response.json()["tool"] == "web_search"


def test_oversized_body_is_refused_before_reading(web: FakeWeb) -> None:
    server = ServerSettings(port=9090, max_body_bytes=1024)
    with TestClient(build_app(settings(web), server=server), base_url=BASE) as small:
        response = small.post("/v1/search", json={"query": "x" * 2000})
    assert response.status_code == 413
    assert response.json()["code"] == "request_too_large"


def test_a_streamed_body_is_cut_off_at_the_limit(web: FakeWeb) -> None:
    def pieces(count: int) -> Iterator[bytes]:
        yield b'{"query": "'
        yield from (b"x" * 100 for _ in range(count))
        yield b'", "engine": "nope"}'

    server = ServerSettings(port=9090, max_body_bytes=1024)
    with TestClient(build_app(settings(web), server=server), base_url=BASE) as small:
        refused = small.post("/v1/search", content=pieces(20))  # no content-length: chunked
        small_enough = small.post("/v1/search", content=pieces(2))
    assert "content-length" not in refused.request.headers
    assert (refused.status_code, refused.json()["code"]) == (413, "request_too_large")
    # read whole and answered: the engine name is what is wrong with it
    assert (small_enough.status_code, small_enough.json()["code"]) == (400, "invalid_input")
    assert "unknown engine 'nope'" in small_enough.json()["message"]


def test_disabled_tools_have_no_endpoint(web: FakeWeb) -> None:
    app = build_app(settings(web, tools={"enabled": ["web_search"]}), server=ServerSettings(port=9090))
    with TestClient(app, base_url=BASE) as narrow:
        assert narrow.post("/v1/fetch", json={"ref": 1}).status_code == 404
        documented = [path for path in narrow.get("/openapi.json").json()["paths"] if not path.startswith(ADMIN)]
        assert documented == ["/v1/search", "/v1/tools", "/healthz"]


def test_openapi_documents_both_image_routes(images_client: TestClient) -> None:
    """Issue 41: /openapi.json left out POST /v1/images and GET /i/{id}; both are served, both are documented."""
    client = images_client
    paths = client.get("/openapi.json").json()["paths"]
    upload = paths["/v1/images"]["post"]
    form = upload["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert form["required"] == ["file"] and "file" in form["properties"]
    assert upload["parameters"][0]["name"] == "X-Webreach-Session" and {"200", "413", "415"} <= set(upload["responses"])
    public = paths["/i/{link_id}"]["get"]
    assert public["parameters"][0]["name"] == "link_id" and {"200", "404"} <= set(public["responses"])
    assert client.get("/i/" + "x" * 32).status_code == 404  # the documented answer for an unknown link
    page = client.get("/docs").text
    assert "POST /v1/images" in page and "-F file=@photo.jpg" in page and "GET /i/{link_id}" in page


def test_tool_schemas_in_every_dialect(client: TestClient, images_client: TestClient) -> None:
    assert client.get("/v1/tools", params={"dialect": "mcp"}).json() == mcp_schemas()
    web = ["web_search", "web_search_multi", "web_fetch"]
    assert [tool["function"]["name"] for tool in client.get("/v1/tools").json()] == web
    openai = images_client.get("/v1/tools").json()
    images = ["image_search", "crop_images", "reverse_image_search"]
    assert [tool["function"]["name"] for tool in openai] == [*web, *images]
    assert client.get("/v1/tools", params={"dialect": "nope"}).status_code == 400


def test_openapi_is_generated_from_the_tool_schemas(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    assert document["openapi"].startswith("3.1")
    # every served tool (the image tools too: opt-in for models, served to programs), stating what is checked
    tools = mcp_schemas(exact=True, served=True)
    assert len(tools) == 6 and len(mcp_schemas()) == 3
    admin = {path for path in document["paths"] if path.startswith("/v1/admin")}
    images = {"/v1/images", "/i/{link_id}"}
    assert (
        set(document["paths"])
        == {rest_path(tool["name"]) for tool in tools} | {"/v1/tools", "/healthz"} | admin | images
    )
    assert {"/v1/admin", "/v1/admin/engines", "/v1/admin/engines/{name}/reset"} <= admin
    assert {"/v1/admin/agents", "/v1/admin/agents/{name}/grant", "/v1/admin/agents/{name}/ledger"} <= admin
    assert document["paths"]["/v1/admin/agents"]["post"]["security"] == [{"adminToken": []}, {}]
    for tool in tools:
        operation = document["paths"][rest_path(tool["name"])]["post"]
        assert operation["operationId"] == tool["name"]
        assert operation["description"] == tool["description"]
        # the tool's schema (its optional arguments already nullable), plus exactly one of url/ref
        body = operation["requestBody"]["content"]["application/json"]["schema"]
        assert {k: v for k, v in body.items() if k not in ("oneOf", "allOf")} == tool["inputSchema"]
        assert operation["parameters"][0]["name"] == "X-Webreach-Session"
        assert {"200", "400", "404", "429", "502", "503", "504"} <= set(operation["responses"])
    assert "rate_limited" in document["components"]["schemas"]["Error"]["properties"]["code"]["enum"]
    dialect = document["paths"]["/v1/tools"]["get"]["parameters"][0]
    assert (dialect["name"], dialect["in"], dialect["schema"]["enum"]) == ("dialect", "query", list(DIALECTS))


def test_openapi_says_numbers_may_come_as_text_exactly_as_the_server_takes_them(
    client: TestClient, images_client: TestClient
) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    document = client.get("/openapi.json").json()
    body = document["paths"]["/v1/search"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    validator = jsonschema.Draft202012Validator(body)
    for limit in ("5", "50", 5, "51", "5.5", "five", 51):
        documented = validator.is_valid({"query": "rust", "limit": limit})
        answer = client.post("/v1/search", json={"query": "rust", "limit": limit, "engine": "mojeek"})
        assert documented == (answer.status_code == 200), (limit, answer.text)
        assert documented or answer.json()["code"] == "invalid_input"
    assert "integer or integer as text" in client.get("/docs").text
    # a rule between two arguments is in the document too: engines only with engine auto or multi
    client, document = images_client, images_client.get("/openapi.json").json()
    images = document["paths"]["/v1/image_search"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    for call in ({"engine": "bing", "engines": ["bing"]}, {"engine": "multi", "engines": ["bing"]}, {"engines": []}):
        documented = jsonschema.Draft202012Validator(images).is_valid({"query": "red panda", **call})
        answer = client.post("/v1/image_search", json={"query": "red panda", **call})
        assert documented == (answer.json().get("code") != "invalid_input"), (call, answer.text)


def test_openapi_marks_the_admin_endpoints_and_their_token(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    scheme = document["components"]["securitySchemes"]["adminToken"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    assert "loopback" in scheme["description"]
    reset = document["paths"]["/v1/admin/engines/{name}/reset"]["post"]
    listing = document["paths"]["/v1/admin/engines"]["get"]
    for operation in (reset, listing, document["paths"]["/v1/admin"]["get"]):
        assert operation["security"] == [{"adminToken": []}, {}]
        assert "admin_required" in operation["responses"]["401"]["description"].split(", ")
    assert reset["parameters"] == [{"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}]
    assert (reset["operationId"], listing["operationId"]) == ("post_admin_engines_name_reset", "get_admin_engines")


def test_docs_page_describes_each_endpoint(client: TestClient) -> None:
    page = client.get("/docs")
    assert page.headers["content-type"].startswith("text/html")
    for path in ("/v1/search", "/v1/search_multi", "/v1/fetch", "/healthz"):
        assert path in page.text
    assert f"curl -s {BASE}/v1/search" in page.text
    assert "<script" not in page.text
    # errors are shown as a body an agent really gets, not as a schema dump
    shown = client.post("/v1/search", json={"query": ""}).json()
    assert html.escape(f'"code": "{shown["code"]}"', quote=True) in page.text
    assert html.escape(f'"message": "{shown["message"]}"', quote=True) in page.text
    assert "additionalProperties" not in page.text and '"description"' not in page.text


async def _guarded(headers: list[tuple[bytes, bytes]]) -> int:
    """The status HostGuard (allowing 127.0.0.1:9090 and its loopback origins) answers for these raw headers."""

    async def inner(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    server = ServerSettings(port=9090)
    guard = HostGuard(inner, hosts=server.hosts(), origins=server.origins())
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": "/healthz", "headers": headers, "query_string": b""}
    await guard(scope, receive, send)
    return int(sent[0]["status"])


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ([(b"host", b"127.0.0.1:9090")], 200),
        ([], 421),  # no Host at all
        ([(b"host", b"")], 421),
        ([(b"host", b"127.0.0.1:9090"), (b"host", b"evil.example")], 200),  # the first one counts
        ([(b"host", b"evil.example"), (b"host", b"127.0.0.1:9090")], 421),
        ([(b"host", b"LOCALHOST:9090")], 200),  # host names are case-insensitive
        ([(b"host", b"127.0.0.1:9090"), (b"origin", b"http://evil.example")], 403),
        ([(b"host", b"127.0.0.1:9090"), (b"origin", b"http://localhost:9090"), (b"origin", b"http://x.example")], 200),
        ([(b"host", b"caf\xe9.example")], 421),  # latin-1 bytes decode instead of failing
    ],
)
async def test_host_guard_reads_the_first_host_and_origin(headers: list[tuple[bytes, bytes]], status: int) -> None:
    assert await _guarded(headers) == status


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE", "PATCH", "POST"])
def test_an_unknown_path_is_404_whatever_the_method(client: TestClient, method: str) -> None:
    for path in ("/v1/nope", "/nope"):
        response = client.request(method, path)
        assert response.status_code == 404, (method, path)
        assert response.json()["code"] == "not_found" and response.json()["status"] == "error"


def test_the_root_points_to_the_docs(client: TestClient) -> None:
    response = client.get("/", follow_redirects=False)
    assert response.status_code in (302, 307, 308) and response.headers["location"] == "/docs"
    assert client.get("/").status_code == 200  # the docs page itself


def test_an_engine_is_tested_over_json_as_the_console_tests_it(client: TestClient, web: FakeWeb) -> None:
    before = web.count("mojeek")
    app = build_app(settings(web), server=ServerSettings(port=9090))
    with TestClient(app, base_url=BASE, client=("127.0.0.1", 50000)) as local:  # loopback: no token needed
        tested = local.post("/v1/admin/engines/mojeek/test")
        unknown = local.post("/v1/admin/engines/nope/test")
    assert tested.status_code == 200, tested.text
    probe = tested.json()["probe"]
    assert (probe["engine"], probe["status"]) == ("mojeek", "ok") and probe["hits"] > 0 and probe["latency_ms"] >= 0
    assert web.count("mojeek") == before + 1, "asked for real, past the cache"
    assert unknown.status_code == 400 and unknown.json()["code"] == "invalid_input"
    assert client.post("/v1/admin/engines/mojeek/test").status_code == 401  # the admin gate: not loopback


def test_body_limits_follow_a_live_change_of_the_image_cap() -> None:
    """The caps are kept between calls (frontends/_http_app.py _limits) and made again when the console changes
    [images] max_input_bytes: a call after the change is held to the new cap."""
    images = SimpleNamespace(max_input_bytes=3_000)
    gateway = SimpleNamespace(settings=SimpleNamespace(images=images))
    limits = _limits(cast(Served, SimpleNamespace(ready=lambda: gateway)), 1_000)
    first = limits()
    assert (first.plain, first.images) == (1_000, 1_000 + 4_000) and limits() is first
    images.max_input_bytes = 300
    changed = limits()
    assert (changed.plain, changed.images) == (1_000, 1_000 + 400)
    images.max_input_bytes = 3_000
    assert limits() == first
