"""Alias sets: other systems' tool names and shapes, switched on by the operator, each mapped onto the one definition
of a webreach tool (docs/decisions.md, issue 14).

    [tools]
    alias_set = "visual-agent"

"visual-agent" is the tool set of the multimodal agent servers issue 14 describes: `image_search_by_text(query,
k)`, `reverse_image_search(image_token, k)`, `crop_images_by_token({"<token>": [l, t, r, b]})` and `web_visit(url)`,
each answering a JSON string, errors as {"status": "error", "tool": <the alias>, "message": ...}. An alias is only
a name, a description, its own arguments model and a translation of its arguments into the target tool's: its
plan and handler are the target's (the same prepare, the same handler, forced to JSON output), so the alias cannot
drift from the tool. Metering prices an alias as its target. An alias whose target tool is not in the registry
(reverse_image_search before that tool exists) is left out of the set. With a set on, its aliases are exposed
beside the native tools (`[tools] enabled` may name either); an alias named like a native tool
(reverse_image_search) takes that name's place.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, Self

from pydantic import Field

from webreach.errors import InvalidInputError
from webreach.models import Page
from webreach.tools.arguments import QueryText, ToolArguments, UrlText
from webreach.tools.backend import ToolResult
from webreach.tools.definitions import TOOLS, Handler, ToolCall, ToolDefinition
from webreach.tools.image_arguments import Crops, Token
from webreach.tools.image_arguments import Messages as ChatMessages
from webreach.tools.render import to_text
from webreach.tools.reverse_tools import MESSAGES_DESCRIPTION

# the conversation whose <image_k>/<obs_i> text parts name the image_url parts after them (seed-contracts.md B)
Messages = ChatMessages | None

AliasSet = Literal["visual-agent"]
VISIT_CHARS = 3000  # web_visit's condensed text
TOKEN = re.compile(r"^<(image|obs)_[1-9][0-9]{0,8}>$")


class ImageSearchByText(ToolArguments, defer_build=True):
    """image_search_by_text."""

    query: QueryText = Field(description="What the images should show.")
    k: int = Field(10, ge=1, le=20, description="How many images (1-20).")


class ReverseImageSearch(ToolArguments, defer_build=True):
    """reverse_image_search."""

    image_token: Token = Field(description="The image to look up: <image_k> of the task or <obs_i> of a tool.")
    k: int = Field(10, ge=1, le=10, description="How many matches (1-10).")
    messages: Messages = Field(None, max_length=1000, description=MESSAGES_DESCRIPTION)


class CropImagesByToken(ToolArguments, defer_build=True):
    """crop_images_by_token: {"crop_config": <the map>, "messages": [...]}, the token map itself, or {"crops": <the
    map>} (the shape this alias took before the rollout gateway's contract named it crop_config)."""

    crop_config: Crops = Field(
        min_length=1,
        max_length=20,
        description='Boxes [left, top, right, bottom] (pixels, or 0..1 of the size), e.g. [{"image": "<image_1>", '
        '"box": [0, 0, 0.5, 0.5]}]; the map {"<image_1>": [0, 0, 0.5, 0.5]} is taken too, also as the whole '
        "argument object.",
    )
    messages: Messages = Field(None, max_length=1000, description=MESSAGES_DESCRIPTION)

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Self:
        if raw and all(isinstance(key, str) and TOKEN.match(key) for key in raw):
            raw = {"crop_config": dict(raw)}  # the other system's call shape: the map is the arguments
        elif "crops" in raw and "crop_config" not in raw:
            raw = {("crop_config" if key == "crops" else key): value for key, value in raw.items()}
        return super().parse(raw)


class WebVisit(ToolArguments, defer_build=True):
    """web_visit."""

    url: UrlText = Field(description="The http(s) page to read.")


def condensed(page: Page) -> dict[str, Any]:
    """web_visit's answer (seed-contracts.md B): {"text": title, source and the opening of the main text}, within
    VISIT_CHARS characters (more only where the title and source alone take most of it), cut at a word."""
    head = [line for line in (page.title, f"Source: {page.sitename or page.final_url}") if line]
    opening = " ".join(page.content.split())
    room = max(VISIT_CHARS - sum(len(line) + 1 for line in head), VISIT_CHARS // 6)  # a long title or URL aside
    if len(opening) > room:
        opening = opening[: room - 2].rsplit(" ", 1)[0] + " …"
    return {"text": "\n".join([*head, opening])}


@dataclass(frozen=True)
class Alias:
    """One alias: its name and arguments, the tool it stands for and how its arguments become that tool's."""

    name: str
    target: str
    description: str
    arguments: type[ToolArguments]
    translate: Callable[[Any], dict[str, Any]]
    # the answer's JSON body from the target's typed answer (None: the target's own JSON output)
    answer: Callable[[Any], dict[str, Any]] | None = None


ALIAS_SETS: Mapping[str, tuple[Alias, ...]] = {
    "visual-agent": (
        Alias(
            "image_search_by_text", "image_search",
            "Find images by a text description. Returns a JSON string: images with title, page url, image url, "
            "thumbnail, size and source.",
            ImageSearchByText, lambda a: {"query": a.query, "limit": a.k},
        ),
        Alias(
            "reverse_image_search", "reverse_image_search",
            "Find where an image of the conversation appears on the web (pages, matching images). Returns a JSON "
            "string.",
            ReverseImageSearch, lambda a: {"image": a.image_token, "limit": a.k, "messages": a.messages},
        ),
        Alias(
            "crop_images_by_token", "crop_images",
            'Zoom into images of the conversation: {"<image_1>": [left, top, right, bottom]}. Each crop comes back '
            "as a new token <obs_i> with the image. Returns a JSON string mapping each token to its crop.",
            CropImagesByToken, lambda a: {"crops": a.crop_config, "messages": a.messages},
        ),
        Alias(
            "web_visit", "web_fetch",
            'Read a web page. Returns a JSON string {"text": ...}: the title, the source and the opening of the main '
            "text.",
            WebVisit, lambda a: {"url": a.url, "format": "text"}, condensed,
        ),
    ),
}  # fmt: skip


def alias_tools(alias_set: str | None) -> list[ToolDefinition]:
    """The set's aliases as tool definitions (aliases whose target is not in the registry left out)."""
    if alias_set is None:
        return []
    if alias_set not in ALIAS_SETS:
        raise InvalidInputError(f"unknown alias set {alias_set!r}", hint=f"Valid sets: {', '.join(ALIAS_SETS)}.")
    natives = {tool.name: tool for tool in TOOLS}
    return [_definition(alias, natives[alias.target]) for alias in ALIAS_SETS[alias_set] if alias.target in natives]


def _definition(alias: Alias, target: ToolDefinition) -> ToolDefinition:
    def prepare(arguments: ToolArguments, engines: Sequence[str]) -> Any:
        return target.prepare(target.arguments.parse(alias.translate(arguments)), engines)

    return ToolDefinition(
        name=alias.name, title=target.title, description=alias.description, arguments=alias.arguments,
        handler=_as_json(target.handler, alias.answer), prepare=prepare, price=target.price,
        annotations=target.annotations, alias_of=target.name,
    )  # fmt: skip


def _as_json(handler: Handler, body: Callable[[Any], dict[str, Any]] | None = None) -> Handler:
    async def answer(call: ToolCall, plan: Any) -> ToolResult:
        result = await handler(replace(call, output="json"), plan)
        return result if body is None else replace(result, text=to_text(body(result.value)))

    return answer


def exposed_tools(enabled: Collection[str] | None, alias_set: str | None) -> list[ToolDefinition]:
    """The tools a toolbox exposes: the enabled natives (all when `enabled` is None) and, with an alias set, its
    aliases (all, or those `enabled` names), an alias taking the place of a native tool of its name."""
    aliases = alias_tools(alias_set)
    alias_names = {tool.name for tool in aliases}
    known = {tool.name for tool in TOOLS} | alias_names
    unknown = sorted(set(enabled or ()) - known)
    if unknown:
        raise InvalidInputError(f"unknown tool {', '.join(unknown)}", hint=f"Valid tools: {', '.join(sorted(known))}.")
    # hidden natives (image_upload) are exposed too: callable by name, though no schema lists them (Toolbox.schemas)
    natives = [tool for tool in TOOLS if tool.name not in alias_names and (enabled is None or tool.name in enabled)]
    return natives + [tool for tool in aliases if enabled is None or tool.name in enabled]


def priced_as(tool: ToolDefinition) -> str:
    """The tool name a call is priced by: an alias costs what its target costs."""
    return tool.alias_of or tool.name
