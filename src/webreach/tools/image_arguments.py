"""The image tools' shared argument types, published in shapes a strict model can send (docs/decisions.md, issue 41).

OpenAI's strict function calling takes no object with free keys (every object's properties are declared and
required), so two arguments are published in such a shape while the parser still takes the older one too:
- Crops: a list of {"image": "<image_1>", "box": [left, top, right, bottom]}; the map {"<image_1>": [...]} is
  still taken (the visual-agent contract's shape, and every caller written before).
- Messages: chat messages whose declared fields are the ones images/messages.py reads (role, content; a content
  part's type, text, image_url, source); other keys are allowed and ignored. Optional fields are nullable, so a
  converter that makes every property required (openai-agents) still leaves a way to leave one out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, WithJsonSchema

from webreach.defaults import MAX_CROPS
from webreach.tools.arguments import Coordinate

TOKEN_PATTERN = r"^<(image|obs)_[1-9][0-9]{0,8}>$"
Token = Annotated[str, Field(pattern=TOKEN_PATTERN)]
Box = Annotated[list[Coordinate], Field(min_length=4, max_length=4)]

_TOKEN_SCHEMA = {"type": "string", "pattern": TOKEN_PATTERN}
_BOX_SCHEMA = {"type": "array", "items": {"type": "number"}, "minItems": 4, "maxItems": 4}
CROP_ITEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"image": _TOKEN_SCHEMA, "box": _BOX_SCHEMA},
    "required": ["image", "box"],
    "additionalProperties": False,
}
_TEXT_OR_NULL = {"type": ["string", "null"]}
_SOURCE_SCHEMA = {
    "type": "object",
    "properties": {
        "type": {"type": "string"},
        "media_type": _TEXT_OR_NULL,
        "data": _TEXT_OR_NULL,
        "url": _TEXT_OR_NULL,
    },
    "required": ["type"],
}
_PART_SCHEMA = {
    "type": "object",
    "properties": {
        "type": {"type": "string"},
        "text": _TEXT_OR_NULL,
        "image_url": {
            "anyOf": [
                {"type": "string"},
                {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]},
                {"type": "null"},
            ]
        },
        "source": {"anyOf": [_SOURCE_SCHEMA, {"type": "null"}]},
    },
    "required": ["type"],
}
MESSAGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "role": _TEXT_OR_NULL,
        "content": {"anyOf": [{"type": "string"}, {"type": "array", "items": _PART_SCHEMA}]},
    },
    "required": ["content"],
}


def crops_as_map(value: Any) -> Any:
    """A crop list ([{"image": token, "box": [...]}, ...]) as the token -> box map the crop service takes; a map (or
    anything else) unchanged, for validation to judge."""
    if not isinstance(value, list):
        return value
    crops: dict[Any, Any] = {}
    for item in value:
        if not isinstance(item, Mapping) or set(item) != {"image", "box"}:
            raise ValueError('each crop must be {"image": "<image_1>", "box": [left, top, right, bottom]}')
        if item["image"] in crops and crops[item["image"]] != item["box"]:  # the same crop twice is one crop
            raise ValueError(f"{item['image']} has two boxes: give one box per image in a call")
        crops[item["image"]] = item["box"]
    return crops


# a crop argument: published as a list of {image, box}, taken as that list or a token -> box map
Crops = Annotated[
    dict[Token, Box],
    BeforeValidator(crops_as_map),
    WithJsonSchema({"type": "array", "items": CROP_ITEM_SCHEMA, "minItems": 1, "maxItems": MAX_CROPS}),
]
Messages = Annotated[list[dict[str, Any]], WithJsonSchema({"type": "array", "items": MESSAGE_SCHEMA, "maxItems": 1000})]
