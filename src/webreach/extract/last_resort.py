"""The extractor's promise that only typed errors leave it: any other exception becomes an ExtractionError.

Hostile pages reach parsers and libraries (lxml, trafilatura, pypdf, the json module) in ways no one tests; a
bug on one odd page must cost that read, with an error an agent can act on, never an HTTP 500 or a traceback.
The root causes found so far are fixed where they arise (xml_chars, nesting, bounded_json, charset); this
wrapper catches what is still unknown, and logs it with its type and traceback so it can be fixed there too.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from webreach.errors import (
    READ_WITH_BROWSER,
    READ_WITH_JINA,
    ExtractionError,
    ResponseTooLargeError,
    WebreachError,
    hint,
)

LOGGER = logging.getLogger(__name__)
INTERNAL_HINT = hint(
    "The page trips up the extractor; try {} or {}, or another source.", READ_WITH_BROWSER, READ_WITH_JINA
)
MEMORY_HINT = "The document needs more memory to extract than a read may use; try another source."

P = ParamSpec("P")
R = TypeVar("R")


def typed_errors(extractor: Callable[P, R]) -> Callable[P, R]:
    """`extractor`, raising ExtractionError (or ResponseTooLargeError on MemoryError) for any untyped failure."""

    @functools.wraps(extractor)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return extractor(*args, **kwargs)
        except WebreachError:
            raise
        except MemoryError:
            url = _url(kwargs)
            LOGGER.warning("extraction ran out of memory on %s", url)
            raise ResponseTooLargeError(
                f"Extracting {_name(url)} needed more memory than allowed.", url=url, hint=MEMORY_HINT
            ) from None
        except Exception as exc:  # the one place that must catch everything (see the docstring)
            url = _url(kwargs)
            LOGGER.error("extraction failed on %s with %s", url, type(exc).__name__, exc_info=True)
            raise ExtractionError(
                f"No readable text: the extractor failed on {_name(url)} ({type(exc).__name__}).",
                url=url,
                hint=INTERNAL_HINT,
            ) from None

    return guarded


def _url(kwargs: dict[str, object]) -> str | None:
    url = kwargs.get("url")
    return url if isinstance(url, str) and url else None


def _name(url: str | None) -> str:
    return f"the page at {url}" if url else "the page"
