"""Tokens named in both message shapes (OpenAI and Anthropic), and the malformed cases."""

from __future__ import annotations

import base64

import pytest

from webreach.errors import InvalidInputError
from webreach.images.messages import NamedImage, named_images

PNG = b"\x89PNG fake bytes"
B64 = base64.b64encode(PNG).decode()


def test_openai_shape() -> None:
    messages = [
        {"role": "system", "content": "You look at images."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "<image_1>"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{B64}"}},
                {"type": "text", "text": "and the second one: <image_2>"},
                {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg", "detail": "high"}},
                {"type": "image_url", "image_url": {"url": "https://example.com/unnamed.jpg"}},
            ],
        },
    ]
    assert named_images(messages) == [
        NamedImage("<image_1>", data=PNG),
        NamedImage("<image_2>", url="https://example.com/cat.jpg"),
    ]


def test_anthropic_shape_across_messages() -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "<image_1>"}]},
        {
            "role": "user",
            "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": B64}}],
        },
        {"role": "assistant", "content": "<obs_3>"},
        {"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "https://e.com/a.png"}}]},
    ]
    assert named_images(messages) == [
        NamedImage("<image_1>", data=PNG),
        NamedImage("<obs_3>", url="https://e.com/a.png"),
    ]


def test_a_token_not_directly_before_an_image_names_nothing() -> None:
    messages = [{"role": "user", "content": [
        {"type": "text", "text": "<image_1>"}, {"type": "text", "text": "look"},
        {"type": "image_url", "image_url": {"url": "https://e.com/a.png"}},
    ]}]  # fmt: skip
    assert named_images(messages) == []


@pytest.mark.parametrize(
    "url", ["data:image/png;base64,@@@", "data:image/svg+xml,<svg/>", "file:///etc/passwd", "ftp://e.com/a.png"]
)
def test_unreadable_named_images_are_typed_errors(url: str) -> None:
    messages = [{"role": "user", "content": [
        {"type": "text", "text": "<image_1>"}, {"type": "image_url", "image_url": {"url": url}},
    ]}]  # fmt: skip
    with pytest.raises(InvalidInputError):
        named_images(messages)


def test_messages_must_be_a_list() -> None:
    with pytest.raises(InvalidInputError):
        named_images("hello")  # type: ignore[arg-type]
