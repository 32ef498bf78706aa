"""How a CLI command runs: against a fresh Gateway, its tool calls through the pipeline, its typed errors turned
into output and an exit code (frontends/_errors.py), never a traceback; and the checked text type of its options.

Every command module (cli.py, _cli_search.py, _cli_read.py and the _cli_* helpers they pass these to) runs its work
through `run`; the Gateway, the tools and the settings load inside it, not with the CLI (start-up).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from webreach.errors import NotConfiguredError, WebreachError, error_body
from webreach.frontends._cli_hints import error_text
from webreach.frontends._cli_input import load_settings, text_problem
from webreach.frontends._errors import exit_code

if TYPE_CHECKING:  # the Gateway, the tools and the settings load inside the commands that use them (start-up)
    from webreach.config import Settings
    from webreach.gateway import Gateway, ReadOverrides
    from webreach.tools import ToolResult

T = TypeVar("T")


class Text(click.ParamType):  # type: ignore[type-arg]  # generic in click 8.2+, not in 8.1
    """Text refused as a usage error (exit 2) when _cli_input.text_problem finds one."""

    name = "text"

    def __init__(self, *, ascii: bool = False) -> None:
        self.ascii = ascii

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        problem = text_problem(value, ascii=self.ascii) if isinstance(value, str) else None
        return value if problem is None else self.fail(problem, param, ctx)


TEXT = Text()

# the packages of the `server` extra: a door that needs one that is missing says how to install it
SERVER_PACKAGES = frozenset({"mcp", "starlette", "uvicorn"})


def server_settings() -> tuple[Settings, Settings]:
    """Settings for a long-running door, checked as every other command's are before it starts: the loaded ones,
    to build the door's Gateway from, never the checking gateway's merged ones (a Gateway built from those would
    rank the console's values as arguments and stop following the console: issue 35); and the merged ones, whose
    secrets (keys stored in the console) the server's log masks too."""

    async def checked(gateway: Gateway) -> tuple[Settings, Settings]:
        return gateway.config.stored.base, gateway.settings

    return run(False, checked, short=False)


def extra_missing(exc: ImportError, command: str) -> NotConfiguredError:
    """The error for a door whose optional packages are not installed; any other import error is a bug."""
    package = (exc.name or "").partition(".")[0]
    if package not in SERVER_PACKAGES:
        raise exc
    return NotConfiguredError(
        f"`webreach {command}` needs the optional package {package!r}, which is not installed",
        hint="Install the server extra: pip install 'webreach[server]'",
    )


def run(
    as_json: bool, work: Callable[[Gateway], Awaitable[T]], reads: ReadOverrides | None = None, *, short: bool = True
) -> T:
    """Run `work` against a fresh gateway (its reads with `reads`, the operator's overrides); typed errors become
    output and an exit code, never a traceback. `short`: a one-shot command, whose search cache persists
    (Settings.for_the_command_line); a server's settings (short=False) are left as loaded."""

    from webreach.gateway import Gateway

    async def main() -> T:
        settings = load_settings().for_the_command_line() if short else load_settings()
        async with Gateway.from_settings(settings, read_overrides=reads) as gateway:
            gateway.check_engines()
            return await work(gateway)

    try:
        return asyncio.run(main())
    except WebreachError as error:
        fail(error, as_json)
    except ToolFailed as failed:
        fail(failed.error, as_json, tool=failed.tool, body=failed.body)
    except KeyboardInterrupt:
        sys.exit(130)


class ToolFailed(Exception):
    """A command's tool call failed (its checks included): the error, the tool it is the body of, and the body the
    pipeline answered with (its cost included when metered), when the call got that far."""

    def __init__(self, tool: str, error: WebreachError, body: dict[str, Any] | None = None) -> None:
        super().__init__(tool, error)
        self.tool = tool
        self.error = error
        self.body = body


@contextlib.contextmanager
def calling(tool: str) -> Iterator[None]:
    """Errors inside are `tool`'s: the --json body names it, as the body an agent gets for the same call does."""
    try:
        yield
    except WebreachError as error:
        raise ToolFailed(tool, error) from error


def fail(
    error: WebreachError, as_json: bool, *, tool: str | None = None, body: dict[str, Any] | None = None
) -> NoReturn:
    """The CLI's envelope of an error: with --json the agent body (errors.error_body, or the `body` a tool call
    answered with) on stdout, else a readable line on stderr; the exit code of its code either way."""
    if as_json:
        click.echo(json.dumps(body or error_body(error, tool=tool), ensure_ascii=False))
    else:
        click.echo(error_text(error), err=True)
    sys.exit(exit_code(error))


AGENT_OPTION = click.option(
    "--agent", type=TEXT, help="The agent to act as when accounts are enabled (default [accounts] agent)."
)


async def call_tool(
    gateway: Gateway,
    agent: str | None,
    tool: str,
    arguments: dict[str, Any],
    *,
    session: str | None,
    as_json: bool = False,
    extra: dict[str, Any] | None = None,
) -> ToolResult:
    """Call `tool` as every door does, through the pipeline (tools/pipeline.py: Toolbox.run), as `agent` (default
    [accounts] agent, as the stdio server): the same session rule, profile checks, metering and idempotency. Its
    cost line goes to stderr; a failed call raises its error (after the cost line of a charged failure)."""
    from webreach.tools import CallContext, Toolbox, account_policies, cost_line

    toolbox = Toolbox.over(gateway, policies=account_policies(gateway.accounts))
    context = CallContext(
        tool=tool,
        arguments={key: value for key, value in arguments.items() if value is not None},
        session=session,
        output="json" if as_json else "compact",
        caller=agent or gateway.settings.accounts.agent,
        extra={key: value for key, value in (extra or {}).items() if value is not None} or None,
    )
    result = await toolbox.run(context)
    if result.cost is not None:
        click.echo(cost_line(result.cost), err=True)
    if result.error is not None:
        raise ToolFailed(tool, result.error, result.data if as_json else None)
    return result


def split_names(value: str | None) -> list[str] | None:
    return [part.strip() for part in value.split(",") if part.strip()] if value else None
