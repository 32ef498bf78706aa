"""The `webreach` command line: search, parse, engines, fakeweb. Parse -> Gateway -> render, nothing else.

Exit codes: 0 ok, 2 invalid input, 3 refused by policy, 4 upstream failure. With --json an error is printed as
JSON on stdout (the same body agents get); otherwise it is a readable line on stderr.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click
from pydantic import ValidationError

from webreach.config import Settings
from webreach.errors import InvalidInputError, WebreachError
from webreach.frontends import _render
from webreach.frontends._errors import exit_code
from webreach.gateway import Gateway
from webreach.models import MAX_LIMIT, MAX_PAGE, SearchRequest, describe_validation_error

T = TypeVar("T")


def _settings() -> Settings:
    try:
        return Settings()
    except ValidationError as exc:
        raise InvalidInputError(
            f"configuration is invalid: {describe_validation_error(exc)}",
            hint="Fix webreach.toml or the WEBREACH_* environment.",
        ) from None


def _run(as_json: bool, work: Callable[[Gateway], Awaitable[T]]) -> T:
    """Run `work` against a fresh gateway; typed errors become output and an exit code, never a traceback."""

    async def main() -> T:
        async with Gateway.from_settings(_settings()) as gateway:
            return await work(gateway)

    try:
        return asyncio.run(main())
    except WebreachError as error:
        _fail(error, as_json)
    except KeyboardInterrupt:
        sys.exit(130)


def _fail(error: WebreachError, as_json: bool) -> NoReturn:
    if as_json:
        click.echo(json.dumps(error.to_dict(), ensure_ascii=False))
    else:
        click.echo(f"error [{error.error_code}]: {error}", err=True)
    sys.exit(exit_code(error))


def _split(value: str | None) -> list[str] | None:
    return [part.strip() for part in value.split(",") if part.strip()] if value else None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="webreach")
def cli() -> None:
    """webreach: web search and reading for AI agents."""


@cli.command()
@click.argument("query")
@click.option("-e", "--engine", default="auto", show_default=True, help="An engine name, 'auto' or 'multi'.")
@click.option("--engines", help="Comma-separated engines: the order for auto, the set for multi.")
@click.option("-n", "--limit", default=10, show_default=True, help=f"Results wanted (1-{MAX_LIMIT}).")
@click.option("--page", default=1, show_default=True, help=f"Result page (1-{MAX_PAGE}).")
@click.option("--site", help="Only results from this domain.")
@click.option("--freshness", help="day, week, month or year.")
@click.option("--lang", "language", help="Result language, e.g. en, zh.")
@click.option("--region", help="Region, e.g. us, cn.")
@click.option("--safesearch", help="off, moderate or strict.")
@click.option("--json", "as_json", is_flag=True, help="Print the SearchResponse as JSON.")
def search(query: str, engine: str, engines: str | None, as_json: bool, **fields: Any) -> None:
    """Search the web."""

    async def work(gateway: Gateway) -> None:
        request = SearchRequest.create(query=query, **fields)
        response = await gateway.search(request, engine=engine, engines=_split(engines))
        _render.search_response(response, as_json)

    _run(as_json, work)


@cli.command()
@click.argument("engine")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--status", default=200, show_default=True, help="HTTP status the body came with.")
@click.option("--content-type", help="Defaults from the file suffix (.json -> application/json, else text/html).")
@click.option("--json", "as_json", is_flag=True, help="Print the SearchResponse (or error) as JSON.")
def parse(engine: str, file: Path, status: int, content_type: str | None, as_json: bool) -> None:
    """Parse a saved response body offline with ENGINE's parser."""

    async def work(gateway: Gateway) -> None:
        try:
            body = file.read_bytes()
        except OSError as exc:
            raise InvalidInputError(f"cannot read {file}: {exc.strerror}", hint="Pass a readable file.") from None
        kind = content_type or ("application/json" if file.suffix == ".json" else "text/html; charset=utf-8")
        _render.search_response(gateway.parse_saved(engine, body, status=status, content_type=kind), as_json)

    _run(as_json, work)


@cli.command(name="engines")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.option("--markdown", is_flag=True, help="Print the engine catalogue (docs/engines.md).")
def list_engines(as_json: bool, markdown: bool) -> None:
    """List engines with kind, key status and breaker state."""

    async def work(gateway: Gateway) -> None:
        if markdown:
            click.echo(_render.engine_catalog(gateway.engine_statuses()), nl=False)
            return
        _render.engine_statuses(gateway.engine_statuses(), as_json)

    _run(as_json, work)


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Loopback address to bind.")
@click.option("--port", default=8765, show_default=True, help="Port (0 picks a free one).")
def fakeweb(host: str, port: int) -> None:
    """Serve recorded engine responses on loopback (point WEBREACH_FAKE_WEB at the printed URL)."""
    from webreach.testing.fakeweb import serve

    try:
        asyncio.run(serve(host, port, announce=lambda url: click.echo(f"fake web on {url}", err=True)))
    except ValueError as exc:
        _fail(InvalidInputError(str(exc), hint="Use a loopback address such as 127.0.0.1."), False)
    except KeyboardInterrupt:
        pass


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="webreach")
