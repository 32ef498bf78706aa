"""The `webreach` command group and its doors (engines, tools, mcp, serve, fakeweb), run by frontends/cli.py; search
and parse (_cli_search.py), fetch and extract (_cli_read.py) and the rest are added from their modules. Parse -> Gateway
-> render, nothing else; how a command runs is _cli_run.py's.

Exit codes: 0 ok, 2 invalid input, 3 refused by policy, 4 upstream failure (frontends/_errors.py has the table).
With --json an error is printed as JSON on stdout (the same body agents get), argument errors included;
otherwise it is a readable line on stderr. Nothing a user can cause ends in a traceback: a bad config file or
WEBREACH_* variable, a missing optional extra, a port in use and an unreadable file are typed errors with an exit
code like any other.

Input is checked where it enters (frontends/_cli_input.py): text options refuse invalid UTF-8 and control
characters (exit 2), files are read with a byte cap, a bad setting names itself.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, NoReturn

import click

from webreach.errors import InvalidInputError, WebreachError, error_body
from webreach.frontends._cli_agents import agents
from webreach.frontends._cli_engine_reset import reset_engines
from webreach.frontends._cli_engines import add_engine_commands
from webreach.frontends._cli_images import add_image_commands
from webreach.frontends._cli_input import load_settings
from webreach.frontends._cli_progress import log_options
from webreach.frontends._cli_read import extract, fetch
from webreach.frontends._cli_run import AGENT_OPTION, TEXT, extra_missing, fail, run, server_settings
from webreach.frontends._cli_search import parse, search
from webreach.frontends._errors import EXIT_INVALID_INPUT, cannot_listen

if TYPE_CHECKING:  # the Gateway, the tools, rich and the settings load inside the commands that use them (start-up)
    from webreach.gateway import Gateway

PORT = click.IntRange(0, 65535)


def _wants_json(argv: Sequence[str]) -> bool:
    """Whether the arguments ask for JSON output (--json, or --format/--output json), before any "--"."""
    args = list(argv)
    args = args[: args.index("--")] if "--" in args else args
    return "--json" in args or any(
        a in ("--format=json", "--output=json") or (a in ("--format", "--output") and b == "json")
        for a, b in itertools.pairwise([*args, ""])
    )


def _usage_failed(exc: click.UsageError, as_json: bool) -> NoReturn:
    """A command line click could not parse: the invalid_input JSON when JSON was asked for, else click's usage."""
    if as_json:
        where = exc.ctx.command_path if exc.ctx is not None else "webreach"
        error = InvalidInputError(exc.format_message(), hint=f"See `{where} --help`.")
        click.echo(json.dumps(error_body(error), ensure_ascii=False))
    else:
        exc.show()
    sys.exit(EXIT_INVALID_INPUT)


class _Cli(click.Group):
    """The command group, run with click's standalone mode off so argument errors can honour --json."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        if not standalone_mode:
            return super().main(argv, prog_name, complete_var, False, **extra)
        try:
            code = super().main(argv, prog_name, complete_var, False, **extra)
        except click.UsageError as exc:
            _usage_failed(exc, _wants_json(argv))
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)  # --help and --version return 0


@click.group(cls=_Cli, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="webreach")
def cli() -> None:
    """webreach: web search and reading for AI agents."""


@cli.command(name="engines")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.option("--markdown", is_flag=True, help="Print the engine catalogue (docs/engines.md).")
@click.option("--wide", is_flag=True, help="Also show each engine's index, key state and parser health.")
@click.option(
    "--reset",
    "reset",
    multiple=True,
    type=TEXT,
    help="Close this engine's circuit breaker (forget a suspension; 'all': every engine's); a running server"
    " picks it up too.",
)
def list_engines(as_json: bool, markdown: bool, wide: bool, reset: tuple[str, ...]) -> None:
    """List engines with kind, key status and breaker state."""
    from webreach.frontends import _render

    async def work(gateway: Gateway) -> None:
        if reset:
            for line in await reset_engines(gateway, reset):
                click.echo(line, err=True)
        if markdown:
            click.echo(_render.engine_catalog(gateway.engines.statuses()), nl=False)
            return
        _render.engine_statuses(gateway.engines.statuses(), as_json, wide=wide)

    run(as_json, work)


@cli.command()
@click.option(
    "--format",
    "dialect",
    type=click.Choice(["openai", "openai-responses", "anthropic", "mcp"]),
    default="openai",
    show_default=True,
)
@click.option(
    "--strict",
    is_flag=True,
    help='Strict shape in every format: all properties required, optional ones nullable; "strict": true where the '
    "format has the flag (all but mcp) and the schema passes strict mode's rules.",
)
def tools(dialect: Literal["openai", "openai-responses", "anthropic", "mcp"], strict: bool) -> None:
    """Print the agent tools' schemas, generated from their single definitions."""
    from webreach.tools import Toolbox

    async def work(gateway: Gateway) -> None:
        schemas = Toolbox.over(gateway).schemas(dialect, strict=strict)
        click.echo(json.dumps(schemas, indent=2, ensure_ascii=False))

    run(True, work)


