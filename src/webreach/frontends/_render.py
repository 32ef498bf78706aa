"""Terminal renderings for the CLI: a readable table by default, the models' JSON with --json, and the Reporter
that writes a command's progress on stderr (-v streamed attempt lines, -q silence, a spinner on a terminal).

The spinner (rich's status) never shows when stderr is not a terminal (pipes, logs, CI): it would only be noise
there, and it waits SPINNER_DELAY seconds of the gateway's clock first, so quick commands never flash one. One
rich Console carries everything, so streamed lines print above a live spinner instead of through it.

Text from the web or an engine (titles, URLs, snippets, sources) goes through rich.markup.escape before it is
printed as markup, so a title like "[red]x" or "[/]" is shown as written rather than styled or crashing rich.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import textwrap
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from pathlib import Path

import click
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.status import Status
from rich.table import Table

from webreach.clock import Clock
from webreach.errors import Call
from webreach.frontends._cli_hints import command
from webreach.frontends._cli_progress import Verbosity, verbosity
from webreach.gateway import CanaryResult, EngineStatus
from webreach.models import EngineAttempt, SearchResponse
from webreach.tools import SearchResults

SPINNER_DELAY = 1.0  # seconds of work before the spinner shows


def search_response(response: SearchResponse, as_json: bool) -> None:
    """A SearchResponse as the table, or its JSON."""
    if as_json:
        click.echo(response.model_dump_json())
    else:
        search_table(response, None)


def search_results(
    found: SearchResults, *, attempts: bool = True, footer: bool = True, session: str | None = None
) -> None:
    """A search tool's answer (one query) as the table, with the refs its results got (in `session`, when named)."""
    (outcome,) = found.outcomes
    assert outcome.response is not None  # a failed single search is raised, not rendered
    search_table(outcome.response, found.refs, attempts=attempts, footer=footer, session=session)


def search_table(
    response: SearchResponse,
    refs: Mapping[str, int] | None,
    *,
    attempts: bool = True,
    footer: bool = True,
    session: str | None = None,
) -> None:
    """Results as a table (numbered by ref when there are refs, else by rank); on stderr, unless `footer` is
    False (-q), the mode and time, the attempts (unless streamed already: `attempts` False) and how to read on."""
    console = Console(soft_wrap=False)
    table = Table(show_lines=False, expand=True)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("result", ratio=1, overflow="fold")
    table.add_column("engines", no_wrap=True)
    for hit in response.results:
        text = f"[bold]{escape(hit.title)}[/bold]\n[cyan]{escape(hit.url)}[/cyan]"
        if hit.snippet:
            text += f"\n{escape(hit.snippet)}"
        dated = " · ".join(p for p in (hit.source, hit.date) if p)
        if dated:
            text += f"\n[dim]{escape(dated)}[/dim]"
        number = refs.get(hit.url) if refs is not None else hit.rank
        table.add_row(str(number), text, ", ".join(hit.engines or [hit.engine]))
    if response.results:
        console.print(table)
    else:
        console.print("no results")
    meta = response.meta
    if not footer:
        return
    err = Console(stderr=True)
    stale = "; STALE cache (every engine failed)" if meta.stale else ""
    err.print(f"[dim]{meta.mode}; {meta.elapsed_ms:.0f} ms{stale}")
    for attempt in meta.attempts if attempts else ():
        err.print(f"[dim]  {escape(attempt_line(attempt))}[/dim]")
    if response.results and refs is not None:
        err.print(f"[dim]read one with: {escape(read_command(session))}[/dim]")


def read_command(session: str | None) -> str:
    """The command that reads ref N of the search just shown: its session named when it is not the default one."""
    named: tuple[tuple[str, str | int], ...] = (("session", session),) if session else ()
    return command(Call("web_fetch", (*named, ("ref", "N"))))


