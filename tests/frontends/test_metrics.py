"""GET /metrics: behind the admin gate, counting engine attempts, cache hits, tool calls, charged credits and reads
from real calls against the fake web; a scrape after calls made with secret keys shows none of them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client import generate_latest
from prometheus_client.core import Metric
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import Collector
from starlette.requests import Request
from starlette.testclient import TestClient

from secret_keys import GATEWAY_KEY, JINA_KEY, find_secrets
from webreach.accounts.service import Accounts
from webreach.clock import SystemClock
from webreach.config import AccountsSettings, ServerSettings, Settings
from webreach.errors import RateLimitedError
from webreach.frontends._metrics import Metrics
from webreach.frontends.http import build_app
from webreach.gateway import EngineStatus, Gateway
from webreach.testing import FakeWeb
from webreach.tools import Toolbox
from webreach.tools.backend import ToolResult

from .serving import ServerProcess

pytestmark = pytest.mark.network
BASE = "http://127.0.0.1:9090"
ADMIN_TOKEN = "metrics-admin-token-" + "x" * 24
SEARCH = {"query": "python asyncio", "engine": "mojeek", "limit": 2}


@pytest.fixture
def served(web: FakeWeb, tmp_path: Path) -> Iterator[tuple[TestClient, str]]:
    ledger = str(tmp_path / "ledger.sqlite3")
    accounts = Accounts(AccountsSettings(enabled=True, database=ledger), SystemClock())
    try:
        _, agent_key = accounts.add("bot", credits=100)
    finally:
        accounts.close()
    settings = Settings(
        fake_web=web.url,
        state={"backend": "memory"},
        accounts={"enabled": True, "database": ledger},
        engines={"brave": {"api_key": GATEWAY_KEY}},
        read={"jina_api_key": JINA_KEY},
    )
    app = build_app(settings, server=ServerSettings(port=9090, admin_token=ADMIN_TOKEN))  # type: ignore[arg-type]
    with TestClient(app, base_url=BASE) as client:
        yield client, agent_key


def scrape(client: TestClient) -> str:
    response = client.get("/metrics", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return response.text


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(text: str, name: str, **labels: str) -> float:
    return samples(text).get((name, frozenset(labels.items())), 0.0)


def test_metrics_need_the_admin_token(served: tuple[TestClient, str]) -> None:
    client, agent_key = served
    assert client.get("/metrics").status_code == 401
    refused = client.get("/metrics", headers={"Authorization": f"Bearer {agent_key}"})
    assert refused.status_code == 401 and refused.json()["code"] == "admin_required"


def test_calls_are_counted_and_no_secret_is_scraped(served: tuple[TestClient, str], web: FakeWeb) -> None:
    client, agent_key = served
    auth = {"Authorization": f"Bearer {agent_key}"}
    before = scrape(client)
    assert value(before, "webreach_tool_calls_total", tool="web_search", outcome="ok") == 0
    for _ in range(2):  # the second is answered from the cache
        assert client.post("/v1/search", json=SEARCH, headers=auth).status_code == 200
    client.post("/v1/search", json={"query": "rust", "engine": "brave"}, headers=auth)  # the keyed engine
    assert client.post("/v1/fetch", json={"url": f"{web.url}/_pages/article"}, headers=auth).status_code == 200
    assert client.post("/v1/fetch", json={"url": "http://10.0.0.1/"}, headers=auth).status_code == 403
    assert client.post("/v1/search", json={"query": ""}, headers=auth).status_code == 400

    text = scrape(client)
    assert value(text, "webreach_tool_calls_total", tool="web_search", outcome="ok") == 3  # mojeek twice, brave
    assert value(text, "webreach_tool_errors_total", tool="web_search", code="invalid_input") == 1
    assert value(text, "webreach_tool_errors_total", tool="web_fetch", code="url_not_allowed") == 1
    assert value(text, "webreach_tool_credits_charged_total", tool="web_search") >= 2
    assert value(text, "webreach_tool_credits_charged_total", tool="web_fetch") == 1
    assert value(text, "webreach_engine_attempts_total", engine="mojeek", status="ok", code="") == 2
    assert value(text, "webreach_engine_cache_total", engine="mojeek", result="miss") == 1
    assert value(text, "webreach_engine_cache_total", engine="mojeek", result="hit") == 1
    assert value(text, "webreach_engine_attempt_seconds_count", engine="mojeek") == 1
    assert value(text, "webreach_engine_parsed_total", engine="mojeek", parser="engine") == 1
    assert value(text, "webreach_reads_total", reader="direct", outcome="ok") == 1
    assert value(text, "webreach_reads_total", reader="none", outcome="url_not_allowed") == 1
    assert value(text, "webreach_engine_breaker_state", engine="mojeek", state="closed") == 1
    assert value(text, "webreach_engine_breaker_state", engine="mojeek", state="open") == 0
    assert find_secrets(text) == []
    for secret in (agent_key, ADMIN_TOKEN, GATEWAY_KEY, JINA_KEY, '"bot"'):
        assert secret not in text
    assert not re.search(r"https?://", text), "no URL in a label"


async def test_a_made_up_tool_name_is_counted_as_unknown() -> None:
    """MCP passes any tool name to the pipeline: an agent must not be able to put text of its own into a label."""
    async with Gateway.from_settings(Settings(state={"backend": "memory"})) as gateway:
        toolbox: list[Toolbox] = []
        metrics = Metrics(lambda: toolbox[0].tools, gateway.engines.statuses)
        toolbox.append(Toolbox(gateway, gateway.sessions, on_result=metrics.tool_result))
        result = await toolbox[0].call(f"tool_{GATEWAY_KEY}", {})
    assert result.is_error
    text = metrics.scrape().decode()
    assert (
        value(text, "webreach_tool_errors_total", tool="unknown", code=result.error.code if result.error else "") == 1
    )
    assert find_secrets(text) == []


def test_a_real_server_counts_a_captcha_and_opens_the_breaker_for_a_loopback_scrape(
    server: ServerProcess, web: FakeWeb
) -> None:
    """`webreach serve` without an admin token: loopback scrapers are answered (the admin gate's rule)."""
    with httpx.Client(base_url=server.url, timeout=30, trust_env=False) as http:
        assert http.get("/readyz").json() == {"status": "ready", "checks": {"state": {"ok": True, "backend": "memory"}}}
        web.set_scenario("bing", fault="captcha")
        try:
            assert http.post("/v1/search", json={"query": "python asyncio", "engine": "bing"}).status_code == 502
        finally:
            web.reset("bing")
        text = http.get("/metrics").text
    assert value(text, "webreach_engine_captchas_total", engine="bing") == 1
    assert value(text, "webreach_engine_attempts_total", engine="bing", status="error", code="captcha") == 1
    assert value(text, "webreach_engine_breaker_state", engine="bing", state="open") == 1
    assert value(text, "webreach_tool_errors_total", tool="web_search", code="captcha") == 1


COUNT_IN_A_PROCESS = """
import sys
from webreach.frontends._metrics import Metrics
from webreach.models import EngineAttempt
metrics = Metrics(lambda: (), lambda: ())
metrics.attempt(EngineAttempt(engine="mojeek", status="ok", latency_ms=120.0, count=3))
if sys.argv[1] == "scrape":
    sys.stdout.write(metrics.scrape().decode())
"""


@pytest.mark.slow  # a subprocess or a heavy model: a cheaper sibling covers the rule in the fast loop
def test_worker_processes_add_up_in_one_scrape(tmp_path: Path) -> None:
    """With PROMETHEUS_MULTIPROC_DIR (serve with several workers), a scrape sums every process's counts."""
    directory = tmp_path / "prometheus"
    directory.mkdir()
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(directory)}
    command = [sys.executable, "-c", COUNT_IN_A_PROCESS]
    for _ in range(2):
        subprocess.run([*command, "count"], env=env, check=True, timeout=60)
    scraped = subprocess.run([*command, "scrape"], env=env, check=True, timeout=60, capture_output=True, text=True)
    text = scraped.stdout
    assert value(text, "webreach_engine_attempts_total", engine="mojeek", status="ok", code="") == 3
    assert value(text, "webreach_engine_attempt_seconds_count", engine="mojeek") == 3
    assert value(text, "webreach_engine_cache_total", engine="mojeek", result="miss") == 3


