"""`webreach search` and `webreach parse`: a search as the web_search tool call (or web_search_multi for -e multi)
through the pipeline, printed as a table, compact text or JSON; a saved engine page parsed offline."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from webreach.defaults import DEFAULT_LIMIT, MAX_PAGE, TOOL_LIMITS
from webreach.errors import UnknownEngineError
from webreach.frontends._cli_hints import cli_syntax
from webreach.frontends._cli_input import MAX_SAVED_BYTES, read_capped
from webreach.frontends._cli_progress import verbosity, verbosity_options
from webreach.frontends._cli_run import AGENT_OPTION, TEXT, Text, call_tool, calling, run, split_names

if TYPE_CHECKING:  # the Gateway loads when the command runs, not with the CLI (start-up)
    from webreach.gateway import Gateway
    from webreach.tools import ToolResult

WEB_LIMIT = TOOL_LIMITS["web_search"]  # `search -n` is web_search's limit (people's default: DEFAULT_LIMIT)


@click.command()
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

    async def work(gateway: Gateway) -> dict[str, Any] | None:
        tool, arguments, extra = _search_call(query, engine, split_names(engines), fields)
        with calling(tool):
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
            result = await call_tool(
                gateway, agent, tool, arguments, session=session, as_json=output == "json", extra=extra
            )
        found = result.value
        if output == "table":
            _render.search_results(found, attempts=report.attempts_at_end, footer=not report.quiet, session=session)
            if found.reading is not None:  # the pages read for --question, as the compact answer shows them
                from webreach.tools.search_reading import readings_text

                click.echo(readings_text(*found.reading, syntax=cli_syntax))
            return None
        text = found.compact_text(cli_syntax) if output == "compact" else found.json_text()
        click.echo(text)
        return _replayable(gateway, tool, result, text, session=session, agent=agent) if output == "compact" else None

    started = time.time()
    memo = run(output == "json", work)
    if memo is not None:  # written once the Gateway closed, so the files it read are stamped as it left them
        from webreach import answer_memo

        answer_memo.save(memo.pop("argv"), memo.pop("stdout"), started=started, **memo)


def _replayable(
    gateway: Gateway, tool: str, result: ToolResult, text: str, *, session: str | None, agent: str | None
) -> dict[str, Any] | None:
    """What the answer memo (webreach/answer_memo.py) keeps of this answer when a replay can redo it whole: a run
    from the entry point (its argv), one web_search answered by one fresh cache entry, nothing charged (accounts
    off), refs in the SQLite state file, no reading, nothing on stderr but what a replay leaves out too."""
    from webreach import answer_memo
    from webreach.tools import store_session

    found, argv = result.value, (click.get_current_context().obj or {}).get("argv")
    if argv is None or tool != "web_search" or result.cost is not None or gateway.settings.accounts.enabled:
        return None
    if verbosity() == "verbose" or "\x1b" in text or found.refs is None or found.reading is not None:
        return None  # attempt lines on stderr; click strips ANSI off a pipe; no refs to redo; pages read
    response = found.outcomes[0].response if len(found.outcomes) == 1 else None
    attempts = list(response.meta.attempts) if response is not None else []
    if len(attempts) != 1 or not attempts[0].cached or attempts[0].stale or attempts[0].status != "ok":
        return None
    files = answer_memo.sources(gateway.settings, gateway.accounts.url())
    caller = agent or gateway.settings.accounts.agent
    refs = answer_memo.refs_of(gateway.sessions, store_session(session, caller), found.refs)
    if files is None or refs is None:
        return None
    return {"argv": argv, "stdout": f"{text}\n", "files": files, "refs": refs}


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


@click.command()
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

    run(as_json, work)