def attempt_line(attempt: EngineAttempt) -> str:
    """One line per engine attempt, e.g. 'bing: ok, 10 hits, 320 ms (cached)'."""
    parts = [attempt.status if attempt.code is None else f"{attempt.status} {attempt.code}"]
    if attempt.status in ("ok", "empty"):
        parts.append(f"{attempt.count} hits")
    parts.append(f"{attempt.latency_ms:.0f} ms")
    if attempt.parsed_by == "generic":
        parts.append("parsed by the GENERIC parser (the engine's own parser found nothing)")
    elif attempt.parsed_by == "engine":
        parts.append("parsed by the engine parser")
    if attempt.cached:
        parts.append("cached")
    if attempt.hedged:
        parts.append("hedged")
    if attempt.retry_after is not None:
        parts.append(f"retry after {attempt.retry_after:.0f} s")
    if attempt.unsupported:
        parts.append(f"ignored: {', '.join(attempt.unsupported)}")
    return f"{attempt.engine}: " + ", ".join(parts)


CATALOG_SECTIONS = {
    "web": ("Web search", "parameters honoured"),
    "images": ("Image search (`image_search`; engine names without the images_ prefix)", "parameters honoured"),
    "reverse": ("Reverse image search (`reverse_image_search` backends)", "takes the image by"),
}


def engine_catalog(statuses: Sequence[EngineStatus]) -> str:
    """The engine tables of docs/engines.md, generated from the registry (a test keeps the doc in step)."""
    lines = [
        "# Engines",
        "",
        "Generated by `webreach engines --markdown` from the engine registry; do not edit by hand.",
        "The settings column names the configuration sections an engine reads: of `A or B` the first present,"
        " of `A, B` both, the later overriding.",
    ]
    for vertical, (title, supports_title) in CATALOG_SECTIONS.items():
        lines += [
            "",
            f"## {title}",
            "",
            f"| engine | kind | index | needs key | settings | {supports_title} | default rate/min |",
            "|---|---|---|---|---|---|---|",
        ]
        for s in (s for s in statuses if s.vertical == vertical):
            supports = ", ".join(s.supports) or "query only"
            hint = " (Chinese)" if s.language_hint == "zh" else ""
            key = "yes" if s.needs_key else "no"
            settings = _settings_sections(s)
            lines.append(
                f"| {s.name}{hint} | {s.kind} | {s.index} | {key} | {settings} | {supports} | {s.rate_per_minute:g} |"
            )
    return "\n".join(lines) + "\n"


def _settings_sections(status: EngineStatus) -> str:
    """Where an engine's settings come from: its own [engines.NAME]; for an image engine that section if present,
    else its web engine's (search/service.py); for a reverse-image backend its web engine's overridden by
    [images.reverse_settings.NAME] (images/reverse/service.py)."""
    web = status.shares_settings_of
    if status.vertical == "reverse":
        own = f"[images.reverse_settings.{status.name}]"
        return f"[engines.{web}], {own}" if web else own
    own = f"[engines.{status.name}]"
    return f"{own} or [engines.{web}]" if web else own


NARROW_COLUMNS = ("engine", "for", "kind", "usable", "breaker")
WIDE_COLUMNS = ("engine", "for", "kind", "index", "key", "usable", "breaker", "parser (recent)")


def engine_statuses(statuses: Sequence[EngineStatus], as_json: bool, *, wide: bool = False) -> None:
    """The engine list: five columns that fit 80 columns with every name whole; `wide` adds the index, the key's
    state and the parser's recent health (what --wide asks for)."""
    if as_json:
        click.echo(json.dumps([s.model_dump() for s in statuses]))
        return
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    for column in WIDE_COLUMNS if wide else NARROW_COLUMNS:
        table.add_column(column, no_wrap=column == "engine")
    for s in statuses:
        key = "n/a" if not s.needs_key else ("set" if s.key_configured else "missing")
        usable = "yes" if s.usable else "no (below)"
        breaker = s.breaker if s.retry_after is None else f"{s.breaker} ({s.retry_after:.0f} s)"
        parser = s.parse_health.summary() if s.parse_health is not None else "n/a"
        if wide:
            table.add_row(s.name, s.vertical, s.kind, s.index, key, usable, breaker, parser)
        else:
            table.add_row(s.name, s.vertical, s.kind, usable, breaker)
    Console().print(table)
    if not wide:
        click.echo("More columns (index, key, parser health): webreach engines --wide")
    # below the table, as plain lines: a table cell narrower than an environment variable's name would cut it
    missing = [s for s in statuses if not s.usable]
    if missing:
        click.echo("Not usable yet:")
    width = max(40, shutil.get_terminal_size().columns)
    for s in missing:  # wrapped at the terminal's width, never inside a word (a variable's name stays whole)
        click.echo(textwrap.fill(f"{s.name}: {s.reason}", width, initial_indent="  ", subsequent_indent="    ",
                                 break_long_words=False, break_on_hyphens=False))  # fmt: skip