async def test_a_scrape_renders_off_the_event_loop_and_reads_breakers_on_it() -> None:
    """Rendering every series takes about 20 ms for 30 engines: the loop's calls must not wait for it."""
    threads: dict[str, int] = {}

    def statuses() -> list[EngineStatus]:
        threads["breakers"] = threading.get_ident()
        return []

    class Rendered(Collector):
        def collect(self) -> Iterator[Metric]:
            threads["render"] = threading.get_ident()
            return iter(())

    metrics = Metrics(lambda: ("web_search",), statuses)
    metrics.registry.register(Rendered())
    metrics.calls.labels("web_search", "ok").inc()
    response = await metrics.answer(Request({"type": "http", "method": "GET", "path": "/metrics", "headers": []}))
    assert threads["breakers"] == threading.get_ident(), "the engines' state is read on the loop that owns it"
    assert threads["render"] != threading.get_ident(), "the exposition is rendered on a worker thread"
    text = bytes(response.body).decode()
    assert value(text, "webreach_tool_calls_total", tool="web_search", outcome="ok") == 1
    assert "# TYPE webreach_engine_breaker_state gauge" in text


def test_cached_auto_searches_count_each_attempt_once_and_keep_their_refs(served: tuple[TestClient, str]) -> None:
    """A cached auto search is answered before routing starts a task or timer (Router.auto): its attempt is still
    counted once, as a cache hit, and its results keep the refs the first answer gave."""
    client, agent_key = served
    auth = {"Authorization": f"Bearer {agent_key}", "X-Webreach-Session": "metrics-auto"}
    answers = [client.post("/v1/search", json={"query": "python asyncio"}, headers=auth).json() for _ in range(4)]

    (engine,) = answers[0]["meta"]["engines_used"]
    assert [[a["cached"] for a in answer["meta"]["attempts"]] for answer in answers] == [[False], *[[True]] * 3]
    assert all(answer["meta"]["mode"] == "auto" and answer["meta"]["engines_used"] == [engine] for answer in answers)
    refs = [[(hit["url"], hit["ref"]) for hit in answer["results"]] for answer in answers]
    assert refs[0] and all(found == refs[0] for found in refs)
    text = scrape(client)
    assert value(text, "webreach_tool_calls_total", tool="web_search", outcome="ok") == 4
    assert value(text, "webreach_engine_attempts_total", engine=engine, status="ok", code="") == 4
    assert value(text, "webreach_engine_cache_total", engine=engine, result="miss") == 1
    assert value(text, "webreach_engine_cache_total", engine=engine, result="hit") == 3
    assert value(text, "webreach_engine_attempt_seconds_count", engine=engine) == 1  # the one that asked it
    assert value(text, "webreach_engine_parsed_total", engine=engine, parser="engine") == 1


