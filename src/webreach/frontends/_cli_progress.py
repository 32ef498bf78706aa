"""What the CLI says on stderr while it works: -v/--verbose and -q/--quiet, streamed attempt lines, a spinner;
and the log options of `serve` (--log-level, --access-log, --log-format; what they do is _serve_logs.py's).

    normal   the attempt lines follow the results (one per engine), and a spinner shows on stderr when stderr is
             a terminal and the work takes over a second
    -v       each engine's attempt line is printed the moment that engine finishes, while the others still run
             (so a slow search shows what it is waiting for), and reads say what is read and by which reader
    -q       nothing on stderr but errors: no attempt lines, no spinner, no hints

What is printed, and the spinner, are _render.Reporter's (rich lives there).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar

import click

Verbosity = Literal["quiet", "normal", "verbose"]
VERBOSITY_KEY = "webreach.verbosity"
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


def log_options(command: F) -> F:
    """Add `serve`'s --log-level, --access-log and --log-format (frontends/_serve_logs.py) to a command."""
    level = click.option(
        "--log-level", "level", type=click.Choice(["debug", "info", "warning", "error"]), default="warning",
        show_default=True, help="Least severe log lines printed on stderr.",
    )  # fmt: skip
    access = click.option("--access-log", is_flag=True, help="Log one line per HTTP request (secrets masked).")
    shape = click.option(
        "--log-format", "format", type=click.Choice(["text", "json"]), default="text", show_default=True,
        help="text, or one JSON object per log line.",
    )  # fmt: skip
    return level(access(shape(command)))
