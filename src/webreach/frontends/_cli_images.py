"""`webreach image add|search|reverse|crop`: the image tools from the command line, each a tool call through the
same pipeline as MCP and REST (_cli_run.py's call_tool: session, profile checks, metering).

`add FILE` stores a local image in a session's store, printing its token and URL (the CLI door of the hidden
image_upload tool; the file is read here, the tool stores it); `search QUERY` is image_search; `reverse IMAGE`
is reverse_image_search, IMAGE a token, an http(s) URL or a local file; `crop TOKEN=L,T,R,B ...` is crop_images
over tokens of the session, printing each new token (and its URL with URL storage).

The file is read as every local file the CLI takes (local_files.read_local, in a worker thread): capped at the
image limit whatever its size claims, and a FIFO or device never hangs the command (no writer reads as empty,
a silent writer ends after an idle time), while a pipe that sends an image (`image add <(curl ...)`) still works.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from webreach.defaults import TOOL_LIMITS
from webreach.errors import InvalidInputError
from webreach.frontends._cli_run import AGENT_OPTION, TEXT, call_tool, run
from webreach.local_files import read_local

if TYPE_CHECKING:  # the Gateway and the tools load when the command runs, not with the CLI (start-up)
    from webreach.gateway import Gateway


async def _image_file(gateway: Gateway, file: Path) -> str:
    """FILE's bytes, base64-encoded, read with the image limit as the cap (a FIFO or device never hangs)."""
    limit = gateway.settings.images.max_input_bytes
    try:
        data = await asyncio.to_thread(read_local, file, limit)
    except OSError as exc:
        raise InvalidInputError(
            f"cannot read {file}: {exc.strerror or exc}", hint="Pass a readable image file."
        ) from None
    if len(data) > limit:
        raise InvalidInputError(f"{file} is over the {limit:,}-byte image limit")
    if not data:
        raise InvalidInputError(f"{file} is empty (a FIFO or device without data?)", hint="Pass an image file.")
    return base64.b64encode(data).decode("ascii")


def _box(spec: str) -> tuple[str, list[str]]:
    """TOKEN=L,T,R,B as the token and its four numbers (as text: the tool reads and checks them)."""
    token, _, box = spec.partition("=")
    numbers = [part.strip() for part in box.split(",")]
    if not token.strip() or len(numbers) != 4 or not all(numbers):
        raise InvalidInputError(
            f"cannot read the crop {spec!r}",
            hint="Write each crop as TOKEN=LEFT,TOP,RIGHT,BOTTOM, e.g. '<image_1>=0,0,0.5,0.5'.",
        )
    return token.strip(), numbers


def add_image_commands(cli: click.Group) -> None:
    """Register `webreach image ...` on `cli`, its tool calls through _cli_run.py's `call_tool`."""

    @cli.group()
    def image() -> None:
        """Images in a session's store (tokens for crop_images and reverse_image_search)."""

    @image.command(name="add")
    @click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
    @click.option("--session", type=TEXT, help="Session the token belongs to (default: the default session).")
    @click.option("--json", "as_json", is_flag=True, help="Print the tool's JSON answer.")
    @AGENT_OPTION
    def add(file: Path, session: str | None, as_json: bool, agent: str | None) -> None:
        """Store FILE (JPEG, PNG, WebP, GIF or BMP) and print its new token and, with URL storage, its URL."""

        async def work(gateway: Gateway) -> None:
            arguments = {"image": await _image_file(gateway, file)}
            result = await call_tool(gateway, agent, "image_upload", arguments, session=session, as_json=True)
            body = result.data or {}
            click.echo(
                json.dumps(body) if as_json else f"{body['token']} {body.get('url') or '(no URL: storage = inline)'}"
            )

        run(as_json, work)

    _add_tool_commands(image)


def _add_tool_commands(image: click.Group) -> None:
    """`image search`, `image reverse` and `image crop`: image_search, reverse_image_search and crop_images."""
    session_option = click.option("--session", type=TEXT, help="Session of the tokens (default: the default session).")
    json_option = click.option("--json", "as_json", is_flag=True, help="Print the tool's JSON answer.")

    def call(tool: str, build: Callable[[Gateway], Awaitable[dict[str, Any]]], options: dict[str, Any]) -> None:
        """Run `tool` with the arguments `build` makes (inside the run, so its errors are typed output too)."""
        session, as_json, agent = options.pop("session"), options.pop("as_json"), options.pop("agent")

        async def work(gateway: Gateway) -> None:
            arguments = {**await build(gateway), **options}
            result = await call_tool(gateway, agent, tool, arguments, session=session, as_json=as_json)
            click.echo(result.text)

        run(as_json, work)

    @image.command(name="search")
    @click.argument("query", type=TEXT)
    @click.option("-e", "--engine", type=TEXT, default="auto", show_default=True, help="auto, multi or an engine.")
    @click.option("--engines", type=TEXT, help="Comma-separated image engines: the order for auto, the set for multi.")
    @click.option("-n", "--limit", type=int, default=TOOL_LIMITS["image_search"].default, show_default=True)
    @click.option("--size", type=TEXT, help="small, medium, large or wallpaper.")
    @click.option("--safesearch", type=TEXT, help="off, moderate or strict.")
    @session_option
    @json_option
    @AGENT_OPTION
    def search(query: str, engines: str | None, **options: Any) -> None:
        """Find images by text (image_search): each with its image URL, page and size."""
        listed = [part.strip() for part in engines.split(",") if part.strip()] if engines else None

        async def build(_: Gateway) -> dict[str, Any]:
            return {"query": query, "engines": listed}

        call("image_search", build, options)

    @image.command(name="reverse")
    @click.argument("image_ref", metavar="IMAGE", type=TEXT)
    @click.option("-n", "--limit", type=int, default=TOOL_LIMITS["reverse_image_search"].default, show_default=True)
    @click.option("--backend", type=TEXT, help="auto (fallback across backends) or one backend.")
    @session_option
    @json_option
    @AGENT_OPTION
    def reverse(image_ref: str, **options: Any) -> None:
        """Find pages showing IMAGE (reverse_image_search): a token such as <image_1>, an http(s) URL or a file."""
        path = Path(image_ref)
        named = image_ref.startswith("<") or "://" in image_ref or not path.exists()

        async def build(gateway: Gateway) -> dict[str, Any]:
            return {"image": image_ref if named else await _image_file(gateway, path)}

        call("reverse_image_search", build, options)

    @image.command(name="crop")
    @click.argument("boxes", metavar="TOKEN=L,T,R,B...", nargs=-1, required=True, type=TEXT)
    @click.option("--units", type=click.Choice(["auto", "pixels", "relative"]), default="auto", show_default=True)
    @session_option
    @json_option
    @AGENT_OPTION
    def crop(boxes: tuple[str, ...], **options: Any) -> None:
        """Crop images of the session by token (crop_images), printing each crop's new token."""

        async def build(_: Gateway) -> dict[str, Any]:
            return {"crops": dict(_box(spec) for spec in boxes)}

        call("crop_images", build, options)
