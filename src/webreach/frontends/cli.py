"""The `webreach` entry point: a cached search's answer replayed from the CLI's answer memo (webreach/answer_memo.py)
before click, the settings or the Gateway load; everything else runs the command group (frontends/_cli_group.py).

`cli` (the click group) is importable from here as before; it loads when first asked for. Measured in
docs/decisions.md ("the CLI answer memo"): a replayed search executes a small fraction of the instructions of one
that loads the settings, the Gateway and the tools to read the same cache entry.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from webreach.frontends._cli_group import cli as cli


def main() -> None:
    """Console-script entry point."""
    argv = sys.argv[1:]
    if argv[:1] == ["search"]:  # only a search has a memo: --help and the rest import nothing more
        from webreach.answer_memo import replay

        if replay(argv):
            sys.exit(0)
    from webreach.frontends._cli_group import cli

    cli.main(argv, prog_name="webreach", obj={"argv": argv})


def __getattr__(name: str) -> Any:
    if name == "cli":
        from webreach.frontends._cli_group import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
