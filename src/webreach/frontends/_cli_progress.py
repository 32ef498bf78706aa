"""What the CLI says on stderr while it works: -v/--verbose and -q/--quiet, streamed attempt lines, a spinner.

    normal   the attempt lines follow the results (one per engine), and a spinner shows on stderr when stderr is
             a terminal and the work takes over a second
    -v       each engine's attempt line is printed the moment that engine finishes, while the others still run
             (so a slow search shows what it is waiting for), and reads say what is read and by which reader
    -q       nothing on stderr but errors: no attempt lines, no spinner, no hints

The spinner (rich's status) never shows when stderr is not a terminal (pipes, logs, CI): it would only be noise
there. Its one-second delay runs on the gateway's clock. Everything goes through one rich Console, so streamed
lines print above a live spinner instead of through it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from typing import Any, Literal, TypeVar

import click
from rich.console import Console
from rich.markup import escape
from rich.status import Status

from webreach.clock import Clock
from webreach.frontends._render import attempt_line
from webreach.models import EngineAttempt

Verbosity = Literal["quiet", "normal", "verbose"]
VERBOSITY_KEY = "webreach.verbosity"
SPINNER_DELAY = 1.0  # seconds of work before the spinner shows: quick commands never flash one
F = TypeVar("F", bound=Callable[..., Any])


def _remember(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if not value:
        return
    chosen: Verbosity = "verbose" if param.name == "verbose" else "quiet"
    if ctx.meta.get(VERBOSITY_KEY, chosen) != chosen:
        raise click.UsageError("-v/--verbose and -q/--quiet exclude each other", ctx=ctx)
    ctx.meta[VERBOSITY_KEY] = chosen


def verbosity_options(command: F) -> F:
    """Add -v/--verbose and -q/--quiet to a command (read back with `verbosity()`)."""
    quiet = click.option(
        "-q",
        "--quiet",
        is_flag=True,
        expose_value=False,
        callback=_remember,
        help="Print nothing but errors on stderr.",
    )
    verbose = click.option(
        "-v", "--verbose", is_flag=True, expose_value=False, callback=_remember,
        help="Print each engine's attempt on stderr as it finishes, and what is read.",
    )  # fmt: skip
    return verbose(quiet(command))


def verbosity() -> Verbosity:
    """The verbosity the running command was given."""
    context = click.get_current_context(silent=True)
    chosen: Verbosity = context.meta.get(VERBOSITY_KEY, "normal") if context is not None else "normal"
    return chosen


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
