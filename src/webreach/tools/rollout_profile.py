"""The "rollout-gateway" drop-in profile: the RL rollout gateway's tools (seed-contracts.md B), each a definition over
a native tool's plan and handler (web_search, web_fetch, image_search, reverse_image_search, crop_images,
image_upload), answering JSON strings indented 2, errors as {"status": "error", "tool": <name>, "message": ...}.

    文搜文(query, k 1..20, region="cn")        -> {"results": [{title, url, link, snippet, source, position, date?,
                                                   image_url, imageUrl, thumbnail_url, thumbnailUrl}]}
    web_visit(url, region="cn")               -> {"text": title, source and the opening of the main text}
    image_search_by_text(query, k 1..20)      -> {"results": [{title, link, thumbnail, thumbnailUrl, image_url,
                                                   imageUrl, source?, domain?, position}]}
    reverse_image_search(image_token, k 1..10, messages) -> as image_search_by_text
    crop_images_by_token(crop_config, messages) -> {"results": {token: url | base64 | "error: ..."}, "images": [...]}
    upload_file_to_cloud(file_path)  (hidden) -> {"status": "ok", "url", "token", "file_path", "mime", "width", ...}

Crops and uploads are URLs with [images] storage = public_url or s3, base64 with inline. upload_file_to_cloud
reads files inside [images] upload_dir only (local_files.read_under) and needs URL storage (its answer is a URL).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from pydantic import Field

from webreach.errors import InvalidInputError, WebreachError
from webreach.images.base64_pieces import b64encode
from webreach.images.hits import ImageHit, ImageSearchResponse
from webreach.images.reverse.models import ReverseHit, ReverseSearchResponse
from webreach.models import Hit, Page, SearchRequest
from webreach.tools.aliases import CropImagesByToken, Messages, condensed
from webreach.tools.arguments import QueryText, ToolArguments, UrlText, WebFetchArguments
from webreach.tools.backend import ToolResult
from webreach.tools.definitions import (
    TOOLS,
    Handler,
    SearchPlan,
    SearchResults,
    ToolCall,
    ToolDefinition,
    price_crops,
    price_search,
)
from webreach.tools.image_arguments import Token
from webreach.tools.image_tools import CropImagesArguments, CropsMade, ImageSearchArguments
from webreach.tools.reverse_tools import MESSAGES_DESCRIPTION, ReverseImageSearchArguments


def _region() -> Any:
    """The region argument (checked where the request is made: SearchRequest, ISO 3166-1 such as cn, us)."""
    return Field("cn", min_length=2, max_length=16, description="Region of the results (ISO 3166-1, e.g. cn, us).")


class TextSearch(ToolArguments):
    """文搜文."""

    query: QueryText = Field(description="What to search for.")
    k: int = Field(ge=1, le=20, description="How many results (1-20).")
    region: str = _region()


class Visit(ToolArguments):
    """web_visit."""

    url: UrlText = Field(description="The http(s) page to read (one a search returned).")
    region: str = _region()


class ImagesByText(ToolArguments):
    """image_search_by_text."""

    query: QueryText = Field(description="What the images should show.")
    k: int = Field(ge=1, le=20, description="How many images (1-20).")


class ReverseByToken(ToolArguments):
    """reverse_image_search."""

    image_token: Token = Field(description="The image: <image_k> of the task or <obs_i> a tool returned.")
    k: int = Field(ge=1, le=10, description="How many matches (1-10).")
    messages: Messages = Field(None, max_length=1000, description=MESSAGES_DESCRIPTION)


class UploadFile(ToolArguments):
    """upload_file_to_cloud."""

    file_path: str = Field(min_length=1, max_length=1024, description="An image file in the upload directory.")


def dumped(body: dict[str, Any]) -> str:
    """An answer as the contract writes it: a JSON string indented 2 (UTF-8, not \\u escapes)."""
    return json.dumps(body, ensure_ascii=False, indent=2)


def error_text(tool: str, error: WebreachError) -> str:
    """The contract's error: {"status": "error", "tool", "message"} (the message says what to do next)."""
    return dumped({"status": "error", "tool": tool, "message": str(error)})


