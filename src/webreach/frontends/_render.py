"""Terminal renderings for the CLI: a readable table by default, the models' JSON with --json."""

from __future__ import annotations

import json
from collections.abc import Sequence

import click
from rich.console import Console
from rich.table import Table

from webreach.gateway import EngineStatus
from webreach.models import EngineAttempt, SearchResponse


def search_response(response: SearchResponse, as_json: bool) -> None:
    """Results as a table plus one line per engine attempt, or the SearchResponse JSON."""
    if as_json:
        click.echo(response.model_dump_json())
        return
    console = Console(soft_wrap=False)
    table = Table(show_lines=False, expand=True)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("result", ratio=1, overflow="fold")
    table.add_column("engines", no_wrap=True)
    for hit in response.results:
        body = f"[bold]{_escape(hit.title)}[/bold]\n[cyan]{_escape(hit.url)}[/cyan]"
        if hit.snippet:
            body += f"\n{_escape(hit.snippet)}"
        if hit.date or hit.source:
            body += f"\n[dim]{_escape(' · '.join(p for p in (hit.source, hit.date) if p))}[/dim]"
        table.add_row(str(hit.rank), body, ", ".join(hit.engines or (hit.engine,)))
    if response.results:
        console.print(table)
    else:
        console.print("no results")
    err = Console(stderr=True)
    err.print(
        f"[dim]{response.meta.mode}; {response.meta.elapsed_ms:.0f} ms{'; STALE cache' if response.meta.stale else ''}"
    )
    for attempt in response.meta.attempts:
        err.print(f"[dim]  {attempt_line(attempt)}[/dim]")


def attempt_line(attempt: EngineAttempt) -> str:
    """One line per engine attempt, e.g. 'bing: ok, 10 hits, 320 ms (cached)'."""
    parts = [attempt.status if attempt.code is None else f"{attempt.status} {attempt.code}"]
    if attempt.status in ("ok", "empty"):
        parts.append(f"{attempt.count} hits")
    parts.append(f"{attempt.latency_ms:.0f} ms")
    if attempt.cached:
        parts.append("cached")
    if attempt.hedged:
        parts.append("hedged")
    if attempt.retry_after is not None:
        parts.append(f"retry after {attempt.retry_after:.0f} s")
    if attempt.unsupported:
        parts.append(f"ignored: {', '.join(attempt.unsupported)}")
    return f"{attempt.engine}: " + ", ".join(parts)


def engine_statuses(statuses: Sequence[EngineStatus], as_json: bool) -> None:
    """The engine list."""
    if as_json:
        click.echo(json.dumps([s.model_dump() for s in statuses]))
        return
    table = Table()
    for column in ("engine", "kind", "index", "key", "usable", "breaker"):
        table.add_column(column)
    for s in statuses:
        key = "n/a" if not s.needs_key else ("set" if s.key_configured else "missing")
        usable = "yes" if s.usable else f"no ({s.reason})"
        breaker = s.breaker if s.retry_after is None else f"{s.breaker} ({s.retry_after:.0f} s)"
        table.add_row(s.name, s.kind, s.index, key, usable, breaker)
    Console().print(table)


def _escape(text: str) -> str:
    return text.replace("[", r"\[")
