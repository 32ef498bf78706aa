"""What the tools need from below (ToolBackend, implemented by the Gateway) and what a tool call gives back."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from webreach.config import EngineSettings
from webreach.errors import FetchError, WebreachError
from webreach.models import Page, ReadRequest, SearchRequest, SearchResponse
from webreach.state.sessions import SessionStore

if TYPE_CHECKING:  # the images package loads with the first image tool called, never with a search
    from webreach.images.crop import Units
    from webreach.images.hits import ImageSearchResponse
    from webreach.images.reverse.models import ReverseSearchResponse
    from webreach.images.service import CropOutcome
    from webreach.state.image_store import StoredImage

# a page the agent chose answered, unusably: the upstream work was done for the agent (not retryable ones only), so
# the read is charged (tools/accounting.py: a web_fetch; tools/search_reading.py: a page a search read)
CHARGED_FAILURES = frozenset(
    {"http_error", "too_large", "unsupported_content", "needs_browser", "extraction_failed", "too_many_redirects"}
)
OutputFormat = Literal["compact", "json"]
OUTPUT_FORMATS: tuple[OutputFormat, ...] = ("compact", "json")
T = TypeVar("T")


class ImageOperations(Protocol):
    """What the image tools do with images (images/service.py's Images satisfies it): session tokens, crops,
    uploads by URL or data, image search and reverse image search."""

    async def register(self, session: str, messages: Sequence[object]) -> list[StoredImage]:
        """Name the conversation's images <image_k> in `session`."""
        ...

    async def crop(
        self, session: str, crops: Mapping[str, Sequence[float]], units: Units = "auto"
    ) -> list[CropOutcome]:
        """Each crop as a new <obs_i>, or its typed error."""
        ...

    async def resolve(self, session: str, image: str) -> tuple[StoredImage, str | None]:
        """The image an agent named (token, URL or base64), with the URL when one was given."""
        ...

    async def upload_file(self, session: str, name: str) -> StoredImage:
        """The image file `name` names inside the operator's upload directory, stored as a new <obs_i>."""
        ...

    async def url_for(self, image: StoredImage) -> str | None:
        """A URL of the image per the storage mode (None when inline)."""
        ...

    @property
    def storage_mode(self) -> str:
        """inline, public_url or s3."""
        ...

    async def on_worker(self, work: Callable[..., T], *args: object) -> T:
        """`work(*args)` off the event loop."""
        ...

    async def search(
        self, request: SearchRequest, engine: str = "auto", engines: Sequence[str] | None = None
    ) -> ImageSearchResponse:
        """Images for a text query."""
        ...

    async def reverse_search(
        self, session: str, image: str, *, limit: int = 10, backend: str = "auto"
    ) -> ReverseSearchResponse:
        """Where an image appears on the web."""
        ...


class ToolBackend(Protocol):
    """Search and read, as the Gateway offers them (the Gateway satisfies it; tests pass a fake over canned answers)."""

    async def search(self, request: SearchRequest, *, engine: str, engines: Sequence[str] | None) -> SearchResponse:
        """engine is 'auto', 'multi' or an engine name; engines narrows auto/multi to these."""
        ...

    def answers_at_once(self, request: SearchRequest, *, engine: str, engines: Sequence[str] | None) -> bool:
        """Whether search() would answer now with no I/O and no engine call (a fresh in-process cache entry)."""
        ...

    async def read(self, request: ReadRequest) -> Page:
        """Read request.url (refs are resolved to URLs by the tools before this is called)."""
        ...

    def engine_names(self) -> list[str]:
        """Every engine name, for schema enums and for checking an agent's engine argument."""
        ...

    def engine_settings(self) -> Mapping[str, EngineSettings]:
        """The configured engines' settings as they are now (the console's changes included)."""
        ...

    @property
    def images(self) -> ImageOperations:
        """Session images, crops and image search (the image tools; issue 14)."""
        ...


def charged_failure(error: WebreachError) -> bool:
    """Whether a read that failed with `error` is charged all the same (see CHARGED_FAILURES)."""
    return isinstance(error, FetchError) and error.code in CHARGED_FAILURES and not error.retryable


@dataclass(frozen=True)
class ToolImage:
    """An image a tool returns beside its text (a crop): MCP sends it as an image content block."""

    token: str
    mime: str
    data: bytes


# not frozen (never changed once built: a policy makes a new one with dataclasses.replace): built for every call,
# and frozen sets each of its ten fields through object.__setattr__ (tools/pipeline.py CallContext); no slots, for
# the cached `data`
@dataclass(kw_only=True)
class ToolResult:
    """One rendered tool call.

    `text` is what goes back to the model: compact text, or the JSON body as text (`is_json`: json output and
    every error). `data` is that JSON body as a dict, for doors that use its fields; it is read from the text
    on first use, because the busiest door (REST) sends the text as it is. `error` is the failure itself, for
    doors that map it to an HTTP status or exit code; `is_error` says the text is an error body. `value` is the
    typed answer the text was rendered from (SearchResults, Page; None for an error), for a door that renders it
    its own way (the CLI's table); `cost` is what the metering charged (None: not metered).
    """

    tool: str
    text: str
    is_json: bool = False
    error: WebreachError | None = None
    # of a call of several logical operations (web_search's queries), how many answered, when not all did: the
    # metering charges those only
    answered: int | None = None
    # of a search that read its top results for a question, the page reads that are charged (each a web_fetch)
    reads: int = 0
    images: tuple[ToolImage, ...] = ()
    value: Any = None
    cost: dict[str, Any] | None = None
    # the idempotency key's record holds this answer already (written with the call's charge: tools/accounting.py)
    stored: bool = False

    @property
    def is_error(self) -> bool:
        return self.error is not None

    @cached_property
    def data(self) -> dict[str, Any] | None:
        parsed: dict[str, Any] | None = json.loads(self.text) if self.is_json else None
        return parsed


@dataclass(slots=True)  # not frozen: built for every call, and frozen's setattr costs 2x (0.64 vs 0.3 us)
class ToolCall:
    """Everything a handler needs besides its arguments."""

    tool: str
    backend: ToolBackend
    sessions: SessionStore | None
    session: str
    output: OutputFormat
    # an operator's door's options beyond the tool's schema (tools/pipeline.py: CallContext.extra)
    extra: Mapping[str, Any] | None = None

    def result(self, text: str, value: Any = None, *, reads: int = 0) -> ToolResult:
        return ToolResult(tool=self.tool, text=text, is_json=self.output == "json", value=value, reads=reads)