@cli.command()
@click.option(
    "--session", type=TEXT, help="Session for this client's refs (default: the state file's default session)."
)
@AGENT_OPTION
@click.option(
    "--profile", type=TEXT, help="Serve a drop-in profile's tools instead ([tools] profile), e.g. rollout-gateway."
)
def mcp(session: str | None, agent: str | None, profile: str | None) -> None:
    """Serve the tools over MCP on stdin/stdout (for Claude Desktop, Claude Code, Cursor ...)."""
    try:
        from webreach.frontends.mcp import run_stdio
    except ImportError as exc:
        fail(extra_missing(exc, "mcp"), False)
    if session is not None:
        from webreach.tools import store_session

        try:
            store_session(session)  # else every call of the client would fail on it
        except WebreachError as error:
            fail(error, False)
    try:  # loaded, without the checking gateway of `server_settings`: the server answers `initialize` first and
        settings = load_settings()  # then opens its gateway, checking the engines (frontends/mcp.py)
    except WebreachError as error:
        fail(error, False)
    if profile is not None:
        from webreach.tools.drop_in import profile_tools

        try:
            profile_tools(profile)  # an unknown name is refused with the valid ones
        except WebreachError as error:
            fail(error, False)
        settings = settings.model_copy(update={"tools": settings.tools.model_copy(update={"profile": profile})})
    try:
        run_stdio(settings, session=session, agent=agent)
    except WebreachError as error:  # the tools could not open (a bad configuration): said to every request, and here
        fail(error, False)


@cli.command()
@click.option("--host", type=TEXT, help="Address to bind (default [server] host, 127.0.0.1).")
@click.option("--port", type=PORT, help="Port (default [server] port, 9090; 0 picks a free one).")
@click.option(
    "--workers", type=click.IntRange(1, 64), default=1, show_default=True,
    help="Server processes sharing the port and the configured state (not the memory backend).",
)  # fmt: skip
@log_options
def serve(host: str | None, port: int | None, workers: int, **logging: Any) -> None:
    """Serve MCP (streamable HTTP at /mcp) and the REST API (/v1/...) on one port."""
    from webreach.frontends._workers import metrics_directory

    with metrics_directory(workers):  # before prometheus-client loads: it picks its value class on import
        try:
            from webreach.frontends._serve_logs import LogOptions, secrets_of
            from webreach.frontends.http import run_http
        except ImportError as exc:
            fail(extra_missing(exc, "serve"), False)
        settings, merged = server_settings()
        port = settings.server.port if port is None else port
        try:
            options = LogOptions(**logging)
            run_http(
                settings, host=host or settings.server.host, port=port, logs=options, masked=secrets_of(merged),
                workers=workers,
            )  # fmt: skip
        except WebreachError as error:  # a port in use: the same answer as `webreach fakeweb` gives
            fail(error, False)


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Loopback address to bind.")
@click.option("--port", type=PORT, default=8765, show_default=True, help="Port (0 picks a free one).")
def fakeweb(host: str, port: int) -> None:
    """Serve recorded engine responses on loopback (point WEBREACH_FAKE_WEB at the printed URL)."""
    from webreach.testing.fakeweb import serve
    from webreach.testing.own_pages import banner

    def announce(url: str) -> None:
        click.echo(f"fake web on {url}\n{banner(url)}", err=True)

    try:
        asyncio.run(serve(host, port, announce=announce))
    except ValueError as exc:
        fail(InvalidInputError(str(exc), hint="Use a loopback address such as 127.0.0.1."), False)
    except OSError as exc:  # the port in use, or not ours to bind
        fail(cannot_listen(host, port, exc), False)
    except KeyboardInterrupt:
        pass


for command in (search, parse, fetch, extract, agents):
    cli.add_command(command)
add_engine_commands(cli, run, TEXT)
add_image_commands(cli)