def test_a_cached_answer_kept_whole_numbers_refs_in_each_session_and_counts_each_call(
    served: tuple[TestClient, str],
) -> None:
    """A cached single-engine answer is a copy of the response kept with its cache entry (routing/kept.py) and its
    JSON is joined from kept pieces (tools/kept_json.py): each call still gets its own refs, in its own session (they
    resolve there), its own cached attempt and elapsed time, and is counted."""
    client, agent_key = served

    def search(session: str, engine: str = "mojeek") -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {agent_key}", "X-Webreach-Session": session}
        response = client.post("/v1/search", json={**SEARCH, "engine": engine, "limit": 4}, headers=headers)
        assert response.status_code == 200, response.text
        return dict(response.json())

    first = search("kept-a")
    search("kept-b", "brave")  # session b numbers other URLs first: its refs for the cached answer differ
    answers = [search("kept-b") for _ in range(2)] + [search("kept-a")]

    assert [answer["meta"]["attempts"][0]["cached"] for answer in [first, *answers]] == [False, True, True, True]
    for answer in answers:
        assert answer["results"] and [hit["url"] for hit in answer["results"]] == [h["url"] for h in first["results"]]
        assert answer["meta"]["mode"] == "engine" and answer["meta"]["engines_used"] == ["mojeek"]
        assert answer["meta"]["elapsed_ms"] >= answer["meta"]["attempts"][0]["latency_ms"] >= 0
    refs_a = [hit["ref"] for hit in first["results"]]
    refs_b = [hit["ref"] for hit in answers[0]["results"]]
    assert [hit["ref"] for hit in answers[1]["results"]] == refs_b
    assert [hit["ref"] for hit in answers[2]["results"]] == refs_a != refs_b
    for session, refs in (("kept-a", refs_a), ("kept-b", refs_b)):
        headers = {"Authorization": f"Bearer {agent_key}", "X-Webreach-Session": session}
        read = client.post("/v1/fetch", json={"ref": refs[0]}, headers=headers)
        assert read.status_code == 200, read.text
        assert read.json()["url"] == first["results"][0]["url"]  # each session's ref resolves to the same page
    text = scrape(client)
    assert value(text, "webreach_tool_calls_total", tool="web_search", outcome="ok") == 5
    assert value(text, "webreach_engine_cache_total", engine="mojeek", result="hit") == 3
    assert value(text, "webreach_engine_cache_total", engine="mojeek", result="miss") == 1
    assert value(text, "webreach_engine_attempts_total", engine="mojeek", status="ok", code="") == 4


def test_a_served_tools_plain_answer_is_counted_in_one_lookup_and_every_other_kind_as_before() -> None:
    """Metrics.tool_result counts a served tool's answer without error, charge or page read through the child it
    remembered; a charge, an error, a made-up tool name still reach their own counters."""
    metrics = Metrics(lambda: ("web_search", "web_fetch"), dict)
    for _ in range(3):
        metrics.tool_result(ToolResult(tool="web_search", text="{}", is_json=True))
    metrics.tool_result(ToolResult(tool="web_search", text="{}", is_json=True, cost={"charged": 2}))
    metrics.tool_result(ToolResult(tool="web_search", text="{}", error=RateLimitedError("slow down", engine="x")))
    metrics.tool_result(ToolResult(tool="made_up", text="{}"))
    metrics.tool_result(ToolResult(tool="made_up", text="{}"))
    text = generate_latest(metrics.registry).decode()
    assert value(text, "webreach_tool_calls_total", tool="web_search", outcome="ok") == 4
    assert value(text, "webreach_tool_calls_total", tool="web_search", outcome="error") == 1
    assert value(text, "webreach_tool_errors_total", tool="web_search", code="rate_limited") == 1
    assert value(text, "webreach_tool_credits_charged_total", tool="web_search") == 2
    assert value(text, "webreach_tool_calls_total", tool="unknown", outcome="ok") == 2
    assert "made_up" not in text
