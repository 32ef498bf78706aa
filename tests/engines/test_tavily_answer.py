"""Tavily's AI answer (option include_answer): asked for only when the option says so, carried beside the hits
through the cache (every store's payload) into SearchResponse.answer."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import SecretStr

from secret_keys import TEST_KEY
from webreach.config import EngineSettings
from webreach.engines.tavily import Tavily
from webreach.models import Hit, SearchRequest
from webreach.state.cache_store import (
    CacheEntry,
    MemoryCacheStore,
    SqliteCacheStore,
    decode_hits,
    decode_payload,
    encode_hits,
)
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


async def test_the_sqlite_and_memory_stores_keep_the_answer(tmp_path: Path) -> None:
    hits = (Hit(rank=1, title="t", url="https://e.com/", engine="tavily"),)
    entry = CacheEntry(hits, stored_at=0.0, fresh_until=100.0, keep_until=200.0, answer="an answer")
    for store in (SqliteCacheStore(tmp_path / "cache.sqlite3"), MemoryCacheStore(10)):
        await store.set("k", entry)
        kept = await store.get("k", now=1.0)
        assert kept is not None and kept.answer == "an answer" and kept.hits == hits
        store.close()


async def test_a_resized_memory_store_keeps_the_newest_entries() -> None:
    store = MemoryCacheStore(3)
    for key in "abc":
        await store.set(key, CacheEntry((), stored_at=0.0, fresh_until=100.0, keep_until=200.0))
    store.resize(2)
    assert [await store.get(key, now=1.0) is not None for key in "abc"] == [False, True, True]
    await store.set("d", CacheEntry((), stored_at=0.0, fresh_until=100.0, keep_until=200.0))
    assert store.max_entries == 2 and await store.get("b", now=1.0) is None
