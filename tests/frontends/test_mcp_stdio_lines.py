"""Stdio MCP answers every line the SDK would drop (over the size or depth limit, broken JSON, a lone surrogate
escape, no JSON-RPC shape) with a JSON-RPC error carrying the request's id.

A real `webreach mcp` process is fed raw lines (the SDK's client would refuse to send them): a tools/call nested
300 levels deep, one over the size limit, broken ones, and requests after them, which must still be answered.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from webreach.frontends._mcp_lines import INVALID_REQUEST, MAX_MESSAGE_DEPTH, PARSE_ERROR, request_id
from webreach.testing import FakeWeb
from webreach.tools.arguments import MAX_JSON_DEPTH

from .serving import STDIO_ARGS, server_env

pytestmark = [pytest.mark.network, pytest.mark.slow]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
MAX_BYTES = 4096


def call(request_id: Any, arguments: str) -> str:
    return (
        f'{{"jsonrpc": "2.0", "id": {json.dumps(request_id)}, "method": "tools/call", '
        f'"params": {{"name": "web_search", "arguments": {arguments}}}}}'
    )


def answers(web: FakeWeb, home: Path, lines: list[str]) -> dict[Any, dict[str, Any]]:
    """The server's answers to `lines` (after initialize), by id; stdin closes after the last line."""
    stream = [json.dumps(INITIALIZE), '{"jsonrpc": "2.0", "method": "notifications/initialized"}', *lines]
    env = server_env(web, home, WEBREACH_SERVER__MAX_BODY_BYTES=str(MAX_BYTES))
    done = subprocess.run(
        [sys.executable, *STDIO_ARGS], input="\n".join(stream) + "\n", capture_output=True, text=True, env=env,
        timeout=120,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    return {answer["id"]: answer for answer in map(json.loads, done.stdout.splitlines())}


def test_lines_over_the_limits_get_an_error_with_their_id_and_the_server_goes_on(web: FakeWeb, tmp_path: Path) -> None:
    deep = "[" * 300 + "]" * 300
    got = answers(
        web,
        tmp_path,
        [
            call(1, '{"query": ' + deep + "}"),
            call("two", '{"query": "' + "x" * (2 * MAX_BYTES) + '"}'),
            '{"jsonrpc": "2.0", "method": "tools/call", "params": {"arguments": ' + deep + '}, "id": 3}',
            '{"jsonrpc": "2.0", "id": 4, "method": "ping"}',
        ],
    )
    assert got[1]["error"]["code"] == INVALID_REQUEST
    assert f"deeper than {MAX_MESSAGE_DEPTH} levels" in got[1]["error"]["message"]
    assert got["two"]["error"]["code"] == INVALID_REQUEST
    assert f"over {MAX_BYTES:,} bytes" in got["two"]["error"]["message"]
    assert got[None]["error"]["code"] == INVALID_REQUEST  # its id comes after a nested value: not read, null
    assert got[4]["result"] == {}


def test_lines_the_sdk_would_drop_are_answered_and_the_server_goes_on(web: FakeWeb, tmp_path: Path) -> None:
    got = answers(
        web,
        tmp_path,
        [
            call(1, '{"engi<h3 title=x": }'),  # broken JSON, as a fuzzer's byte flip leaves it
            call(2, '{"query": "\\ud83d169.254"}'),  # a lone surrogate escape: Python's json reads it, the SDK not
            call(3, '\ufeff{"query": "x"}'),  # a byte order mark inside the line
            '{"jsonrpc": "2.0", "id": 4, "method": 7}',  # JSON, but no JSON-RPC message
            "",  # a blank line between messages: skipped, not answered
            '{"jsonrpc": "2.0", "id": 5, "method": "ping"}',
        ],
    )
    assert [got[number]["error"]["code"] for number in (1, 2, 3)] == [PARSE_ERROR] * 3
    assert "not valid JSON" in got[1]["error"]["message"]
    assert got[4]["error"]["code"] == INVALID_REQUEST
    assert got[5]["result"] == {}
    assert None not in got  # every refusal found its id; the blank line got no answer


def test_arguments_just_over_the_tool_limit_still_get_the_tools_own_error(web: FakeWeb, tmp_path: Path) -> None:
    nested = "[" * (MAX_JSON_DEPTH + 2) + "]" * (MAX_JSON_DEPTH + 2)
    got = answers(web, tmp_path, [call(1, '{"query": ' + nested + "}")])
    assert got[1]["result"]["isError"] is True
    assert json.loads(got[1]["result"]["content"][0]["text"])["code"] == "invalid_input"


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b'{"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": {', 12),
        (b' { "id" : "abc" , "params": [[[', "abc"),
        (b'{"jsonrpc": "2.0", "method": "x", "params": {"id": 5}, "id": 6}', None),  # after a nested value
        (b'{"id": true}', None),  # JSON-RPC ids are strings or numbers
        (b'{"jsonrpc": "2.0", "id": 1' + b"9" * 5000, None),  # truncated, and past int()'s digit limit
        (b"[[[[", None),
        (b'{"jsonrpc": "2.0", "id": "\xff\xfe"}', "\ufffd\ufffd"),
    ],
)
def test_the_id_is_read_from_top_level_scalars_only(head: bytes, expected: Any) -> None:
    assert request_id(head) == expected
