"""Option types of the command line that check a value where it enters: a usage error (exit 2), never a run.

- Seconds: a deadline above 0 and at most a limit. click's FloatRange lets nan and inf through (no comparison
  refuses nan), and a nan or infinite deadline is no deadline at all.
- PageUrl: an absolute http(s) URL (`extract --url`), so a URL no parser takes is refused once instead of the
  extractor failing on it, with a logged traceback, file after file.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import click

from webreach.frontends._cli_input import text_problem


class Seconds(click.ParamType):  # type: ignore[type-arg]  # generic in click 8.2+, not in 8.1
    """Seconds above 0 and at most `longest`."""

    name = "seconds"

    def __init__(self, longest: float) -> None:
        self.longest = longest

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        seconds = click.FLOAT.convert(value, param, ctx)
        if not 0 < seconds <= self.longest:  # nan fails this too
            self.fail(f"{value!r} is not a number of seconds above 0 and at most {self.longest:g}", param, ctx)
        return seconds


class PageUrl(click.ParamType):  # type: ignore[type-arg]
    """An absolute http(s) URL, as text the command line takes (text_problem)."""

    name = "url"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        text = str(value)
        problem = text_problem(text)
        if problem is not None:
            self.fail(problem, param, ctx)
        try:
            parts = urlsplit(text)
            parts.port  # noqa: B018  # raises ValueError for a port that is not a number in range
        except ValueError as exc:
            self.fail(f"{text!r} is not a valid URL ({exc})", param, ctx)
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            self.fail(f"{text!r} is not an absolute http(s) URL such as https://example.com/page", param, ctx)
        return text
