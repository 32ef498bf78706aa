"""PageCache: documents expire `ttl` seconds after they were stored (by the injected clock) and the least
recently used goes past `max_entries`."""

from __future__ import annotations

from webreach.extract.extracted import Extracted
from webreach.read.page_cache import PageCache
from webreach.read.readers import ReadResult
from webreach.testing import FakeClock


def result(url: str) -> ReadResult:
    return ReadResult(url=url, final_url=url, status=200, extracted=Extracted("text", "text/plain"), reader="direct")


def test_an_entry_expires_after_ttl_on_the_injected_clock() -> None:
    clock = FakeClock()
    cache = PageCache(clock, ttl=60.0, max_entries=10)
    page = result("https://a.example/")
    cache.put(["a"], page)
    clock.advance(59.9)
    assert cache.get("a") is page
    clock.advance(0.1)
    assert cache.get("a") is None


def test_both_keys_of_one_read_hit_the_same_document() -> None:
    cache = PageCache(FakeClock(), ttl=60.0, max_entries=10)
    page = result("https://a.example/")
    cache.put(["asked", "final"], page)
    assert cache.get("asked") is page and cache.get("final") is page


def test_the_least_recently_used_goes_past_max_entries() -> None:
    cache = PageCache(FakeClock(), ttl=60.0, max_entries=2)
    cache.put(["a"], result("https://a.example/"))
    cache.put(["b"], result("https://b.example/"))
    assert cache.get("a") is not None  # a is now the most recently used
    cache.put(["c"], result("https://c.example/"))
    assert cache.get("b") is None
    assert cache.get("a") is not None and cache.get("c") is not None
    assert len(cache) == 2


def test_a_ttl_of_zero_caches_nothing() -> None:
    cache = PageCache(FakeClock(), ttl=0.0, max_entries=10)
    cache.put(["a"], result("https://a.example/"))
    assert cache.get("a") is None and len(cache) == 0


def test_what_was_derived_from_a_document_lives_and_expires_with_it() -> None:
    clock = FakeClock()
    cache = PageCache(clock, ttl=60.0, max_entries=10)
    page, other = result("https://a.example/"), result("https://a.example/")
    cache.put(["a"], page)
    cache.keep_derived("a", page, "passages of a")
    assert cache.derived("a", page) == "passages of a"
    assert cache.derived("a", other) is None, "derived from another read of the URL: not this document's"
    clock.advance(60.0)
    assert cache.derived("a", page) is None
    off = PageCache(clock, ttl=0, max_entries=10)
    off.keep_derived("a", page, "kept?")
    assert off.derived("a", page) is None
