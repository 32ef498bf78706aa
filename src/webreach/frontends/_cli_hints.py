"""The CLI's one owner of next-step syntax and of how an error reads on the terminal.

Errors carry their hints as structured next steps (errors.Hint with Arg and Call steps); agents get them in
tool syntax (`reader='browser'`, `web_fetch(ref=1, start=588)`), and this module writes the same steps as the
command line takes them (`--reader browser`, `webreach fetch --ref 1 --start 588`, `-e auto`).

Commands are spelled as this shell can run them: `webreach ...` when that is the program on PATH, else the path
this process was started by (`.venv/bin/webreach ...` when the venv is not activated).

An error prints as `error [code]: message. hint`, and all_engines_failed adds one indented line per engine with
its own code and reason (what --json carries in `errors`), so a person sees why each engine failed.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from webreach.errors import AllEnginesFailedError, Arg, Call, Step, WebreachError

# tool argument -> the CLI option that sets it
FLAGS: Mapping[str, str] = MappingProxyType(
    {
        "engine": "-e",
        "engines": "--engines",
        "reader": "--reader",
        "start": "--start",
        "max_chars": "--max-chars",
        "max_tokens": "--max-tokens",
        "ref": "--ref",
        "session": "--session",
        "format": "--format",
        "limit": "-n",
        "site": "--site",
    }
)
# tool -> the command that does the same
COMMANDS: Mapping[str, str] = MappingProxyType(
    {"web_fetch": "webreach fetch", "web_search": "webreach search", "web_search_multi": "webreach search"}
)
POSITIONAL = frozenset({"url", "query"})


def cli_syntax(step: Step) -> str:
    """A next step as the command line takes it: --reader browser, webreach fetch --ref 1 --start 588."""
    if isinstance(step, Arg):
        if step.name in POSITIONAL:
            return "URL (`webreach fetch URL`)" if step.name == "url" else step.name.upper()
        flag = FLAGS.get(step.name, f"--{step.name.replace('_', '-')}")
        return flag if step.value is None else f"`{flag} {step.value}`"
    return f"`{command(step)}`"


def program_name(argv0: str, on_path: str | None, cwd: str) -> str:
    """How to type this program: `webreach` when PATH finds this same file, else its path (relative to `cwd` when
    it lies below it, as `.venv/bin/webreach`). `python -m webreach` and the like stay `webreach`."""
    started = Path(argv0)
    if started.name != "webreach":
        return "webreach"
    if on_path is not None and Path(on_path).resolve() == started.resolve():
        return "webreach"
    absolute = Path(os.path.abspath(argv0))
    try:
        return str(absolute.relative_to(cwd)) if absolute.is_relative_to(cwd) else str(absolute)
    except ValueError:
        return str(absolute)


def program() -> str:
    """program_name for this process."""
    return program_name(sys.argv[0], shutil.which("webreach"), os.getcwd())


def spelled(text: str) -> str:
    """`text` with each quoted `webreach ...` command spelled as this shell can run it."""
    name = program()
    return text if name == "webreach" else text.replace("`webreach ", f"`{name} ")


def command(call: Call) -> str:
    """The whole command for a tool call."""
    words = [COMMANDS.get(call.tool, f"webreach {call.tool}")]
    name = program()
    if name != "webreach":
        words[0] = words[0].replace("webreach", name, 1)
    for name, value in call.args:
        if name in POSITIONAL:
            words.append(_quoted(str(value)))
        else:
            words += [FLAGS.get(name, f"--{name.replace('_', '-')}"), _quoted(str(value))]
    return " ".join(words)


def _quoted(text: str) -> str:
    return text if text and all(c.isalnum() or c in "-_./:=" for c in text) else "'" + text.replace("'", "'\\''") + "'"


def error_text(error: WebreachError) -> str:
    """The error for a person: the one line, and for all_engines_failed every engine's reason below it."""
    lines = [f"error [{error.code}]: {error.describe(cli_syntax)}"]
    if isinstance(error, AllEnginesFailedError):
        for each in error.errors:
            name = each.engine or "?"
            reason = each.message  # the engine's own hint is left out: the summary above says what to do
            lines.append(f"  {name}: {each.code}: {reason}")
    return spelled("\n".join(lines))
