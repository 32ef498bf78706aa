"""Talking to JSON API engines: the JSON POST that carries the key, and reading the answer (the body or a
ParseError, error envelopes, result lists)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from itertools import islice
from typing import Any

import httpx

from webreach.engines._base import query_with_site
from webreach.engines._html import MAX_ITEMS
from webreach.errors import ParseError
from webreach.models import SearchRequest


def json_post(url: str, body: Mapping[str, Any], key_headers: Mapping[str, str]) -> httpx.Request:
    """A POST of `body` as JSON asking for a JSON answer; `key_headers` carry the API key (and any extras)."""
    return httpx.Request("POST", url, json=body, headers={**key_headers, "Accept": "application/json"})


def bearer(key: str) -> dict[str, str]:
    """The Authorization header of an API that takes its key as a Bearer token."""
    return {"Authorization": f"Bearer {key}"}


def google_body(request: SearchRequest, count: int) -> dict[str, Any]:
    """The body Google-backed JSON APIs take (Serper, and Jina after it): q with site:, num, page, gl and hl."""
    body: dict[str, Any] = {"q": query_with_site(request), "num": count}
    if request.page > 1:
        body["page"] = request.page
    if request.region:
        body["gl"] = request.region
    if request.language:
        body["hl"] = request.language
    return body


def json_body(response: httpx.Response, engine: str) -> Any:
    """The decoded JSON body, or ParseError when the engine answered with something else (an HTML error page,
    JSON nested past bounded_json's depth, which the standard parser would meet with RecursionError)."""
    try:
        return loads_bounded(response)
    except ValueError:
        raise ParseError("answered with something other than JSON", engine=engine) from None


def loads_bounded(response: httpx.Response) -> Any:
    """The JSON value of the body, decoded as response.json() does (a UTF-8 byte-order mark is tolerated);
    ValueError when it is no JSON, nesting too deep for the parser included.

    No pre-scan (bounded_json's costs a pass over the answer): the C parser stops at the recursion limit with
    RecursionError, which unwinds cleanly, and engines read fields by name, never recursing into a value.
    """
    try:
        return json.loads(response.content)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def json_object(response: httpx.Response, engine: str) -> dict[str, Any]:
    """The JSON body when it is an object, else ParseError."""
    data = json_body(response, engine)
    if not isinstance(data, dict):
        raise ParseError("answered with JSON that is not an object", engine=engine)
    return data


def result_list(data: dict[str, Any], key: str, engine: str) -> list[Any]:
    """data[key] when it is a list, else ParseError: an answer without its result list is not an empty one."""
    values = data.get(key)
    if not isinstance(values, list):
        raise ParseError(f"no {key} list in the answer", engine=engine)
    return values


def listed_results(response: httpx.Response, engine: str, key: str, url_key: str = "url") -> list[dict[str, Any]]:
    """The objects of the answer's `key` list that carry a `url_key`; ParseError when the answer has no such list."""
    return items_with(result_list(json_object(response, engine), key, engine), url_key)


def error_object(response: httpx.Response) -> dict[str, Any]:
    """The `error` object of an error answer ({"error": {...}}), or {} when the body has none."""
    try:
        body = loads_bounded(response)
    except ValueError:
        return {}
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, dict) else {}


def items_with(values: Any, key: str) -> list[dict[str, Any]]:
    """The objects of a JSON result list that carry a non-empty string `key` (entries without a URL are not
    results), at most MAX_ITEMS of them."""
    if not isinstance(values, list):
        return []
    found = (item for item in values if isinstance(item, dict) and item.get(key) and isinstance(item[key], str))
    return list(islice(found, MAX_ITEMS))


def by_position(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Result objects in the provider's own `position` order (stable for entries without one)."""
    return sorted(items, key=_position)


def _position(item: dict[str, Any]) -> float:
    """An item's `position` when it is a number (a string or a list there would not sort against the others)."""
    value = item.get("position")
    return value if isinstance(value, int | float) and not isinstance(value, bool) and value == value else 0
