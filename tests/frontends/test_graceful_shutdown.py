"""`webreach serve` stopped with SIGTERM (what Kubernetes and compose send) finishes the call in flight, answers
it in full, and exits within uvicorn's graceful window."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import httpx
import pytest

from webreach.testing import FakeWeb

from .serving import STOP_TIMEOUT, http_server

pytestmark = [pytest.mark.network, pytest.mark.slow]
SEARCH = {"query": "python asyncio", "engine": "mojeek", "limit": 2}


def test_sigterm_finishes_the_call_in_flight(web: FakeWeb, tmp_path: Path) -> None:
    answers: list[httpx.Response] = []
    web.set_scenario("mojeek", latency=1.5)  # the engine answers after 1.5 s: the call is in flight meanwhile
    try:
        with http_server(web, tmp_path) as server:
            before = web.count("mojeek")
            caller = threading.Thread(
                target=lambda: answers.append(httpx.post(server.url + "/v1/search", json=SEARCH, timeout=30)),
                daemon=True,
            )
            caller.start()
            deadline = time.monotonic() + 20
            while web.count("mojeek") == before and time.monotonic() < deadline:  # the call reached the engine
                time.sleep(0.02)
            assert web.count("mojeek") > before, "the call never reached the engine"
            server.process.send_signal(signal.SIGTERM)
            caller.join(30)
            # uvicorn shuts down gracefully, then re-raises the signal it caught, so the exit is "killed by SIGTERM"
            assert server.process.wait(STOP_TIMEOUT) == -signal.SIGTERM, server.output()
    finally:
        web.reset("mojeek")
    assert len(answers) == 1 and answers[0].status_code == 200, answers
    assert answers[0].json()["results"], "the call in flight was answered in full"
