"""The errors a read raises once the body is in hand: content webreach will not or cannot turn into text.

WebreachError
├── UnsupportedContentError   unsupported_content   images, archives, media, executables; .content_type .size
├── NeedsBrowserError         needs_browser         a JavaScript-only shell; the browser reader can render it
└── ExtractionFailedError     extraction_failed     no readable text (empty page, encrypted or broken PDF); .reason

A CAPTCHA or bot wall is reported with webreach.errors.BlockedError (kind "captcha" or "blocked", engine None),
so the agent-facing codes stay the ones search already uses. These classes live here until errors.py adopts them.
"""

from __future__ import annotations

from webreach.errors import WebreachError


class UnsupportedContentError(WebreachError):
    """The body is not something webreach turns into text (an image, archive, video, executable...)."""

    code = "unsupported_content"
    default_hint = "webreach reads HTML, PDF, plain text, JSON and XML; open this URL with a tool made for its type."

    def __init__(self, content_type: str, size: int, *, hint: str | None = None) -> None:
        super().__init__(f"cannot extract text from {content_type} content ({size:,} bytes).", hint=hint)
        self.content_type = content_type
        self.size = size


class NeedsBrowserError(WebreachError):
    """The page is an empty shell that JavaScript fills in: without running it there is nothing to read."""

    code = "needs_browser"
    default_hint = "Read it again with reader='browser' (or reader='jina'), which render JavaScript."

    def __init__(self, reason: str, *, hint: str | None = None) -> None:
        super().__init__(f"the page renders its content with JavaScript ({reason}).", hint=hint)
        self.reason = reason


class ExtractionFailedError(WebreachError):
    """The body was readable in principle but yielded no text."""

    code = "extraction_failed"
    default_hint = "Try reader='browser' or reader='jina', or another source for the same information."

    def __init__(self, reason: str, *, hint: str | None = None) -> None:
        super().__init__(f"no readable text: {reason}.", hint=hint)
        self.reason = reason
