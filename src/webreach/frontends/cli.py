"""The `webreach` command line: search, parse, engines, canary, fakeweb. Parse -> Gateway -> render, nothing else.

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
import contextlib
import itertools
import json
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NoReturn, TypeVar

import click

from webreach.defaults import DEFAULT_LIMIT, DEFAULT_MAX_CHARS, MAX_PAGE, TOOL_LIMITS
from webreach.errors import InvalidInputError, NotConfiguredError, UnknownEngineError, WebreachError, error_body
from webreach.frontends._cli_agents import agents
from webreach.frontends._cli_engine_reset import reset_engines
from webreach.frontends._cli_engines import add_engine_commands
from webreach.frontends._cli_hints import cli_syntax, error_text
from webreach.frontends._cli_images import add_image_commands
from webreach.frontends._cli_input import MAX_SAVED_BYTES, load_settings, read_capped, text_problem
from webreach.frontends._cli_progress import log_options, verbosity_options
from webreach.frontends._cli_types import PageUrl, Seconds
from webreach.frontends._errors import EXIT_INVALID_INPUT, cannot_listen, exit_code

if TYPE_CHECKING:  # the Gateway, the tools, rich and the settings load inside the commands that use them (start-up)
    from webreach.config import Settings
    from webreach.gateway import Gateway, ReadOverrides
    from webreach.models import Page
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

PORT = click.IntRange(0, 65535)
# the longest deadline `fetch --timeout` takes: an hour is far past any page, and a read holds a worker meanwhile
MAX_FETCH_SECONDS = 3600.0
WEB_LIMIT = TOOL_LIMITS["web_search"]  # `search -n` is web_search's limit (people's default: DEFAULT_LIMIT)
# the packages of the `server` extra: a door that needs one that is missing says how to install it
SERVER_PACKAGES = frozenset({"mcp", "starlette", "uvicorn"})


def _server_settings() -> tuple[Settings, Settings]:
    """Settings for a long-running door, checked as every other command's are before it starts: the loaded ones,
    to build the door's Gateway from, never the checking gateway's merged ones (a Gateway built from those would
    rank the console's values as arguments and stop following the console: issue 35); and the merged ones, whose
    secrets (keys stored in the console) the server's log masks too."""

    async def checked(gateway: Gateway) -> tuple[Settings, Settings]:
        return gateway.config.stored.base, gateway.settings

    return _run(False, checked, short=False)


def _extra_missing(exc: ImportError, command: str) -> NotConfiguredError:
    """The error for a door whose optional packages are not installed; any other import error is a bug."""
    package = (exc.name or "").partition(".")[0]
    if package not in SERVER_PACKAGES:
        raise exc
    return NotConfiguredError(
        f"`webreach {command}` needs the optional package {package!r}, which is not installed",
        hint="Install the server extra: pip install 'webreach[server]'",
    )


def _run(
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
        _fail(error, as_json)
    except _ToolFailed as failed:
        _fail(failed.error, as_json, tool=failed.tool, body=failed.body)
    except KeyboardInterrupt:
        sys.exit(130)


class _ToolFailed(Exception):
    """A command's tool call failed (its checks included): the error, the tool it is the body of, and the body the
    pipeline answered with (its cost included when metered), when the call got that far."""

    def __init__(self, tool: str, error: WebreachError, body: dict[str, Any] | None = None) -> None:
        super().__init__(tool, error)
        self.tool = tool
        self.error = error
        self.body = body


@contextlib.contextmanager
def _calling(tool: str) -> Iterator[None]:
    """Errors inside are `tool`'s: the --json body names it, as the body an agent gets for the same call does."""
    try:
        yield
    except WebreachError as error:
        raise _ToolFailed(tool, error) from error


def _fail(
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


async def _call_tool(
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
        raise _ToolFailed(tool, result.error, result.data if as_json else None)
    return result


def _split(value: str | None) -> list[str] | None:
    return [part.strip() for part in value.split(",") if part.strip()] if value else None


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


@cli.command()
@click.argument("query", type=TEXT)
@click.option("-e", "--engine", type=TEXT, default="auto", show_default=True, help="An engine name, 'auto' or 'multi'.")
@click.option("--engines", type=TEXT, help="Comma-separated engines: the order for auto, the set for multi.")
@click.option(
    "-n", "--limit", default=DEFAULT_LIMIT, show_default=True, help=f"Results wanted (1-{WEB_LIMIT.maximum})."
)
@click.option("--page", default=1, show_default=True, help=f"Result page (1-{MAX_PAGE}).")
@click.option("--site", type=TEXT, help="Only results from this domain.")
@click.option("--freshness", type=TEXT, help="day, week, month or year.")
@click.option("--lang", "language", type=TEXT, help="Result language, e.g. en, zh.")
@click.option("--region", type=TEXT, help="Region, e.g. us, cn.")
@click.option("--safesearch", type=TEXT, help="off, moderate or strict.")
@click.option(
    "--format",
    "output",
    type=click.Choice(["table", "compact", "json"]),
    default="table",
    show_default=True,
    help="table for people, compact for a model's context (numbered refs), json for programs.",
)
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option("--question", type=TEXT, help="Also read the top results for this question: passages with anchors.")
@click.option("--read-top", type=int, help="Results to read for --question (default 3, at most 5; each a fetch).")
@click.option("--max-tokens", type=int, help="Token budget of the passages read, shared by the pages (default 1000).")
@click.option(
    "--session",
    type=TEXT,
    help="Session whose refs `fetch --ref N` reads (default: the agent's own, as over MCP and REST; else 'default').",
)
@verbosity_options
@AGENT_OPTION
def search(
    query: str,
    engine: str,
    engines: str | None,
    output: str,
    as_json: bool,
    question: str | None,
    read_top: int | None,
    max_tokens: int | None,
    session: str | None,
    agent: str | None,
    **fields: Any,
) -> None:
    """Search the web. Results are remembered as numbered refs of the session."""
    from webreach.frontends import _render
    from webreach.models import SearchRequest

    output = "json" if as_json else output

    async def work(gateway: Gateway) -> None:
        tool, arguments, extra = _search_call(query, engine, _split(engines), fields)
        with _calling(tool):
            SearchRequest.create(query=query, **fields)  # every option checked before any engine is asked
            # the readable line's hint names both routing modes (-e multi works here); the --json body is the
            # one the agent gets, so the tool's own engine check words it
            if engine != "multi" and output != "json":
                UnknownEngineError.check(engine, gateway.engines.names(), modes=("auto", "multi"))
        reading = {"question": question, "read_top": read_top, "max_tokens": max_tokens}
        arguments.update({key: value for key, value in reading.items() if value is not None})
        report = _render.Reporter(gateway.clock)
        gateway.engines.add_attempt_listener(report.attempt)
        async with report.working("searching"):
            result = await _call_tool(
                gateway, agent, tool, arguments, session=session, as_json=output == "json", extra=extra
            )
        found = result.value
        if output == "table":
            _render.search_results(found, attempts=report.attempts_at_end, footer=not report.quiet, session=session)
            if found.reading is not None:  # the pages read for --question, as the compact answer shows them
                from webreach.tools.search_reading import readings_text

                click.echo(readings_text(*found.reading, syntax=cli_syntax))
        else:
            click.echo(found.compact_text(cli_syntax) if output == "compact" else found.json_text())

    _run(output == "json", work)


def _search_call(
    query: str, engine: str, engines: list[str] | None, fields: dict[str, Any]
) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The tool call `webreach search` makes: web_search, or web_search_multi for `-e multi`; its arguments (the
    options the tool's schema offers) and the rest as the call's extra (CallContext.extra)."""
    if engine == "multi":
        extra = {key: value for key, value in fields.items() if key != "limit"}
        return "web_search_multi", {"query": query, "limit": fields["limit"], "engines": engines}, extra
    offered = {"limit": "limit", "page": "page", "site": "site", "freshness": "freshness", "language": "lang"}
    arguments = {"query": query, "engine": engine, **{offered[key]: fields[key] for key in offered}}
    return "web_search", arguments, {"region": fields["region"], "safesearch": fields["safesearch"], "engines": engines}


@cli.command()
@click.argument("engine", type=TEXT)
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--status", default=200, show_default=True, help="HTTP status the body came with.")
@click.option(
    "--content-type",
    type=Text(ascii=True),
    help="Defaults from the file suffix (.json -> application/json, else text/html).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the SearchResponse (or error) as JSON.")
def parse(engine: str, file: Path, status: int, content_type: str | None, as_json: bool) -> None:
    """Parse a saved response body offline with ENGINE's parser (auto: guess it from the page).

    The attempt line says which parser produced the hits: the engine's own, or the generic fallback."""
    from webreach.frontends import _render

    async def work(gateway: Gateway) -> None:
        valid = gateway.engine_names()
        UnknownEngineError.check(engine, valid, modes=("auto",))  # auto guesses the engine; multi is no engine
        body = read_capped(file, MAX_SAVED_BYTES)
        kind = content_type or ("application/json" if file.suffix == ".json" else "text/html; charset=utf-8")
        _render.search_response(gateway.engines.parse_saved(engine, body, status=status, content_type=kind), as_json)

    _run(as_json, work)


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

    _run(as_json, work)


@cli.command()
@click.argument("url", required=False, type=TEXT)
@click.option("--ref", type=int, help="Read result N of an earlier `webreach search` in --session.")
@click.option("--session", type=TEXT, help="Session the ref belongs to (default: as for `webreach search`).")
@click.option("--start", default=0, show_default=True, help="Character offset of the window (a next_start).")
@click.option("--max-chars", default=DEFAULT_MAX_CHARS, show_default=True, help="Window size in characters.")
@click.option("--max-tokens", type=int, help="Also cap the window at this many tokens (with --question: the budget).")
@click.option("--question", type=TEXT, help="Read for this question: only the passages that answer it, with anchors.")
@click.option("--passage", type=int, help="Read passage N (an anchor's n); with --max-tokens, on from it.")
@click.option("--format", "content_format", type=click.Choice(["markdown", "text", "html", "json"]), default="markdown")
@click.option("--reader", type=click.Choice(["auto", "direct", "browser", "jina"]), default="auto", show_default=True)
@click.option(
    "--resolve", multiple=True, type=TEXT, help="HOST:ADDR[,ADDR...]: use these addresses for HOST (still guarded)."
)
@click.option("--allow-cidr", multiple=True, type=TEXT, help="Also allow this private network (metadata stays denied).")
@click.option("--timeout", type=Seconds(MAX_FETCH_SECONDS), help="Total seconds for the read (at most 3600).")
@click.option(
    "--output",
    type=click.Choice(["compact", "json", "raw"]),
    default="compact",
    show_default=True,
    help="compact: header + fenced content (what agents get); json: the Page; raw: the content only.",
)
@click.option("--json", "as_json", is_flag=True, help="Same as --output json.")
@verbosity_options
@AGENT_OPTION
def fetch(
    url: str | None,
    ref: int | None,
    session: str | None,
    agent: str | None,
    resolve: tuple[str, ...],
    allow_cidr: tuple[str, ...],
    timeout: float | None,
    output: str,
    as_json: bool,
    content_format: str,
    **fields: Any,
) -> None:
    """Read a page safely (SSRF-guarded) as clean text, one window at a time."""
    from webreach.frontends import _render
    from webreach.gateway import ReadOverrides
    from webreach.models import ReadRequest
    from webreach.tools import page_text

    output = "json" if as_json else output

    async def work(gateway: Gateway) -> None:
        given = (url.strip() if url else None) or None  # url or --ref: web_fetch's own check says which is missing
        reader = fields.pop("reader")
        if given is not None:  # every option checked before anything is asked
            with _calling("web_fetch"):
                ReadRequest.create(url=given, format=content_format, reader=reader, **fields)
        report = _render.Reporter(gateway.clock)
        what = given or f"ref {ref}"
        if (given is None) != (ref is None):  # else web_fetch's own check refuses the call before anything is read
            report.note(f"reading {what} (reader {reader})")
        arguments = {"url": given, "ref": ref, "format": content_format, **fields}
        async with report.working(f"reading {what}"):
            result = await _call_tool(
                gateway,
                agent,
                "web_fetch",
                arguments,
                session=session,
                as_json=output == "json",
                extra={"reader": reader},
            )
        page: Page = result.value
        cached = " (cached)" if page.cached else ""
        report.note(f"read {page.url} by the {page.reader} reader{cached}: {page.total_chars} chars")
        if output == "raw":
            click.echo(page.content)
        elif output == "json":
            click.echo(page.model_dump_json())
        else:
            click.echo(page_text(page, ref=ref, syntax=cli_syntax))

    _run(output == "json", work, ReadOverrides(resolve=resolve, allow_cidrs=allow_cidr, timeout=timeout))


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--url", type=PageUrl(), help="The URL the files came from (resolves relative links, helps metadata).")
@click.option("--format", "content_format", type=click.Choice(["markdown", "text"]), default="markdown")
@click.option("--jsonl", is_flag=True, help="One JSON object per file: path, title, text, error.")
def extract(files: tuple[Path, ...], url: str | None, content_format: Literal["markdown", "text"], jsonl: bool) -> None:
    """Extract local HTML, PDF, text or JSON files (gzip-compressed too) offline, as the reader would."""
    from webreach.frontends import _render

    async def work(gateway: Gateway) -> int:
        worst = 0
        for path in files:
            try:
                extracted = await gateway.extract_file(path, url=url, format=content_format)
            except WebreachError as error:
                worst = max(worst, exit_code(error))
                row = {"path": str(path), "title": None, "text": None, "error": error_body(error)}
                if not jsonl:
                    click.echo(f"error [{error.code}] {path}: {error.describe(cli_syntax)}", err=True)
            else:
                row = {"path": str(path), "title": extracted.title, "text": extracted.text, "error": None}
                if not jsonl:
                    click.echo(_render.extracted_file(path, extracted.title, extracted.text, several=len(files) > 1))
            if jsonl:
                click.echo(json.dumps(row, ensure_ascii=False))
        return worst

    sys.exit(_run(False, work))


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

    _run(True, work)


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
        _fail(_extra_missing(exc, "mcp"), False)
    if session is not None:
        from webreach.tools import store_session

        try:
            store_session(session)  # else every call of the client would fail on it
        except WebreachError as error:
            _fail(error, False)
    try:  # loaded, without the checking gateway of `_server_settings`: the server answers `initialize` first and
        settings = load_settings()  # then opens its gateway, checking the engines (frontends/mcp.py)
    except WebreachError as error:
        _fail(error, False)
    if profile is not None:
        from webreach.tools.drop_in import profile_tools

        try:
            profile_tools(profile)  # an unknown name is refused with the valid ones
        except WebreachError as error:
            _fail(error, False)
        settings = settings.model_copy(update={"tools": settings.tools.model_copy(update={"profile": profile})})
    try:
        run_stdio(settings, session=session, agent=agent)
    except WebreachError as error:  # the tools could not open (a bad configuration): said to every request, and here
        _fail(error, False)


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
            _fail(_extra_missing(exc, "serve"), False)
        settings, merged = _server_settings()
        port = settings.server.port if port is None else port
        try:
            options = LogOptions(**logging)
            run_http(
                settings, host=host or settings.server.host, port=port, logs=options, masked=secrets_of(merged),
                workers=workers,
            )  # fmt: skip
        except WebreachError as error:  # a port in use: the same answer as `webreach fakeweb` gives
            _fail(error, False)


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
        _fail(InvalidInputError(str(exc), hint="Use a loopback address such as 127.0.0.1."), False)
    except OSError as exc:  # the port in use, or not ours to bind
        _fail(cannot_listen(host, port, exc), False)
    except KeyboardInterrupt:
        pass


add_engine_commands(cli, _run, TEXT)
add_image_commands(cli, _run, TEXT, _call_tool)
cli.add_command(agents)


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="webreach")
