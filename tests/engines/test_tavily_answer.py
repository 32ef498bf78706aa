"""Tavily's AI answer (option include_answer): asked for only when the option says so, carried beside the hits
through the cache (every store's payload) into SearchResponse.answer."""

from __future__ import annotations

import json

from pydantic import SecretStr

from secret_keys import TEST_KEY
from webreach.config import EngineSettings
from webreach.engines.tavily import Tavily
from webreach.models import Hit, SearchRequest
from webreach.state.cache_store import decode_hits, decode_payload, encode_hits
from webreach.testing.recordings import engine_recordings


def tavily(**options: str) -> Tavily:
    return Tavily(EngineSettings(api_key=SecretStr(TEST_KEY), options=options))


def test_the_answer_is_asked_for_and_read_only_with_the_option() -> None:
    request = SearchRequest.create(query="python asyncio", limit=3)
    assert json.loads(tavily().build_request(request).content)["include_answer"] is False
    assert json.loads(tavily(include_answer="basic").build_request(request).content)["include_answer"] == "basic"
    answered = engine_recordings("tavily")["results-answer"].to_response()
    page = tavily(include_answer="basic").handle_page(answered)
    assert page.answer is not None and page.answer.startswith("asyncio is Python's standard library")
    assert len(page.hits) == 4
    assert tavily().handle_page(answered).answer is None  # not asked for: not shown
    assert (
        tavily(include_answer="basic").handle_page(engine_recordings("tavily")["results"].to_response()).answer is None
    )


def test_the_cache_payload_keeps_the_answer_and_reads_old_rows() -> None:
    hits = (Hit(rank=1, title="t", url="https://e.com/", engine="tavily"),)
    assert decode_payload(encode_hits(hits, "an answer")) == (hits, "an answer")
    assert decode_payload(encode_hits(hits)) == (hits, None)
    assert decode_hits(encode_hits(hits, "an answer")) == hits
    assert decode_payload('{"answer": "no hits key"}') is None
