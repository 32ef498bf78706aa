"""`webreach image add FILE`: a local image into a session's store, printing its token and URL (the CLI door of
the hidden image_upload tool; the file is read here, the tool stores it).

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
from typing import TYPE_CHECKING, Any, Protocol

import click

from webreach.errors import InvalidInputError
from webreach.local_files import read_local

if TYPE_CHECKING:  # the Gateway and the tools load when the command runs, not with the CLI (start-up)
    from webreach.gateway import Gateway
    from webreach.tools import ToolResult

Run = Callable[[bool, Callable[["Gateway"], Awaitable[Any]]], Any]


class CallTool(Protocol):
    """cli.py's _call_tool: a tool call through the pipeline as an agent, its error raised."""

    async def __call__(
        self,
        gateway: Gateway,
        agent: str | None,
        tool: str,
        arguments: dict[str, Any],
        *,
        session: str | None,
        as_json: bool = False,
        extra: dict[str, Any] | None = None,
    ) -> ToolResult: ...


def add_image_commands(cli: click.Group, run: Run, text: click.ParamType, call_tool: CallTool) -> None:  # type: ignore[type-arg]
    """Register `webreach image ...` on `cli`, running work through the CLI's `run`, its tool calls `call_tool`."""

    @cli.group()
    def image() -> None:
        """Images in a session's store (tokens for crop_images and reverse_image_search)."""

    @image.command(name="add")
    @click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
    @click.option("--session", type=text, help="Session the token belongs to (default: the default session).")
    @click.option("--json", "as_json", is_flag=True, help="Print the tool's JSON answer.")
    @click.option(
        "--agent", type=text, help="The agent to act as when accounts are enabled (default [accounts] agent)."
    )
    def add(file: Path, session: str | None, as_json: bool, agent: str | None) -> None:
        """Store FILE (JPEG, PNG, WebP, GIF or BMP) and print its new token and, with URL storage, its URL."""

        async def work(gateway: Gateway) -> None:
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
            arguments = {"image": base64.b64encode(data).decode("ascii")}
            result = await call_tool(gateway, agent, "image_upload", arguments, session=session, as_json=True)
            body = result.data or {}
            click.echo(
                json.dumps(body) if as_json else f"{body['token']} {body.get('url') or '(no URL: storage = inline)'}"
            )

        run(as_json, work)
