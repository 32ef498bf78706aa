"""The visual-agent alias set: other systems' tool names and shapes over the one definition of each tool, every
answer a JSON string, errors in the agent error shape naming the alias; off unless the operator switches it on."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from PIL import Image

from webreach import Gateway, Settings
from webreach.models import Page
from webreach.testing import FakeWeb
from webreach.tools import TOOL_NAMES, Toolbox
from webreach.tools.aliases import ALIAS_SETS, VISIT_CHARS, alias_tools, condensed

pytestmark = pytest.mark.network
ALIASES = {"image_search_by_text", "crop_images_by_token", "web_visit"}
# the alias of the reverse-search tool is in the set only once that tool is in the registry
if "reverse_image_search" in TOOL_NAMES:
    ALIASES.add("reverse_image_search")


@pytest.fixture
async def web() -> AsyncIterator[FakeWeb]:
    async with FakeWeb() as server:
        yield server


def settings(web: FakeWeb, **tools: Any) -> Settings:
    return Settings(
        fake_web=web.url,
        state={"backend": "memory"},
        read={"allow_cidrs": ["127.0.0.1/32"]},
        tools={"alias_set": "visual-agent", **tools},
    )


def picture_messages() -> list[dict[str, Any]]:
    out = io.BytesIO()
    Image.new("RGB", (80, 60), (10, 200, 30)).save(out, format="PNG")
    url = "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()
    return [{"role": "user", "content": [{"type": "text", "text": "<image_1>"},
                                         {"type": "image_url", "image_url": {"url": url}}]}]  # fmt: skip


async def test_aliases_are_off_by_default_and_listed_beside_the_tools_when_on(web: FakeWeb) -> None:
    async with Gateway.from_settings(Settings(fake_web=web.url, state={"backend": "memory"})) as gateway:
        plain = {schema["name"] for schema in Toolbox.over(gateway).schemas("openai-responses")}
    # the default surface is the three web tools: the image tools and image_upload only where enabled names them
    assert plain == {"web_search", "web_search_multi", "web_fetch"}
    async with Gateway.from_settings(settings(web)) as gateway:
        schemas = {schema["name"]: schema for schema in Toolbox.over(gateway).schemas("openai-responses")}
    assert set(schemas) == {"web_search", "web_search_multi", "web_fetch"} | ALIASES
    assert set(schemas["image_search_by_text"]["parameters"]["properties"]) == {"query", "k"}
    assert schemas["image_search_by_text"]["parameters"]["properties"]["k"]["maximum"] == 20
    assert set(schemas["web_visit"]["parameters"]["properties"]) == {"url"}


def test_every_alias_maps_onto_a_registered_tool_with_its_plan_and_handler() -> None:
    for alias in ALIAS_SETS["visual-agent"]:
        definitions = {tool.name: tool for tool in alias_tools("visual-agent")}
        if alias.target not in TOOL_NAMES:
            assert alias.name not in definitions  # left out until its tool exists
            continue
        assert definitions[alias.name].alias_of == alias.target


async def test_image_search_by_text_answers_a_json_string_with_k_images(web: FakeWeb) -> None:
    async with Gateway.from_settings(settings(web)) as gateway:
        tools = Toolbox.over(gateway)
        found = await tools.call("image_search_by_text", {"query": "red panda", "k": 1}, output="compact")
        too_many = await tools.call("image_search_by_text", {"query": "red panda", "k": 21}, output="compact")
    assert found.is_json and not found.is_error
    body = json.loads(found.text)
    assert len(body["results"]) == 1 and body["results"][0]["image_url"].startswith("https://")
    error = json.loads(too_many.text)
    assert error["status"] == "error" and error["tool"] == "image_search_by_text" and "k" in error["message"]


async def test_crop_images_by_token_takes_the_bare_token_map(web: FakeWeb) -> None:
    async with Gateway.from_settings(settings(web)) as gateway:
        tools = Toolbox.over(gateway)
        await tools.call("crop_images", {"messages": picture_messages(), "crops": {"<image_1>": [0, 0, 40, 30]}})
        cropped = await tools.call("crop_images_by_token", {"<image_1>": [0.5, 0.5, 1, 1]}, output="compact")
        wrapped = await tools.call("crop_images_by_token", {"crops": {"<obs_2>": [0, 0, 20, 15]}})
        unknown = await tools.call("crop_images_by_token", {"<image_7>": [0, 0, 10, 10]})
    entry = json.loads(cropped.text)["crops"]["<image_1>"]
    assert (entry["token"], entry["width"], entry["height"]) == ("<obs_2>", 40, 30)
    assert [image.token for image in cropped.images] == ["<obs_2>"]
    assert json.loads(wrapped.text)["crops"]["<obs_2>"]["token"] == "<obs_3>"
    # no crop made: the call is an error naming the box (issue 35)
    assert unknown.is_error and json.loads(unknown.text)["code"] == "unknown_image"
    assert json.loads(unknown.text)["message"].startswith("no crop was made: <image_7> [0, 0, 10, 10]: ")


async def test_web_visit_reads_a_page_as_json(web: FakeWeb) -> None:
    async with Gateway.from_settings(settings(web)) as gateway:
        tools = Toolbox.over(gateway)
        page = await tools.call("web_visit", {"url": f"{web.url}/_pages/article"}, output="compact")
        refused = await tools.call("web_visit", {"url": "http://169.254.169.254/latest/meta-data/"})
    body = json.loads(page.text)
    assert list(body) == ["text"]  # seed-contracts.md B: {"text": condensed title, source and main text}
    lines = body["text"].splitlines()
    assert lines[1].startswith("Source: ") and len(lines) == 3 and lines[2]
    assert len(body["text"]) <= VISIT_CHARS and "\n" not in lines[2]
    error = json.loads(refused.text)
    assert error["status"] == "error" and error["tool"] == "web_visit" and error["code"] == "url_not_allowed"


async def test_enabled_may_name_aliases_alone(web: FakeWeb) -> None:
    async with Gateway.from_settings(settings(web, enabled=["web_visit", "image_search_by_text"])) as gateway:
        tools = Toolbox.over(gateway)
        names = [schema["name"] for schema in tools.schemas("mcp")]
        hidden = await tools.call("web_fetch", {"url": f"{web.url}/_pages/article"})
    assert names == ["image_search_by_text", "web_visit"]
    assert hidden.is_error and hidden.error is not None and hidden.error.code == "invalid_input"


async def test_reverse_image_search_alias_takes_image_token_and_k(web: FakeWeb) -> None:
    images = {"reverse_backends": ["tineye"], "reverse_settings": {"tineye": {"rate_per_minute": 600}}}
    async with Gateway.from_settings(
        settings(web).model_copy(update={"images": Settings(images=images).images})
    ) as gateway:
        tools = Toolbox.over(gateway)
        schema = {s["name"]: s for s in tools.schemas("openai-responses")}["reverse_image_search"]
        await tools.call("crop_images", {"messages": picture_messages(), "crops": {"<image_1>": [0, 0, 40, 30]}})
        found = await tools.call("reverse_image_search", {"image_token": "<image_1>", "k": 2}, output="compact")
        too_many = await tools.call("reverse_image_search", {"image_token": "<image_1>", "k": 11})
        unknown = await tools.call("reverse_image_search", {"image_token": "<image_9>"})
    assert set(schema["parameters"]["properties"]) == {"image_token", "k", "messages"}  # in the native's place
    assert found.is_json and not found.is_error
    body = json.loads(found.text)
    assert body["backend"] == "tineye" and body["token"] == "<image_1>" and 1 <= len(body["results"]) <= 2
    assert all(hit["page_url"] or hit["image_url"] for hit in body["results"])
    error = json.loads(too_many.text)
    assert error["status"] == "error" and error["tool"] == "reverse_image_search" and "k" in error["message"]
    assert json.loads(unknown.text)["code"] == "unknown_image"


async def test_the_rollout_gateways_calls_carry_the_conversation(web: FakeWeb) -> None:
    """seed-contracts.md B: reverse_image_search(image_token, k, messages) and crop_images_by_token(crop_config,
    messages) name the conversation's images in the same call, several boxes in one crop call."""
    images = {"reverse_backends": ["tineye"], "reverse_settings": {"tineye": {"rate_per_minute": 600}}}
    async with Gateway.from_settings(
        settings(web).model_copy(update={"images": Settings(images=images).images})
    ) as gateway:
        tools = Toolbox.over(gateway)
        schemas = {s["name"]: s for s in tools.schemas("openai-responses")}
        crop_config = {"<image_1>": [0, 0, 40, 30], "<obs_9>": [0, 0, 1, 1]}
        cropped = await tools.call("crop_images_by_token", {"crop_config": crop_config, "messages": picture_messages()})
        found = await tools.call(
            "reverse_image_search", {"image_token": "<obs_1>", "k": 1, "messages": picture_messages()}
        )
    assert set(schemas["crop_images_by_token"]["parameters"]["properties"]) == {"crop_config", "messages"}
    crops = json.loads(cropped.text)["crops"]
    assert crops["<image_1>"]["token"] == "<obs_1>" and (crops["<image_1>"]["width"], crops["<image_1>"]["height"]) == (
        40,
        30,
    )
    assert "error" in crops["<obs_9>"]  # one box failing does not fail the others
    body = json.loads(found.text)
    assert not found.is_error and body["token"] == "<obs_1>" and len(body["results"]) == 1


def test_web_visit_text_keeps_the_opening_within_its_budget() -> None:
    page = Page.model_construct(title="T", sitename=None, final_url="https://a.example/x", content="word\n " * 2000)
    text = condensed(page)["text"]
    assert text.startswith("T\nSource: https://a.example/x\nword word") and text.endswith(" …")
    assert len(text) <= VISIT_CHARS and "\n" not in text.split("\n", 2)[2]