def _domain(url: str | None) -> str | None:
    return urlsplit(url).hostname if url else None


def text_hit(position: int, hit: Hit) -> dict[str, Any]:
    """One 文搜文 result."""
    item: dict[str, Any] = {"title": hit.title, "url": hit.url, "link": hit.url, "snippet": hit.snippet,
                            "source": hit.source or _domain(hit.url) or hit.engine, "position": position}  # fmt: skip
    if hit.date:
        item["date"] = hit.date
    image = hit.image.image_url if hit.image else None
    thumbnail = (hit.image.thumbnail_url or image) if hit.image else None
    item.update(image_url=image, imageUrl=image, thumbnail_url=thumbnail, thumbnailUrl=thumbnail)
    return item


def image_hit(position: int, hit: ImageHit | ReverseHit) -> dict[str, Any]:
    """One image_search_by_text or reverse_image_search result."""
    link = hit.page_url or hit.image_url
    thumbnail = hit.thumbnail_url or hit.image_url
    item: dict[str, Any] = {"title": hit.title, "link": link, "thumbnail": thumbnail, "thumbnailUrl": thumbnail,
                            "image_url": hit.image_url, "imageUrl": hit.image_url}  # fmt: skip
    if hit.source:
        item["source"] = hit.source
    if _domain(link):
        item["domain"] = _domain(link)
    item["position"] = position
    return item


def plan_text(args: TextSearch, engines: Sequence[str]) -> SearchPlan:
    return SearchPlan("auto", (SearchRequest.create(query=args.query, limit=args.k, region=args.region),))


def _searched(handler: Handler) -> Handler:
    async def answer(call: ToolCall, plan: SearchPlan) -> ToolResult:
        result = await handler(replace(call, output="json"), plan)
        results: SearchResults = result.value
        (outcome,) = results.outcomes
        if outcome.response is None:  # one query: the native handler raised its error already
            raise outcome.error or InvalidInputError("the search gave no answer", hint="Search again.")
        hits = [text_hit(position, hit) for position, hit in enumerate(outcome.response.results, 1)]
        return replace(result, tool=call.tool, text=dumped({"results": hits}), is_json=True)

    return answer


def _visited(handler: Handler) -> Handler:
    async def answer(call: ToolCall, args: Visit) -> ToolResult:
        result = await handler(
            replace(call, output="json"), WebFetchArguments.parse({"url": args.url, "format": "text"})
        )
        page: Page = result.value
        return replace(result, tool=call.tool, text=dumped(condensed(page)), is_json=True)

    return answer


def _images_found(handler: Handler) -> Handler:
    async def answer(call: ToolCall, plan: Any) -> ToolResult:
        result = await handler(replace(call, output="json"), plan)
        response: ImageSearchResponse | ReverseSearchResponse = result.value
        found: Sequence[ImageHit | ReverseHit] = response.results
        hits = [image_hit(position, hit) for position, hit in enumerate(found, 1)]
        return replace(result, tool=call.tool, text=dumped({"results": hits}), is_json=True)

    return answer


def crop_body(crops: CropsMade) -> str:
    """crop_images_by_token's answer: each input token's crop (its URL, else its base64) or its error, and the crops
    made in order (the host injects each as a new <obs_i>). Megabytes of base64: written on a worker."""
    results: dict[str, str] = {}
    images: list[str] = []
    for outcome in crops.outcomes:
        if outcome.image is None:
            error = outcome.error or WebreachError("no result")
            results[outcome.source] = f"error: {error}"
            continue
        shown = crops.urls.get(outcome.image.token) or b64encode(outcome.image.data)
        results[outcome.source] = shown
        images.append(shown)
    return dumped({"results": results, "images": images})


def _cropped(handler: Handler) -> Handler:
    async def answer(call: ToolCall, args: CropImagesArguments) -> ToolResult:
        # compact: the native JSON would encode every crop's base64 once more, for nothing
        result = await handler(replace(call, output="compact"), args)
        text = await call.backend.images.on_worker(crop_body, result.value)
        return replace(result, tool=call.tool, text=text, is_json=True, images=())

    return answer


