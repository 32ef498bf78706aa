"""Saved engine pages parsed offline (`webreach parse`): how users check a parser after markup changes, and which
engine a saved page looks like."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import httpx

from webreach.errors import InvalidInputError
from webreach.models import EngineAttempt, SearchMeta, SearchResponse
from webreach.search.engine_caller import rebuilt_response

if TYPE_CHECKING:
    from webreach.engines import Engine


def parse_saved(
    engine: Engine,
    body: bytes,
    *,
    status: int = 200,
    content_type: str = "text/html",
    headers: Sequence[tuple[bytes, bytes]] | None = None,
) -> SearchResponse:
    """`body` parsed by `engine`; the attempt says which parser produced the hits.

    `headers` (raw, as they arrived; Content-Type among them) replace the one `content_type` makes; the
    response is built as the engine caller builds a live one, so the same bytes meet the same code.
    """
    name = engine.name
    request = httpx.Request("GET", engine.url("/"))
    raw = headers if headers is not None else [(b"content-type", content_type.encode("latin-1", "replace"))]
    parsed = engine.handle_page(rebuilt_response(status, raw, body, request))
    hits = parsed.hits
    attempt = EngineAttempt(engine=name, status="ok" if hits else "empty", count=len(hits), parsed_by=parsed.parsed_by)
    meta = SearchMeta(mode="engine", engines_used=(name,), attempts=(attempt,))
    return SearchResponse(query="", results=tuple(hits), meta=meta)


def guess_engine(engines: Sequence[Engine], body: bytes) -> str:
    """The name of the engine among `engines` whose page markers `body` carries most (InvalidInputError when none
    or a tie)."""
    text = body.decode("utf-8", errors="replace")
    scores = sorted(((engine.recognise(text), engine.name) for engine in engines), reverse=True)
    (best, name), (runner_up, _) = scores[0], scores[1]
    if best == 0 or best == runner_up:
        names = ", ".join(engine.name for engine in engines)
        raise InvalidInputError(
            "cannot tell which engine's page this is", hint=f"Name the engine instead of auto: one of {names}."
        )
    return name
