"""reverse_image_search (where does this image appear?) and image_upload (hidden: an image into the session's
store, with its token and a URL per the storage mode).

The image argument is a session token (`<image_1>`, `<obs_2>`; pass `messages` once so the conversation's
tokens are known), an http(s) URL (fetched through the SSRF guard and stored as a new `<obs_i>`) or base64
data (a data URL or bare base64, stored likewise). image_upload is hidden from models by default (not listed
in any schema unless [tools] enabled names it) but callable by name from REST, the CLI and Python: it is how an
operator's code, not a model, puts local images where backends can fetch them.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from webreach.models import TOOL_LIMITS
from webreach.tools.arguments import ToolArguments
from webreach.tools.backend import ToolCall, ToolResult
from webreach.tools.image_arguments import Messages
from webreach.tools.output import json_text

if TYPE_CHECKING:  # loaded with the first reverse search (the gateway's `images`), not with a web search
    from webreach.images.reverse.models import ReverseSearchResponse

# the reverse-image backends (the provider registry's, webreach/providers.py; tests/test_providers.py checks the
# two lists agree: a Literal must be spelled out for the type checker and the tool schema)
ReverseBackendName = Literal[
    "auto", "serpapi_lens", "serpapi_google_reverse", "serpapi_yandex", "bing_visual", "yandex", "tineye",
    "searxng_tineye",
]  # fmt: skip
IMAGE_DESCRIPTION = "A token such as <image_1> or <obs_2>, an http(s) image URL, or base64 image data."
MESSAGES_DESCRIPTION = (
    "The conversation (OpenAI or Anthropic messages) whose <image_k> entries name the images; needed once per session."
)


class ReverseImageSearchArguments(ToolArguments, defer_build=True):
    """reverse_image_search."""

    image: str = Field(min_length=1, max_length=30_000_000, description=IMAGE_DESCRIPTION)
    limit: int = TOOL_LIMITS["reverse_image_search"].field("Matches to return.")
    backend: ReverseBackendName = Field("auto", description="auto (fallback across backends) or one backend.")
    messages: Messages | None = Field(None, max_length=1000, description=MESSAGES_DESCRIPTION)


class ImageUploadArguments(ToolArguments, defer_build=True):
    """image_upload."""

    image: str = Field(min_length=1, max_length=30_000_000, description="An http(s) image URL or base64 data.")


async def reverse_image_search(call: ToolCall, args: ReverseImageSearchArguments) -> ToolResult:
    images = call.backend.images
    if args.messages:
        await images.register(call.session, args.messages)
    response = await images.reverse_search(call.session, args.image, limit=args.limit, backend=args.backend)
    text = json_text(response) if call.output == "json" else reverse_text(response)
    return ToolResult(tool=call.tool, text=text, is_json=call.output == "json", value=response)


def reverse_text(response: ReverseSearchResponse) -> str:
    """Numbered matches, compact: kind and site, then the page and the image."""
    lines = [f"Matches for {response.token or 'the image'} ({response.backend}, {len(response.results)} found):"]
    for hit in response.results:
        score = f" similarity {hit.similarity:.2f}" if hit.similarity is not None else ""
        lines.append(f"{hit.rank}. [{hit.match}{score}] {hit.title or '(untitled)'} [{hit.source or '?'}]")
        if hit.page_url:
            lines.append(f"   page: {hit.page_url}")
        if hit.image_url:
            lines.append(f"   image: {hit.image_url}")
    if response.attempts:
        lines.append("Backends tried first: " + "; ".join(response.attempts))
    return "\n".join(lines)


async def image_upload(call: ToolCall, args: ImageUploadArguments) -> ToolResult:
    images = call.backend.images
    stored, _ = await images.resolve(call.session, args.image)
    url = await images.url_for(stored)
    body = {"status": "ok", "token": stored.token, "url": url, "mime": stored.mime, "width": stored.width,
            "height": stored.height, "storage": images.storage_mode}  # fmt: skip
    if call.output == "json":
        return ToolResult(tool=call.tool, text=json.dumps(body, separators=(",", ":")), is_json=True)
    where = url or "no URL (storage = inline)"
    return ToolResult(tool=call.tool, text=f"{stored.token} ({stored.width}x{stored.height}): {where}")
