"""REST against a real `run_http` server process on loopback, its engines on the in-thread fake web.

One server process serves the module; tests that change an engine's scenario use an engine no other test here
uses (a rate limit or captcha rests that engine for the rest of the module) and reset it afterwards.
"""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from webreach.testing import FakeWeb

from .serving import HTTP_COMMAND, ServerProcess, server_env

pytestmark = pytest.mark.network


@pytest.fixture
def client(server: ServerProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30, trust_env=False) as http:
        yield http


def test_search_returns_the_json_output_with_refs(client: httpx.Client, web: FakeWeb) -> None:
    response = client.post(
        "/v1/search", json={"query": "python asyncio", "engine": "mojeek", "limit": "3"}, headers=session("json")
    )
    assert response.status_code == 200
    body = response.json()
    assert body["query"] == "python asyncio"
    assert [hit["ref"] for hit in body["results"]] == [1, 2, 3]
    assert all(hit["url"].startswith("https://") for hit in body["results"])
    assert body["meta"]["attempts"][0]["engine"] == "mojeek"


def test_search_multi_merges_engines(client: httpx.Client) -> None:
    arguments = {"query": "python asyncio", "engines": ["mojeek", "duckduckgo"]}
    response = client.post("/v1/search_multi", json=arguments, headers=session("multi"))
    assert response.status_code == 200
    meta = response.json()["meta"]
    assert meta["mode"] == "multi"
    assert {attempt["engine"] for attempt in meta["attempts"]} == {"mojeek", "duckduckgo"}


def test_invalid_input_is_400_with_the_agent_error_body(client: httpx.Client) -> None:
    response = client.post("/v1/search", json={"query": "python", "engine": "altavista"})
    assert response.status_code == 400
    body = response.json()
    assert (body["status"], body["tool"], body["code"], body["retry_after"]) == (
        "error",
        "web_search",
        "invalid_input",
        None,
    )
    assert "mojeek" in body["message"]  # the valid engines are listed
    assert "retry-after" not in response.headers


def test_rate_limit_is_429_with_retry_after_then_the_breaker_503(client: httpx.Client, web: FakeWeb) -> None:
    web.set_scenario("yahoo", fault="retry_after", retry_after=120)
    try:
        limited = client.post("/v1/search", json={"query": "python asyncio", "engine": "yahoo"})
        assert limited.status_code == 429
        assert limited.headers["retry-after"] == "120"
        assert limited.json()["code"] == "rate_limited"
        assert limited.json()["retry_after"] == 120

        resting = client.post("/v1/search", json={"query": "python asyncio", "engine": "yahoo"})
        assert resting.status_code == 503
        assert resting.json()["code"] == "suspended"
        assert 0 < int(resting.headers["retry-after"]) <= 120
        assert web.count("yahoo") == 1  # the breaker answered the second call without asking yahoo
    finally:
        web.reset("yahoo")


def test_captcha_is_502(client: httpx.Client, web: FakeWeb) -> None:
    web.set_scenario("bing", fault="captcha")
    try:
        response = client.post("/v1/search", json={"query": "python asyncio", "engine": "bing"})
    finally:
        web.reset("bing")
    assert response.status_code == 502
    assert response.json()["code"] == "captcha"
    assert response.json()["engine"] == "bing"


def test_sessions_are_isolated_by_header(client: httpx.Client) -> None:
    arguments = {"query": "python asyncio", "engine": "mojeek", "limit": 3}
    searched = client.post("/v1/search", json=arguments, headers=session("a"))
    assert [hit["ref"] for hit in searched.json()["results"]] == [1, 2, 3]

    own = client.post("/v1/fetch", json={"ref": 9}, headers=session("a"))
    assert own.status_code == 404
    assert "refs so far: 1-3" in own.json()["message"]  # session a holds the search's refs
    for other in (session("b"), {}):  # another session, and the "default" one (no header)
        response = client.post("/v1/fetch", json={"ref": 1}, headers=other)
        assert response.status_code == 404
        assert response.json()["code"] == "unknown_ref"
        assert response.json()["tool"] == "web_fetch"
        assert "no search results yet" in response.json()["message"]


