"""A search response's JSON kept in pieces with the response, so a cached answer is written by joining, not rendering.

The pieces of one query's answer (tools/output.py `query_results_text`) are its head (`{"query":...,"results":[`),
each hit's JSON without its closing brace (a ref may follow), and, when the meta reports one attempt, the meta's
JSON around the two numbers that differ from call to call for the same cached answer: the attempt's latency and
the search's elapsed time. They are kept in SearchResponse.derived (beside the URLs given refs: `result_urls`), so
they are worked out once per response object. Routing gives every call that a cached entry answers a copy of the
response it kept for that entry (routing/kept.py), and a copy shares `derived`; so such a call writes only its
two numbers, and its refs unless the results were already written with the same refs (the last REFS_KEPT sets are
kept: sessions that made the same searches number their results alike).

A model_copy also shares `derived`, including one with other results or meta, so the pieces are used only for a
response that has the same results, query and answer objects, and the same meta but for those two numbers; any
other response gets pieces of its own. The numbers are written by pydantic (pydantic_core.to_json), and the pieces
are checked to join back into pydantic's own text of the meta when they are made.
Measured with routing/kept.py (bench/rest_call.py, in process, 1,000 cached calls x 5 rounds, three runs each side
alternated on a machine at load 8-10, with this pass's other changes): a cached REST search with engine=mojeek
98.7-189.7 us per call on main, 77.2-122.5 us here; in cProfile, writing the JSON answer took 10.6% of main's
call and takes 7.3% of this (smaller) one (docs/decisions.md 2026-11-29, "a cached answer kept whole").
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import pydantic_core

from webreach.models import EngineAttempt, Hit, SearchMeta, SearchResponse
from webreach.state.sessions import storable

_LATENCY = '"latency_ms":'
# sets of refs whose results text a response's pieces keep: each is about the size of the hits' JSON (2-5 KB),
# so at most ~20 KB per cached answer (40 MB only if each of [cache] max_entries' 2,000 answers met 4 numberings)
REFS_KEPT = 4
_ELAPSED = '"elapsed_ms":'
NUMBERS_KEPT = 32  # attempts found to fit and meta texts written, per kept meta (first in, first out)


@dataclass(frozen=True, slots=True)
class KeptJson:
    """One response's JSON in pieces."""

    results: tuple[Hit, ...]
    query: str
    answer: str | None
    head: str  # {"query":...,"results":[
    hits: tuple[str, ...]  # each hit's JSON without its closing brace
    hit_urls: tuple[str, ...]
    meta: Meta | None  # None: the meta is written whole (several attempts, or pieces that did not join back)

    # each hit's ref (None: none numbered) -> the results written with them; a few sets, since sessions that
    # searched the same things number them alike (the first search of a session gets refs 1..n)
    written: dict[tuple[int | None, ...], str] = field(default_factory=dict)

    def results_text(self, refs: Mapping[str, int] | None) -> str:
        """The results as the answer writes them: each hit's JSON with its ref when refs are shown."""
        if refs is None:
            return "},".join(self.hits) + "}" if self.hits else ""
        numbers = tuple(map(refs.get, self.hit_urls))
        text = self.written.get(numbers)
        if text is None:
            text = ",".join([f'{hit},"ref":{_ref_json(ref)}}}' for hit, ref in zip(self.hits, numbers, strict=True)])
            if len(self.written) >= REFS_KEPT:
                self.written.clear()
            self.written[numbers] = text
        return text

    def fits(self, response: SearchResponse) -> bool:
        """Whether these pieces write `response` (a copy of the response they were made from, or that response)."""
        if response.results is not self.results or response.query is not self.query:
            return False
        return response.answer is self.answer and (self.meta is None or self.meta.fits(response.meta))


@dataclass(frozen=True, slots=True)
class Meta:
    """A one-attempt meta's JSON around its attempt's latency and its elapsed time, and what else it says."""

    before_latency: str
    before_elapsed: str
    tail: str
    mode: str
    engines_used: tuple[str, ...]
    stale: bool
    attempt: dict[str, Any]  # the attempt's fields, its latency as 0.0
    # attempts found to fit, by id (each held here, so its id is not reused while kept), and the texts written, by
    # their two numbers: routing gives a cached answer's calls the same few attempt and response objects (those
    # whose numbers came out alike: routing/kept.py), so most calls compare and write nothing
    fitted: dict[int, EngineAttempt] = field(default_factory=dict)
    written: dict[tuple[float, float], str] = field(default_factory=dict)

    def fits(self, meta: SearchMeta) -> bool:
        if meta.mode is not self.mode or meta.engines_used is not self.engines_used or meta.stale is not self.stale:
            return False
        if len(meta.attempts) != 1:
            return False
        attempt = meta.attempts[0]
        if self.fitted.get(id(attempt)) is attempt:
            return True
        fields = attempt.__dict__.copy()
        fields["latency_ms"] = 0.0
        if fields != self.attempt:
            return False
        _put(self.fitted, id(attempt), attempt)
        return True

    def text(self, meta: SearchMeta) -> str:
        numbers = (meta.attempts[0].latency_ms, meta.elapsed_ms)
        text = self.written.get(numbers)
        if text is None:
            latency, elapsed = _number(numbers[0]), _number(numbers[1])
            text = f"{self.before_latency}{latency}{self.before_elapsed}{elapsed}{self.tail}"
            if numbers[0] and numbers[1]:  # not a zero: -0.0 equals 0.0 but is written otherwise
                _put(self.written, numbers, text)
        return text


