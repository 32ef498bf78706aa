"""A cached answer's response kept whole: what routing built from an in-process cache entry, given again per call
with only what differs replaced (the attempt's latency, the search's elapsed time).

An answer at once (Candidate.at_once: a fresh entry of the in-process cache) is the same hits from the same engine,
reported the same way, on every call but for two numbers. The first such call builds its EngineAttempt and
SearchResponse as any answer's (validated models) and keeps them in the entry's scratch (EngineResult.kept, which is
CacheEntry.derived, so they live and die with the entry), keyed by everything else that shapes them: the engine's
name and unsupported parameters for the attempt; the mode, the query as asked and its limit for the response. Every
later call copies them with its own latency and elapsed time. The copies share the kept response's `derived`
scratch, where the tools keep its JSON template (tools/output.py), so a hit is neither validated nor serialised
again. Every attempt is still told to the listeners (metrics, the console's recent attempts) as before.

The copy is pydantic's own shallow copy (BaseModel.__copy__) without its generic parts: these models have no
extras and no private attributes (checked), and their field sets are never changed in place, so they are shared.
Measured (timeit, min of 5, a loaded 2-core machine): an EngineAttempt validated 6.9 us, `model_copy(update=...)`
8.2 us, this copy 3.4 us; tests/routing/test_kept_answers.py checks it against model_copy field for field. With
`object.__new__` and `object.__setattr__` bound once at import (each was looked up per call, on `object` and on a
pydantic class): 2.8 -> 1.7 us per copy (timeit, min of 5).

A copy is kept by its numbers, too: the models are frozen values, so two calls whose latency (and elapsed time)
came out the same are given the same object. The numbers are rounded to the microsecond and a cached answer takes
a few: in process, 3,000 cached REST calls gave 29 latencies (the top 8 were 97% of the calls) and 218 (latency,
elapsed) pairs (the top 16 78%, the top 64 94%). So most calls copy nothing. An entry keeps its last
COPIES_PER_ENTRY copies, all shapes together (first in, first out): an attempt and a response copy are about
1.2 KB beside what they share (tracemalloc), so at most ~60 KB an entry, and only for entries answered often.
With the eighth pass's other cuts (docs/decisions.md), bench/serve.py's REST server CPU per cached search went from
1.50x the bare endpoint's on main to 1.39x (medians of three runs each, alternated in one run, a shared machine;
1.64x -> 1.50x, medians of three later pairs on the quiet machine).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from pydantic import BaseModel

from webreach.models import EngineAttempt, SearchResponse

KEPT_PER_ENTRY = 16  # shapes kept per cache entry (query spellings, limits, modes); past it the scratch starts over
COPIES_PER_ENTRY = 48  # copies kept per cache entry by shape and numbers; past it the oldest goes
_COPIES = "copies"  # where in the entry's scratch: (shape, numbers) -> copy, the oldest first

Model = TypeVar("Model", bound=BaseModel)
_new = object.__new__
_set = object.__setattr__


def attempt_again(
    kept: dict[Any, Any], key: Hashable, latency_ms: float, build: Callable[[float], EngineAttempt]
) -> EngineAttempt:
    """The attempt kept under `key` with this call's latency; built by `build(latency_ms)` (and kept) the first time."""
    proto: EngineAttempt | None = kept.get(key)
    if proto is None:
        built = build(latency_ms)
        return _keep(kept, key, built, (key, built.latency_ms))
    copies: dict[Hashable, Any] = kept[_COPIES]
    known: EngineAttempt | None = copies.get((key, latency_ms))
    return known if known is not None else _add(copies, (key, latency_ms), copied(proto, latency_ms=latency_ms))


def response_again(
    kept: dict[Any, Any],
    key: Hashable,
    attempt: EngineAttempt,
    elapsed_ms: float,
    build: Callable[[], SearchResponse],
) -> SearchResponse:
    """The response kept under `key` with this call's attempt and elapsed time; built by `build()` (and kept) the
    first time. `build` must report `attempt` as its only attempt (the kept response is copied with the next one)."""
    proto: SearchResponse | None = kept.get(key)
    if proto is None:
        built = build()
        return _keep(kept, key, built, (key, id(built.meta.attempts[0]), built.meta.elapsed_ms))
    copies: dict[Hashable, Any] = kept[_COPIES]
    numbers = (key, id(attempt), elapsed_ms)  # the copy holds the attempt, so its id is not reused while it is kept
    known: SearchResponse | None = copies.get(numbers)
    if known is not None and known.meta.attempts[0] is attempt:
        return known
    return _add(copies, numbers, copied(proto, meta=copied(proto.meta, attempts=(attempt,), elapsed_ms=elapsed_ms)))


def copied(model: Model, **changes: Any) -> Model:
    """`model.model_copy(update=changes)` for a model without extras or private attributes, at half its cost."""
    copy = _new(type(model))
    fields = model.__dict__.copy()  # a cached_property's scratch (`derived`) is shared, as model_copy shares it
    fields.update(changes)
    _set(copy, "__dict__", fields)
    _set(copy, "__pydantic_extra__", None)
    _set(copy, "__pydantic_fields_set__", model.__pydantic_fields_set__)
    _set(copy, "__pydantic_private__", None)
    return copy


def _keep(kept: dict[Any, Any], key: Hashable, model: Model, numbers: Hashable) -> Model:
    """`model` kept as its shape's first, and as the copy for its own numbers (`numbers`: its key among the
    copies)."""
    if model.__pydantic_extra__ is not None or model.__pydantic_private__ is not None:
        return model  # `copied` would lose them: never kept
    if len(kept) >= KEPT_PER_ENTRY:
        kept.clear()
    kept[key] = model
    _add(kept.setdefault(_COPIES, {}), numbers, model)
    return model


def _add(copies: dict[Hashable, Any], numbers: Hashable, copy: Model) -> Model:
    if len(copies) >= COPIES_PER_ENTRY:
        del copies[next(iter(copies))]
    copies[numbers] = copy
    return copy
