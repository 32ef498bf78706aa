"""JSON output of the search tools, as pydantic models: hits carry their refs, one model per shape.

    one query:      {"query", "results": [{...hit, "ref"}], "meta"[, "notes"]}
    several:        {"searches": [<one query> | {"query", ...error body}], "notes"?}

`ref` is present on every result when refs are shown (null for a URL the store did not number) and absent when
there are no refs at all (no session store): a client can tell "no ref for this one" from "refs are off". The
text is written by pydantic (`model_dump_json`); text holding lone surrogates (from a broken page or API answer)
cannot be UTF-8, so it is written with \\u escapes instead.

A single query's answer is joined from pieces rather than serialised whole (`query_results_text`): each hit's
JSON is written once per hit object and kept with it (Hit.derived, beside its compact lines), and the response's
head and meta are kept in pieces with the response (tools/kept_json.py), so a cached answer only writes its refs
and the meta's two per-call numbers again. The joined text is byte for byte what pydantic writes for the model
(tests/tools/test_output_json.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pydantic_core
from pydantic import BaseModel, ConfigDict, Field

from webreach.errors import error_body
from webreach.models import Hit, SearchMeta
from webreach.tools.kept_json import kept_json
from webreach.tools.render import SearchOutcome


class QueryResults(BaseModel):
    """One query's results and meta; notes only on a single-query answer.

    Each result is its Hit's fields plus "ref" when refs are shown (`with_ref`). They are kept as the field
    mappings rather than a model per result: building and validating a model per result cost 8 of the 66 us of
    a cached REST search in-process (5 results; measured with bench/serve.py's query), for the same JSON. They
    are typed dict, not Mapping nor SkipValidation: either makes pydantic serialize them on its slow path (14 us
    for 8 results against 5.5 us).
    """

    model_config = ConfigDict(frozen=True)

    query: str
    results: tuple[dict[str, Any], ...]
    meta: SearchMeta
    notes: tuple[str, ...] = Field((), exclude_if=lambda notes: not notes)


class Searches(BaseModel):
    """Several queries in call order; a failed one is its error body with the query."""

    model_config = ConfigDict(frozen=True)

    searches: tuple[QueryResults | dict[str, Any], ...]
    notes: tuple[str, ...] = Field((), exclude_if=lambda notes: not notes)


def search_output(
    outcomes: Sequence[SearchOutcome], refs: Mapping[str, int] | None, *, notes: Sequence[str] = ()
) -> QueryResults | Searches:
    """The output model of a search tool call (a single failed query is raised, never rendered here)."""
    if len(outcomes) == 1 and outcomes[0].response is not None:
        return _query_results(outcomes[0], refs, notes=notes)
    sections = [
        _query_results(outcome, refs) if outcome.response is not None else _failed(outcome) for outcome in outcomes
    ]
    return Searches(searches=tuple(sections), notes=tuple(notes))


def json_text(model: BaseModel) -> str:
    """The model as tools return JSON: UTF-8 (not \\u escapes, which cost tokens), no padding."""
    try:
        return model.model_dump_json()
    except pydantic_core.PydanticSerializationError:
        return json.dumps(model.model_dump(mode="json"), separators=(",", ":"))


def search_json_text(
    outcomes: Sequence[SearchOutcome], refs: Mapping[str, int] | None, *, notes: Sequence[str] = ()
) -> str:
    """search_output()'s JSON text: a single answered query joined from its hits' kept JSON (query_results_text),
    anything else written by pydantic."""
    if len(outcomes) == 1 and outcomes[0].response is not None:
        try:
            return query_results_text(outcomes[0], refs, notes=notes)
        except pydantic_core.PydanticSerializationError:  # a lone surrogate: json_text writes \\u escapes
            pass
    return json_text(search_output(outcomes, refs, notes=notes))


def query_results_text(outcome: SearchOutcome, refs: Mapping[str, int] | None, *, notes: Sequence[str] = ()) -> str:
    """`_query_results(...).model_dump_json()`, joined from the response's kept pieces (tools/kept_json.py): its
    head, each hit's JSON with its ref, the meta (around its two per-call numbers when it has one attempt), notes.

    Measured (timeit, 5 hits with refs, alternated on a loaded machine): 1.6-2.7x faster than building the
    QueryResults model and serialising every hit, which was 13% of a cached REST call's CPU in process.
    PydanticSerializationError when a text cannot be UTF-8 (the caller falls back to json_text)."""
    response = outcome.response
    assert response is not None
    kept = kept_json(response)
    results = kept.results_text(refs)
    meta = response.meta.model_dump_json() if kept.meta is None else kept.meta.text(response.meta)
    text = f'{kept.head}{results}],"meta":{meta}'
    if notes:
        text += f',"notes":{_to_json(list(notes))}'
    return text + "}"


def _to_json(value: object) -> str:
    return pydantic_core.to_json(value).decode()


def search_json(
    outcomes: Sequence[SearchOutcome], refs: Mapping[str, int] | None, *, notes: Sequence[str] = ()
) -> dict[str, Any]:
    """The JSON output as a dict (for callers that use its fields)."""
    body: dict[str, Any] = search_output(outcomes, refs, notes=notes).model_dump(mode="json")
    return body


def _query_results(
    outcome: SearchOutcome, refs: Mapping[str, int] | None, *, notes: Sequence[str] = ()
) -> QueryResults:
    response = outcome.response
    assert response is not None
    if refs is None:
        results = tuple(with_ref(hit) for hit in response.results)
    else:
        results = tuple(with_ref(hit, refs.get(hit.url), shown=True) for hit in response.results)
    return QueryResults(query=response.query, results=results, meta=response.meta, notes=tuple(notes))


def with_ref(hit: Hit, ref: int | None = None, *, shown: bool = False) -> dict[str, Any]:
    """A result as its output shows it: the Hit's fields (a pydantic model keeps them in __dict__), then "ref"
    when refs are shown (null for a URL the store did not number)."""
    fields = dict(hit.__dict__)
    fields.pop("derived", None)  # Hit.derived's memos live in __dict__ too, and are no field
    if fields.get("image") is None:  # web hits: the field exists for image search only
        fields.pop("image", None)
    if shown:
        fields["ref"] = ref
    return fields


def _failed(outcome: SearchOutcome) -> dict[str, Any]:
    assert outcome.error is not None
    return {"query": outcome.query, **error_body(outcome.error, tool="web_search")}