async def upload_file(call: ToolCall, args: UploadFile) -> ToolResult:
    """upload_file_to_cloud: a file of the upload directory stored as a new <obs_i> and handed out as a URL."""
    images = call.backend.images
    if images.storage_mode == "inline":
        raise InvalidInputError(
            "upload_file_to_cloud needs cloud storage, and images are kept inline here",
            hint="Ask the operator to set [images] storage = public_url or s3.",
        )
    stored = await images.upload_file(call.session, args.file_path)
    body = {"status": "ok", "url": await images.url_for(stored), "token": stored.token, "file_path": args.file_path,
            "mime": stored.mime, "width": stored.width, "height": stored.height, "size": len(stored.data),
            "storage": images.storage_mode}  # fmt: skip
    return ToolResult(tool=call.tool, text=dumped(body), is_json=True)


def rollout_tools() -> tuple[ToolDefinition, ...]:
    """The profile's definitions, each running a native tool's handler (alias_of: priced and metered as it)."""
    natives = {tool.name: tool for tool in TOOLS}
    search, fetch, images = natives["web_search"], natives["web_fetch"], natives["image_search"]
    reverse, crop, upload = natives["reverse_image_search"], natives["crop_images"], natives["image_upload"]
    return (
        ToolDefinition(
            name="文搜文", title="Web search",
            description="Search the web (text to text). Returns a JSON string: results with title, url, link, "
            "snippet, source, position and date where known.",
            arguments=TextSearch, handler=_searched(search.handler), prepare=plan_text, price=price_search,
            alias_of="web_search", error_text=error_text,
        ),
        ToolDefinition(
            name="web_visit", title="Read a web page",
            description='Read a web page a search returned. Returns a JSON string {"text": ...}: the title, the '
            "source and the opening of the main text.",
            arguments=Visit, handler=_visited(fetch.handler), prepare=lambda args, engines: args,
            alias_of="web_fetch", error_text=error_text,
        ),
        ToolDefinition(
            name="image_search_by_text", title="Image search",
            description="Find images by a text description. Returns a JSON string: results with title, link (the "
            "page), thumbnail, image_url, source, domain and position.",
            arguments=ImagesByText, handler=_images_found(images.handler),
            prepare=lambda args, engines: ImageSearchArguments.parse({"query": args.query, "limit": args.k}),
            price=images.price, alias_of="image_search", error_text=error_text,
        ),
        ToolDefinition(
            name="reverse_image_search", title="Reverse image search",
            description="Find where an image of the conversation (<image_1>, <obs_2>) appears on the web. Pass the "
            "conversation as messages. Returns a JSON string shaped like image_search_by_text's.",
            arguments=ReverseByToken, handler=_images_found(reverse.handler),
            prepare=lambda args, engines: ReverseImageSearchArguments.parse(
                {"image": args.image_token, "limit": args.k, "messages": args.messages}
            ),
            annotations=reverse.annotations, alias_of="reverse_image_search", error_text=error_text,
        ),
        ToolDefinition(
            name="crop_images_by_token", title="Crop images",
            description='Zoom into images of the conversation: crop_config {"<image_1>": [left, top, right, '
            'bottom]} (pixels, or 0..1 of the size), with the conversation as messages. Returns a JSON string '
            '{"results": {token: crop}, "images": [...]}: each crop a URL or base64 data.',
            arguments=CropImagesByToken, handler=_cropped(crop.handler),
            prepare=lambda args, engines: CropImagesArguments.parse(
                {"crops": args.crop_config, "messages": args.messages}
            ),
            price=price_crops, annotations=crop.annotations, alias_of="crop_images", error_text=error_text,
        ),
        ToolDefinition(
            name="upload_file_to_cloud", title="Upload a local image",
            description="Upload an image file of the upload directory; returns its cloud url.",
            arguments=UploadFile, handler=upload_file, prepare=lambda args, engines: args,
            annotations=upload.annotations, alias_of="image_upload", hidden=True, error_text=error_text,
        ),
    )  # fmt: skip