def _put(kept: dict[Any, Any], key: Any, value: Any) -> None:
    """`kept[key] = value`, the oldest entry out past NUMBERS_KEPT."""
    if len(kept) >= NUMBERS_KEPT:
        del kept[next(iter(kept))]
    kept[key] = value


def kept_json(response: SearchResponse) -> KeptJson:
    """The pieces of `response`'s JSON, made once per response object (and shared by its copies that they fit).
    PydanticSerializationError when a text cannot be UTF-8 (the caller writes the model instead)."""
    known = response.derived.get("json")
    if known is not None and known.fits(response):
        kept: KeptJson = known
        return kept
    kept = KeptJson(
        results=response.results,
        query=response.query,
        answer=response.answer,
        head=f'{{"query":{_to_json(response.query)},"results":[',
        hits=tuple(hit_json(hit) for hit in response.results),
        hit_urls=tuple(hit.url for hit in response.results),
        meta=_meta(response.meta),
    )
    response.derived["json"] = kept
    return kept


def result_urls(response: SearchResponse) -> tuple[str, ...]:
    """The URLs of `response`'s results that can get refs (storable ones, each once, in order), worked out once per
    response object (kept beside its pieces; a copy with other results works them out again)."""
    known = response.derived.get("urls")
    if known is not None and known[0] is response.results:
        urls: tuple[str, ...] = known[1]
        return urls
    urls = _urls(response.results)
    response.derived["urls"] = (response.results, urls)
    return urls


def refs_of(response: SearchResponse, urls: Sequence[str], numbers: Sequence[int]) -> Mapping[str, int]:
    """`urls` (result_urls(response)) mapped to the refs a session gave them, read-only, kept with the response per
    numbering (the last REFS_KEPT, as the results written with them): a cached answer's calls get the same refs
    again, and building the mapping (dict(zip(...)) of ten URLs, 1.4-2.2 us by timeit) was most of remembering
    them once the session's write is answered from memory (frontends/_recent_refs.py)."""
    kept: tuple[Sequence[str], dict[tuple[int, ...], Mapping[str, int]]] | None = response.derived.get("refs")
    if kept is None or kept[0] is not urls:
        kept = response.derived["refs"] = (urls, {})
    key = tuple(numbers)
    known: Mapping[str, int] | None = kept[1].get(key)
    if known is None:
        known = MappingProxyType(dict(zip(urls, key, strict=True)))
        if len(kept[1]) >= REFS_KEPT:
            kept[1].clear()
        kept[1][key] = known
    return known


def _urls(results: tuple[Hit, ...]) -> tuple[str, ...]:
    # a URL the store cannot keep (a lone surrogate from a broken answer) gets no ref and is shown as a URL
    return tuple(dict.fromkeys([hit.url for hit in results if storable(hit.url)]))


def _meta(meta: SearchMeta) -> Meta | None:
    if len(meta.attempts) != 1:
        return None
    text = meta.model_dump_json()
    latency_at = text.index(_LATENCY) + len(_LATENCY)  # a key: inside a string its quotes would be escaped
    latency_end = text.index(",", latency_at)
    elapsed_at = text.index(_ELAPSED, latency_end) + len(_ELAPSED)
    elapsed_end = text.index(",", elapsed_at)
    pieces = Meta(
        before_latency=text[:latency_at],
        before_elapsed=text[latency_end:elapsed_at],
        tail=text[elapsed_end:],
        mode=meta.mode,
        engines_used=meta.engines_used,
        stale=meta.stale,
        attempt=_fields(meta.attempts[0]),
    )
    return pieces if pieces.text(meta) == text else None


def _fields(attempt: EngineAttempt) -> dict[str, Any]:
    fields = attempt.__dict__.copy()
    fields["latency_ms"] = 0.0  # Meta.fits compares the rest
    return fields


def hit_json(hit: Hit) -> str:
    """The hit's JSON as its output shows it, without the closing brace (its "ref" may follow), written once per
    hit object and kept in hit.derived. A model_copy shares that memo (with other fields, perhaps), so the memo
    names the object it was written for by a weak reference (no cycle through the hit's own __dict__)."""
    memo = hit.derived.get("json")
    if memo is not None and memo[0]() is hit:
        text: str = memo[1]
        return text
    text = hit.model_dump_json()[:-1]
    hit.derived["json"] = (weakref.ref(hit), text)
    return text


def _ref_json(ref: int | None) -> str:
    return "null" if ref is None else str(int(ref))


def _number(value: float) -> str:
    return pydantic_core.to_json(value).decode()


def _to_json(value: object) -> str:
    return pydantic_core.to_json(value).decode()