def test_host_rebinding_is_refused(server: ServerProcess) -> None:
    port = server.url.rsplit(":", 1)[1]
    with httpx.Client(base_url=server.url, timeout=30, trust_env=False) as http:
        for method, path in (("POST", "/v1/search"), ("GET", "/healthz"), ("POST", "/mcp")):
            refused = http.request(method, path, json={"query": "x"}, headers={"host": f"evil.example:{port}"})
            assert refused.status_code == 421, path
            assert refused.json()["code"] == "host_not_allowed"
        foreign = http.get("/healthz", headers={"origin": "http://evil.example"})
        assert foreign.status_code == 403
        assert http.get("/healthz", headers={"host": f"localhost:{port}"}).json() == {"status": "ok"}


def test_openapi_and_docs_are_served(client: httpx.Client) -> None:
    assert set(client.get("/openapi.json").json()["paths"]) >= {"/v1/search", "/v1/search_multi", "/v1/fetch"}
    assert "/v1/fetch" in client.get("/docs").text


def test_an_oversized_upload_is_refused_before_the_client_sends_it(server: ServerProcess) -> None:
    """A client asking "Expect: 100-continue" gets the 413 at once, never a go-ahead to upload 10 MB."""
    host, port = server.url.removeprefix("http://").rsplit(":", 1)
    head = (
        f"POST /v1/search HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        "Content-Length: 10000000\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n"
    )
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(head.encode())
        answer = b""
        while b"\r\n\r\n" not in answer and (chunk := sock.recv(4096)):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:80]


def test_the_first_session_header_counts(client: httpx.Client) -> None:
    both = [("X-Webreach-Session", "first-of-two"), ("X-Webreach-Session", "second-of-two")]
    client.post("/v1/search", json={"query": "python asyncio", "engine": "mojeek", "limit": 2}, headers=both)
    first = client.post("/v1/fetch", json={"ref": 9}, headers=session("first-of-two")).json()
    assert (first["code"], "refs so far: 1-2" in first["message"]) == ("unknown_ref", True)
    second = client.post("/v1/fetch", json={"ref": 9}, headers=session("second-of-two")).json()["message"]
    assert "no search results yet" in second


def test_a_taken_port_is_a_clear_error(server: ServerProcess, web: FakeWeb, tmp_path: Path) -> None:
    port = server.url.rsplit(":", 1)[1]
    command = [sys.executable, "-m", "webreach", "serve", "--host", "127.0.0.1", "--port", port]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, env=server_env(web, tmp_path))
    assert done.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "Traceback" not in done.stderr
    # the same words, code and exit code as `webreach fakeweb` on a taken port
    fakeweb = [sys.executable, "-m", "webreach", "fakeweb", "--host", "127.0.0.1", "--port", port]
    fake = subprocess.run(fakeweb, capture_output=True, text=True, timeout=60, env=server_env(web, tmp_path))
    assert (fake.returncode, fake.stderr) == (done.returncode, done.stderr)
    assert done.stderr.startswith("error [invalid_input]: ")
    assert "Pick another port (0: any free one)." in done.stderr


@pytest.mark.skipif(importlib.util.find_spec("uvloop") is not None, reason="uvloop is installed here")
@pytest.mark.slow
def test_asking_for_uvloop_without_it_is_a_clear_error(web: FakeWeb, tmp_path: Path) -> None:
    env = server_env(web, tmp_path, WEBREACH_SERVER__EVENT_LOOP="uvloop")
    done = subprocess.run(HTTP_COMMAND, capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 2
    assert "setting uvloop needs the uvloop package (pip install uvloop)" in done.stderr
    assert "Traceback" not in done.stderr


def session(name: str) -> dict[str, str]:
    return {"X-Webreach-Session": name}


def test_stderr_holds_the_announcement_and_no_traceback(client: httpx.Client, server: ServerProcess) -> None:
    """Last in the module, so it sees what every request above left in the server's log."""
    client.get("/healthz")
    assert server.stderr[0].startswith("webreach: serving http://127.0.0.1:")
    assert "Traceback" not in server.output()
