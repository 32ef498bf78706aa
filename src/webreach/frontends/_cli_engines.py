"""`webreach canary`: is each engine's parser still reading its pages? Registered on the CLI group by cli.py.

One fixed query goes to each configured engine (or those given with --engines), bypassing the cache; each is
reported ok / generic / parse_error / blocked / error, as a table or with --json as a list of objects. Exit code 0
when every engine answered ok, 4 otherwise (generic included: it works, but its parser needs attention), so a
cron job or CI step can alert on it; with no engine configured it is the usual not_configured error.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

import click

from webreach.defaults import CANARY_QUERY
from webreach.errors import NotConfiguredError
from webreach.frontends._errors import EXIT_OK, EXIT_UPSTREAM

if TYPE_CHECKING:  # the Gateway and rich load when the command runs, not with the CLI (start-up)
    from webreach.gateway import Gateway

T = TypeVar("T")
Runner = Callable[[bool, Callable[["Gateway"], Awaitable[T]]], T]


def add_engine_commands(group: click.Group, run: Runner[int], text: click.ParamType) -> None:  # type: ignore[type-arg]
    """Add the engine-health commands to the CLI group (cli.py passes its runner and its checked text type)."""

    @group.command()
    @click.option("--query", type=text, default=CANARY_QUERY, show_default=True, help="The query every engine gets.")
    @click.option("--engines", type=text, help="Comma-separated engines (default: every configured one).")
    @click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
    def canary(query: str, engines: str | None, as_json: bool) -> None:
        """Run one query against each engine and report ok / generic / parse_error / blocked per engine."""
        from webreach.frontends._render import canary_table

        async def work(gateway: Gateway) -> int:
            names = [part.strip() for part in engines.split(",") if part.strip()] if engines else None
            results = await gateway.engines.canary(query, names)
            if not results:
                raise NotConfiguredError("no engine is usable", hint="Enable a keyless engine or configure an API key.")
            if as_json:
                click.echo(json.dumps([result.model_dump(mode="json") for result in results], ensure_ascii=False))
            else:
                canary_table(results)
            return EXIT_OK if all(result.status == "ok" for result in results) else EXIT_UPSTREAM

        sys.exit(run(as_json, work))
