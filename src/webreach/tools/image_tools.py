"""The image tools (issue 14): image_search (text -> images) and crop_images (tokens -> new `<obs_i>` crops).

image_search runs web search's machinery over the image engines (one engine, auto or multi; every answer lists
what each engine did, and filters an engine cannot honour are named as ignored in its attempt).

crop_images takes the conversation's images in its optional `messages` argument (OpenAI or Anthropic shape: a
`<image_k>` text entry immediately followed by an image entry) and crops any token of the session; each crop
becomes a new `<obs_i>`, returned in the text and, for MCP, as an image content block. One bad box fails only its
own entry: the answer maps every input token to its new token or its typed error. A call in which no crop was made
is an error (isError over MCP, the HTTP status of its code over REST) naming each refused box and why (issue 35).
A box read other than literally is named in its entry's `notes`: clamped to the image, read as relative (0..1)
under units=auto, or downscaled to fit the output limits. With [images] storage = public_url or s3 each crop comes
back as a URL instead of its bytes (no image block, no base64).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from webreach.defaults import MAX_CROPS
from webreach.errors import InvalidInputError, WebreachError
from webreach.models import (
    TOOL_LIMITS,
    EngineAttempt,
    ImageColour,
    ImageLicence,
    ImageSize,
    ImageType,
    SafeSearch,
    SearchRequest,
)
from webreach.tools.arguments import QueryText, ToolArguments
from webreach.tools.backend import ToolCall, ToolImage, ToolResult
from webreach.tools.image_arguments import Crops, Messages
from webreach.tools.output import json_text

if TYPE_CHECKING:  # the images package loads with the first image call (the gateway's `images`), not with a search
    from webreach.images.crop import Units
    from webreach.images.hits import ImageSearchResponse
    from webreach.images.service import CropOutcome

# the image engines as callers name them (engines/images_*.py without the prefix; tests/images checks they agree)
ImageEngineName = Literal[
    "bing", "brave_api", "baidu", "duckduckgo", "google_cse", "searxng", "serpapi", "serper", "sogou", "tavily"
]  # fmt: skip
# the tools whose arguments carry image bytes (base64 in `messages` or `image`): the HTTP doors give their calls a
# body cap that fits [images] max_input_bytes (frontends/_asgi.py); an alias of one carries images too
IMAGE_TOOLS = frozenset({"crop_images", "reverse_image_search", "image_upload"})


class ImageSearchArguments(ToolArguments, defer_build=True):
    """image_search."""

    only_when = (("engines", "engine", ("auto", "multi")),)

    query: QueryText = Field(description="What the images should show.")
    limit: int = TOOL_LIMITS["image_search"].field("Images to return.")
    safesearch: SafeSearch = Field("moderate", description="off, moderate or strict filtering of adult images.")
    engine: Literal["auto", "multi"] | ImageEngineName = Field(
        "auto",
        description="auto (the first image engine that answers, falling back when one is blocked), multi (several "
        "engines at once, merged and deduplicated by image and page) or one engine.",
    )
    engines: list[ImageEngineName] | None = Field(
        None, max_length=10, description="For auto or multi: the engines to use, in order (default: configured)."
    )
    size: ImageSize | None = Field(None, description="Image size, where the engine supports it.")
    type: ImageType | None = Field(None, description="Image type, where the engine supports it.")
    colour: ImageColour | None = Field(None, description="Colour, where the engine supports it.")
    licence: ImageLicence | None = Field(None, description="Usage rights, where the engine supports it.")


class CropImagesArguments(ToolArguments, defer_build=True):
    """crop_images."""

    crops: Crops = Field(
        min_length=1,
        max_length=MAX_CROPS,
        description='Boxes [left, top, right, bottom] to cut, e.g. [{"image": "<image_1>", "box": [0.5, 0, 1, 0.5]}] '
        "(one box per image in a call).",
    )
    units: Literal["auto", "pixels", "relative"] = Field(
        "auto",
        description="pixels, relative (0..1 of width and height), or auto: a box whose four numbers all lie "
        "within 0..1 is relative, any other box is in pixels.",
    )
    messages: Messages | None = Field(
        None,
        max_length=1000,
        description="The conversation (OpenAI or Anthropic messages) whose <image_k> entries name the images; "
        "needed once per session, later calls can crop the tokens they registered.",
    )


async def image_search(call: ToolCall, args: ImageSearchArguments) -> ToolResult:
    request = SearchRequest.create(
        query=args.query, limit=args.limit, safesearch=args.safesearch, size=args.size, type=args.type,
        colour=args.colour, licence=args.licence,
    )  # fmt: skip
    response = await call.backend.images.search(request, args.engine, args.engines)
    text = json_text(response) if call.output == "json" else image_text(response)
    return ToolResult(tool=call.tool, text=text, is_json=call.output == "json", value=response)


def image_text(response: ImageSearchResponse) -> str:
    """Numbered image hits, compact: title and site, then the image and its page; then what each engine did."""
    used = ", ".join(response.engines_used) or "no engine"
    lines = [f"Images for {response.query!r} ({response.mode}: {used}; {len(response.results)} found):"]
    for hit in response.results:
        size = f" {hit.width}x{hit.height}" if hit.width and hit.height else ""
        lines.append(f"{hit.rank}. {hit.title or '(untitled)'} [{hit.source or '?'}]{size}")
        lines.append(f"   image: {hit.image_url}")
        if hit.page_url:
            lines.append(f"   page: {hit.page_url}")
    lines.append("Engines: " + "; ".join(_attempt(attempt) for attempt in response.attempts))
    if response.stale:
        lines.append("Every engine failed: these results are from an expired cache entry.")
    return "\n".join(lines)


def _attempt(attempt: EngineAttempt) -> str:
    said = attempt.code or ("cached" if attempt.cached else attempt.status)
    count = f" {attempt.count}" if attempt.status == "ok" else ""
    ignored = f" (ignored: {', '.join(attempt.unsupported)})" if attempt.unsupported else ""
    return f"{attempt.engine} {said}{count}{ignored}"


@dataclass(frozen=True)
class CropsMade:
    """What crop_images made (its ToolResult.value): each box's outcome and, with URL storage, each crop's URL."""

    outcomes: tuple[CropOutcome, ...]
    urls: dict[str, str | None]


async def crop_images(call: ToolCall, args: CropImagesArguments) -> ToolResult:
    images = call.backend.images
    if args.messages:
        await images.register(call.session, args.messages)
    units: Units = args.units
    outcomes: list[CropOutcome] = await images.crop(call.session, args.crops, units)
    if all(outcome.image is None for outcome in outcomes):
        raise no_crop_made(outcomes)
    # storage public_url / s3 (images/storage.py): each crop as a URL, no bytes; inline: the bytes themselves
    urls = {
        outcome.image.token: await images.url_for(outcome.image)
        for outcome in outcomes
        if outcome.image is not None and images.storage_mode != "inline"
    }
    attached = tuple(
        ToolImage(outcome.image.token, outcome.image.mime, outcome.image.data)
        for outcome in outcomes
        if outcome.image is not None and not urls
    )
    # JSON output (REST, the Python API) carries each crop's bytes as base64, those doors having no image blocks:
    # megabytes of text, written on a worker as the pixels were
    text = await images.on_worker(_crop_json, outcomes, urls) if call.output == "json" else _crop_text(outcomes, urls)
    made = sum(1 for outcome in outcomes if outcome.image is not None)
    # `answered`: the crops made, which metering charges (a refused box costs nothing)
    answered = made if made < len(outcomes) else None
    return ToolResult(
        tool=call.tool, text=text, is_json=call.output == "json", images=attached, answered=answered,
        value=CropsMade(tuple(outcomes), urls),
    )  # fmt: skip


def _entry(outcome: CropOutcome, *, urls: dict[str, str | None] | None = None) -> dict[str, Any]:
    if outcome.image is not None:
        image = outcome.image
        entry: dict[str, Any] = {"token": image.token, "width": image.width, "height": image.height}
        entry["mime"] = image.mime
        if outcome.notes:
            entry["notes"] = list(outcome.notes)
        if urls and urls.get(image.token):
            entry["url"] = urls[image.token]
        return entry
    error: WebreachError = outcome.error or WebreachError("no result")
    return {"error": {"code": error.code, "message": str(error)}}


def _crop_json(outcomes: list[CropOutcome], urls: dict[str, str | None]) -> str:
    """The JSON answer. Each crop's base64 is spliced in after json.dumps, not passed through it: base64 needs no
    escaping, and scanning megabytes of it held the GIL (so the loop's thread) for 34 ms a crop."""
    entries: dict[str, dict[str, Any]] = {}
    images: list[bytes] = []
    for outcome in outcomes:
        entry = _entry(outcome, urls=urls)
        if outcome.image is not None and not urls:
            entry["data"] = f"\0{len(images)}"  # a marker: nothing else in the answer holds a NUL
            images.append(outcome.image.data)
        entries[outcome.source] = entry
    rest = json.dumps({"status": "ok", "crops": entries}, ensure_ascii=False, separators=(",", ":"))
    from webreach.images.base64_pieces import b64encode  # loaded by the crop already (images/service.py)

    pieces = []
    for index, data in enumerate(images):
        head, _, rest = rest.partition(f'"\\u0000{index}"')
        pieces += [head, '"', b64encode(data), '"']
    return "".join([*pieces, rest])


def _crop_text(outcomes: list[CropOutcome], urls: dict[str, str | None]) -> str:
    lines = []
    for outcome in outcomes:
        entry = _entry(outcome, urls=urls)
        if "token" in entry:
            where = f" {entry['url']}" if "url" in entry else ""
            notes = f" [{'; '.join(outcome.notes)}]" if outcome.notes else ""
            lines.append(f"{outcome.source} -> {entry['token']} ({entry['width']}x{entry['height']}){where}{notes}")
        else:
            lines.append(f"{outcome.source} -> error {json.dumps(entry['error'], ensure_ascii=False)}")
    return "\n".join(lines)


def no_crop_made(outcomes: list[CropOutcome]) -> WebreachError:
    """The error of a call in which every crop was refused: each box and why, with the refusals' code when they
    share one (unknown_image, invalid_input, ...), else invalid_input."""
    from webreach.images.crop import shown  # loaded by the crop already (images/service.py)

    errors = [outcome.error or WebreachError("no result") for outcome in outcomes]
    reasons = "; ".join(
        f"{outcome.source} {shown(outcome.box)}: {error.message}"
        for outcome, error in zip(outcomes, errors, strict=True)
    )
    message = f"no crop was made: {reasons}"
    if len({type(error) for error in errors}) > 1:
        return InvalidInputError(message, hint="Fix each box named and call again.")
    combined = copy.copy(errors[0])
    combined.message = message
    combined.args = (message,)
    return combined
