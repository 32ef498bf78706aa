"""Console form helpers for the HTTP console tests: a page's hidden inputs, and a form posted through its 303."""

from __future__ import annotations

import re

import httpx


def hidden(page: httpx.Response, name: str, form: int = 0) -> str:
    """The value of the `form`-th hidden input called `name` on the page."""
    return re.findall(rf'name="{name}" value="([^"]*)"', page.text)[form]


def posted(client: httpx.Client, path: str, fields: dict[str, str]) -> httpx.Response:
    """POST a form: it must answer 303 to a console page; that page, fetched once."""
    answer = client.post(path, data=fields)
    assert answer.status_code == 303, (path, answer.status_code, answer.text[:300])
    assert answer.headers["location"].startswith("/console/")
    shown = client.get(answer.headers["location"])
    assert shown.status_code == 200
    return shown