CANARY_STYLE = {"ok": "green", "generic": "yellow", "parse_error": "red", "blocked": "red", "error": "red"}


def canary_table(results: Sequence[CanaryResult]) -> None:
    """The canary's answer per engine: status in colour, and what went wrong."""
    table = Table()
    for column in ("engine", "status", "hits", "ms", "detail"):
        table.add_column(column)
    for result in results:
        style = CANARY_STYLE[result.status]
        detail = f"{result.code}: {result.message}" if result.message else (result.code or "")
        if result.status == "generic":
            detail = "its own parser found nothing; the generic parser read the page (check its markup)"
        status = f"[{style}]{result.status}[/{style}]"
        table.add_row(result.engine, status, str(result.hits), f"{result.latency_ms:.0f}", escape(detail))
    Console().print(table)


def extracted_file(path: Path, title: str | None, text: str, *, several: bool) -> str:
    """One file of `webreach extract`: the text alone, or, among several files, a line naming the file (as
    `head` does) and the title once: as a heading unless the text already opens with it."""
    if not several:
        return text
    first_line = text.lstrip().partition("\n")[0].strip()
    heading = f"# {title}" if title and first_line not in (f"# {title}", title) else None
    parts = [f"==> {path} <==", *([heading, ""] if heading else []), text, ""]
    return "\n".join(parts)


class Reporter:
    """The command's stderr: streamed attempt lines (-v), notes, and the spinner for slow work."""

    def __init__(self, clock: Clock, level: Verbosity | None = None, console: Console | None = None) -> None:
        self.clock = clock
        self.level: Verbosity = level if level is not None else verbosity()
        self.console = console if console is not None else Console(stderr=True, soft_wrap=True)
        self._status: Status | None = None
        self._finished: list[str] = []

    @property
    def attempts_at_end(self) -> bool:
        """Whether the attempt lines still belong after the results (not streamed, not quiet)."""
        return self.level == "normal"

    @property
    def quiet(self) -> bool:
        return self.level == "quiet"

    def attempt(self, attempt: EngineAttempt) -> None:
        """An engine's attempt just ended (the gateway's attempt listener)."""
        if self.level == "verbose":
            self.console.print(f"[dim]  {escape(attempt_line(attempt))}[/dim]", highlight=False)
        self._finished.append(f"{attempt.engine} {attempt.code or attempt.status}")
        if self._status is not None:
            self._status.update(self._label("searching"))

    def note(self, text: str) -> None:
        """A line for -v only (what is being read, by which reader)."""
        if self.level == "verbose":
            self.console.print(f"[dim]{escape(text)}[/dim]", highlight=False)

    def _label(self, what: str) -> str:
        done = f" (done: {', '.join(self._finished)})" if self._finished else ""
        return escape(f"{what}…{done}")

    @asynccontextmanager
    async def working(self, what: str) -> AsyncIterator[None]:
        """A spinner saying `what`, shown once the block has run SPINNER_DELAY seconds, on a terminal only."""
        if self.quiet or not self.console.is_terminal:
            yield
            return
        shown = asyncio.create_task(self._show_later(what))
        try:
            yield
        finally:
            shown.cancel()
            with suppress(asyncio.CancelledError):
                await shown
            if self._status is not None:
                self._status.stop()
                self._status = None

    async def _show_later(self, what: str) -> None:
        await self.clock.sleep(SPINNER_DELAY)
        self._status = self.console.status(self._label(what), spinner="dots")
        self._status.start()
