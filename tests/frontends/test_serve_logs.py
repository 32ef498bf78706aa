"""`webreach serve --access-log --log-level --log-format json`: a real server's log lines, with keys masked.

The server gets an engine key that travels in request URLs (SerpApi puts it in the query string, and httpx logs
request URLs at INFO) and a client sends its own key in a query string; neither may appear in any log line.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import httpx
import pytest

from secret_keys import PROXY_PASSWORD, TEST_KEY
from webreach.config import Settings
from webreach.frontends._serve_logs import RedactingFilter, secrets_of
from webreach.testing import FakeWeb

from .serving import http_server

pytestmark = [pytest.mark.network, pytest.mark.slow]
# a client's own key in a query string: not one of the configured keys, since the test's own client logs its URL
CLIENT_KEY = "client-own-key-7f3e9a0b"


@pytest.fixture
def web() -> Any:
    with FakeWeb.in_thread() as server:
        yield server


def test_json_access_log_lines_with_every_key_masked(web: FakeWeb, tmp_path: Path) -> None:
    args = ("--access-log", "--log-level", "info", "--log-format", "json")
    with http_server(web, tmp_path, *args, WEBREACH_ENGINES__SERPAPI__API_KEY=TEST_KEY) as server:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            found = client.post(
                f"/v1/search?api_key={CLIENT_KEY}", json={"query": "python asyncio", "engine": "serpapi"}
            )
            assert found.status_code == 200, found.text
            assert client.get("/v1/tools", params={"dialect": "openai", "token": CLIENT_KEY}).status_code == 200
        assert web.requests("serpapi"), "the engine was asked, so httpx logged its request URL"
    output = server.output()
    assert TEST_KEY not in output and CLIENT_KEY not in output
    lines = [json.loads(line) for line in output.splitlines() if line.strip()]
    assert all({"time", "level", "logger", "message"} <= line.keys() for line in lines), "every line is JSON"
    access = [line for line in lines if line["logger"] == "uvicorn.access"]
    assert [(line["method"], line["status"]) for line in access] == [("POST", 200), ("GET", 200)]
    assert access[0]["path"] == "/v1/search?api_key=***"
    assert access[1]["path"].endswith("token=***")
    engine_lines = [line for line in lines if line["logger"] == "httpx" and "serpapi" in line["message"]]
    assert engine_lines and all("***" in line["message"] for line in engine_lines)


def test_default_logs_stay_quiet_and_text(web: FakeWeb, tmp_path: Path) -> None:
    with http_server(web, tmp_path) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        assert client.get("/v1/tools").status_code == 200
    assert server.output().startswith("webreach: serving http://127.0.0.1:")
    assert "GET /v1/tools" not in server.output(), "no access log unless asked for"


def test_proxy_urls_are_masked_in_server_logs_while_direct_stays_readable() -> None:
    proxy = f"http://agent:{PROXY_PASSWORD}@127.0.0.1:3128"
    settings = Settings(network={"proxy": proxy}, engines={"searxng": {"proxy": "direct"}})
    found = secrets_of(settings)
    assert proxy in found and "direct" not in found  # "direct" means no proxy: masking it would garble the logs
    record = logging.LogRecord("webreach", logging.INFO, "", 0, "via %s, the direct reader", (proxy,), None)
    RedactingFilter(found).filter(record)
    assert record.getMessage() == "via ***, the direct reader"
