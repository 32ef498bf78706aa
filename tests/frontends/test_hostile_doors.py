"""Hostile input at every real door: REST and MCP over a real server process on loopback, MCP over stdio with the
SDK's client, the CLI in a subprocess. Each answer is a typed error body (or a result), never a 500, a -32603 or a
traceback."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client, StdioServerParameters

from webreach.frontends._errors import HTTP_STATUS
from webreach.testing import FakeWeb

from .serving import STDIO_ARGS, ServerProcess, server_env

pytestmark = [pytest.mark.network, pytest.mark.slow]
TIME_LIMIT = 60
BOMB = "[" * 100_000 + "]" * 100_000

HOSTILE = [
    ("search", '{"query":' + BOMB + "}"),
    ("search_multi", json.dumps({"query": "x", "engines": BOMB})),
    ("search", json.dumps({"query": BOMB})),
    ("search", json.dumps({"query": "x", "site": "a" * 70_000})),
    ("search", json.dumps({"query": "x", "lang": ""})),
    ("search", json.dumps({"query": " " * 10 + "x" * 495 + " " * 10})),
    ("fetch", json.dumps({"ref": 2**63})),
    ("fetch", json.dumps({"ref": 99999999999999999999})),
    ("fetch", json.dumps({"ref": "99999999999999999999"})),
    ("fetch", json.dumps({"ref": "[0]"})),
    ("fetch", json.dumps({"ref": -1})),
]
MCP_HOSTILE: list[tuple[str, dict[str, Any]]] = [
    ("web_search_multi", {"query": "x", "engines": BOMB}),
    ("web_search", {"query": BOMB}),
    ("web_search", {"query": "x", "site": "a" * 70_000}),
    ("web_fetch", {"ref": 2**63}),
    ("web_fetch", {"ref": 99999999999999999999}),
    ("web_fetch", {"ref": "#0"}),
    ("web_search", {"query": "x", "lang": ""}),
]


def post(server: ServerProcess, path: str, content: bytes | str, headers: dict[str, Any] | None = None) -> Any:
    return httpx.post(f"{server.url}{path}", content=content, headers=headers or {}, timeout=30, trust_env=False)


def assert_error_shape(body: dict[str, Any], code: str) -> None:
    """The one error body (errors.error_body): `tool` only when a tool was called, never null."""
    assert body["status"] == "error"
    assert body["code"] == code
    assert set(body) >= {"message", "retry_after"}
    assert body.get("tool", "absent") is not None


@pytest.mark.parametrize(("path", "text"), HOSTILE, ids=[f"{p}-{i}" for i, (p, _) in enumerate(HOSTILE)])
def test_rest_answers_hostile_bodies_with_invalid_input(server: ServerProcess, path: str, text: str) -> None:
    response = post(server, f"/v1/{path}", text)
    assert response.status_code == 400
    assert_error_shape(response.json(), "invalid_input")


# not UTF-8 is read as Latin-1, where \x85 is a C1 control; "\u0085" in UTF-8 is the same control
@pytest.mark.parametrize("session", [b"a" * 201, "\u0085".encode(), "研究".encode() + b"\x85"])
def test_rest_refuses_session_headers_the_store_cannot_hold(server: ServerProcess, session: bytes) -> None:
    response = post(server, "/v1/search", '{"query": "x"}', {"X-Webreach-Session": session})
    assert response.status_code == 400
    assert_error_shape(response.json(), "invalid_input")


def test_a_control_character_in_a_header_gets_the_error_shape(server: ServerProcess) -> None:
    host, port = server.url.removeprefix("http://").rsplit(":", 1)
    request = f"POST /v1/search HTTP/1.1\r\nHost: {host}:{port}\r\nX-Bad: a\x01b\r\nContent-Length: 2\r\n\r\n{{}}"
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(request.encode())
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400")
    assert b"application/json" in head
    assert_error_shape(json.loads(body), "invalid_input")


def test_mcp_bodies_are_capped_like_rest(server: ServerProcess) -> None:
    response = post(server, "/mcp", b"x" * 2_000_000, {"content-type": "application/json"})
    assert response.status_code == 413
    assert_error_shape(response.json(), "request_too_large")


def test_openapi_states_the_session_header_limits(server: ServerProcess) -> None:
    document = httpx.get(f"{server.url}/openapi.json", timeout=30, trust_env=False).json()
    parameters = document["paths"]["/v1/search"]["post"]["parameters"]
    (header,) = [parameter for parameter in parameters if parameter["name"] == "X-Webreach-Session"]
    assert header["schema"]["minLength"] == 1 and header["schema"]["maxLength"] == 200
    assert "pattern" in header["schema"]
    lang = document["paths"]["/v1/search"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert lang["properties"]["lang"]["minLength"] == 2
    assert lang["properties"]["lang"]["type"] == ["string", "null"]  # optional, so also nullable


@settings(max_examples=60, deadline=None)
@given(
    body=st.dictionaries(
        st.sampled_from(["query", "site", "lang", "limit", "page", "engine", "engines", "ref", "url"]),
        st.none() | st.integers() | st.text(max_size=60) | st.lists(st.text(max_size=10), max_size=3),
        max_size=4,
    )
)
def test_rest_property_typed_answers(server: ServerProcess, body: dict[str, Any]) -> None:
    for path in ("/v1/search_multi", "/v1/fetch"):
        response = post(server, path, json.dumps(body))
        if response.status_code != 200:
            assert response.json()["code"] in HTTP_STATUS
            assert response.status_code != 500


def call_errors(results: list[Any]) -> list[str]:
    return [json.loads(result.content[0].text)["code"] for result in results]


async def test_mcp_over_http_answers_hostile_arguments_as_tool_errors(server: ServerProcess) -> None:
    with anyio.fail_after(TIME_LIMIT):
        async with Client(f"{server.url}/mcp", read_timeout_seconds=TIME_LIMIT) as mcp:
            results = [await mcp.call_tool(tool, arguments) for tool, arguments in MCP_HOSTILE]
    assert all(result.is_error for result in results)
    assert call_errors(results) == ["invalid_input"] * len(MCP_HOSTILE)


async def test_mcp_over_stdio_answers_hostile_arguments_as_tool_errors(web: FakeWeb, tmp_path: Path) -> None:
    parameters = StdioServerParameters(command=sys.executable, args=STDIO_ARGS, env=server_env(web, tmp_path))
    with anyio.fail_after(TIME_LIMIT):
        async with Client(parameters, read_timeout_seconds=TIME_LIMIT) as mcp:
            results = [await mcp.call_tool(tool, arguments) for tool, arguments in MCP_HOSTILE]
    assert call_errors(results) == ["invalid_input"] * len(MCP_HOSTILE)


def run_cli(web: FakeWeb, home: Path, *args: str | bytes, **env: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "webreach", *args],
        env={**server_env(web, home), **env},
        capture_output=True,
        timeout=TIME_LIMIT,
        check=False,
        cwd=home,
    )


@pytest.mark.parametrize(
    "args",
    [
        ("search", "x", "--session", b"\xff"),
        ("search", "x", "--site", b"\xff", "--json"),
        ("search", "x", "--session", "a" * 201),
        ("mcp", "--session", b"a\xffb"),
        ("fetch", "--ref", "1", "--session", "a\x01b"),
    ],
)
def test_cli_refuses_bad_text_options_with_exit_2(web: FakeWeb, tmp_path: Path, args: tuple[str | bytes, ...]) -> None:
    done = run_cli(web, tmp_path, *args)
    assert done.returncode == 2
    assert b"Traceback" not in done.stderr
    if "--json" in args:
        assert json.loads(done.stdout)["code"] == "invalid_input"


def test_cli_parse_refuses_a_device_and_a_non_ascii_content_type(web: FakeWeb, tmp_path: Path) -> None:
    zero = run_cli(web, tmp_path, "parse", "bing", os.devnull.replace("null", "zero"), "--json")
    assert zero.returncode == 2
    assert "byte limit" in json.loads(zero.stdout)["message"]
    saved = tmp_path / "page.html"
    saved.write_text("<html></html>")
    typed = run_cli(web, tmp_path, "parse", "bing", str(saved), "--content-type", "text/html; é")
    assert typed.returncode == 2
    assert b"Traceback" not in typed.stderr


def test_cli_extract_reports_a_device_and_goes_on(web: FakeWeb, tmp_path: Path) -> None:
    good = tmp_path / "good.html"
    good.write_text("<html><body><p>Hello there.</p></body></html>")
    done = run_cli(web, tmp_path, "extract", "/dev/zero", str(good), "--jsonl")
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert rows[0]["error"]["code"] == "too_large"
    assert rows[1]["error"] is None and "Hello" in rows[1]["text"]
    assert b"Traceback" not in done.stderr


def test_cli_names_a_bad_environment_variable(web: FakeWeb, tmp_path: Path) -> None:
    done = run_cli(web, tmp_path, "engines", WEBREACH_ENGINES="not json")
    assert done.returncode == 2
    assert b"WEBREACH_ENGINES" in done.stderr
    assert b"Traceback" not in done.stderr
