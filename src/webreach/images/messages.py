"""Images named in a conversation: a `<image_k>` / `<obs_i>` text entry immediately followed by an image entry.

Both message shapes are read (docs/decisions.md, issue 14):
- OpenAI chat: content parts {"type": "text", "text": "<image_1>"} then {"type": "image_url", "image_url":
  {"url": "data:image/png;base64,..." or "https://..."}} (a bare string image_url too; Responses-API
  "input_text"/"input_image" parts with "image_url" as a string likewise).
- Anthropic: {"type": "text", "text": "<image_1>"} then {"type": "image", "source": {"type": "base64",
  "media_type": ..., "data": ...}} or {"type": "url", "url": ...}.
A text entry names an image when, stripped, it is exactly one token, or it ends with one ("Here is <image_1>");
an image entry with no token before it is skipped (nothing could refer to it). Parts are read across messages in
order, so the token may close one message and the image open the next. Only the shape is read here: bytes are
decoded and URLs fetched (through the guard) by the caller.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from webreach.errors import InvalidInputError
from webreach.images.base64_pieces import b64decode

TRAILING_TOKEN = re.compile(r"(<(?:image|obs)_[1-9][0-9]{0,8}>)\s*$")
MAX_PARTS = 10_000


@dataclass(frozen=True)
class NamedImage:
    """An image the conversation names: its token and either its bytes (inline) or its http(s) URL."""

    token: str
    data: bytes | None = None
    url: str | None = None


def named_images(messages: Sequence[Any]) -> list[NamedImage]:
    """Every token-then-image pair in `messages` (OpenAI or Anthropic shape), in order; a later pair for the same
    token wins. InvalidInputError for a named image entry that cannot be read (bad base64, unsupported URL)."""
    if not isinstance(messages, list | tuple):
        raise InvalidInputError("messages must be a list of chat messages")
    found: dict[str, NamedImage] = {}
    pending: str | None = None
    for part in _parts(messages):
        kind = part.get("type")
        if kind in ("text", "input_text"):
            match = TRAILING_TOKEN.search(str(part.get("text") or ""))
            pending = match.group(1) if match else None
            continue
        source = _image_source(part)
        if source is not None and pending is not None:
            found.pop(pending, None)
            found[pending] = _named(pending, source)
        pending = None
    return list(found.values())


def _parts(messages: Sequence[Any]) -> Iterator[dict[str, Any]]:
    count = 0
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        entries = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for entry in entries if isinstance(entries, list) else ():
            count += 1
            if count > MAX_PARTS:
                raise InvalidInputError(f"messages hold more than {MAX_PARTS:,} content parts")
            if isinstance(entry, dict):
                yield entry


def _image_source(part: dict[str, Any]) -> str | tuple[str, str] | None:
    """A URL (str) or (media type, base64) for an image part; None when the part is not an image."""
    kind = part.get("type")
    if kind in ("image_url", "input_image"):
        value = part.get("image_url")
        url = value.get("url") if isinstance(value, dict) else value
        return url if isinstance(url, str) else ""
    if kind == "image":
        source = part.get("source")
        if not isinstance(source, dict):
            return ""
        if source.get("type") == "base64":
            return (str(source.get("media_type") or ""), str(source.get("data") or ""))
        url = source.get("url")
        return url if isinstance(url, str) else ""
    return None


def _named(token: str, source: str | tuple[str, str]) -> NamedImage:
    if isinstance(source, tuple):
        return NamedImage(token, data=_base64(token, source[1]))
    if source.startswith("data:"):
        header, _, payload = source.partition(",")
        if not header.endswith(";base64"):
            raise InvalidInputError(f"{token}: only base64 data URLs are supported")
        return NamedImage(token, data=_base64(token, payload))
    if source.lower().startswith(("http://", "https://")):
        return NamedImage(token, url=source)
    raise InvalidInputError(f"{token}: the image is neither a base64 data URL nor an http(s) URL")


def _base64(token: str, payload: str) -> bytes:
    try:
        return b64decode(payload)
    except (binascii.Error, ValueError):
        raise InvalidInputError(f"{token}: the image's base64 data is malformed") from None
