"""The one rule for markdown code fences: which line opens a ``` or ~~~ block, which line closes it, and so which
lines of a document are code (the passage cutter and the section-heading fix both ask)."""

from __future__ import annotations

import re

FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")


def opening(line: str) -> str | None:
    """The fence a line opens (its run of ` or ~), or None when it opens none."""
    match = FENCE.match(line)
    return match.group(1) if match else None


def closes(fence: str, line: str) -> bool:
    """Whether `line` closes a block opened by `fence`: the same character, at least as many, no info string."""
    stripped = line.strip()
    return len(stripped) >= len(fence) and stripped == fence[0] * len(stripped)


def code_lines(lines: list[str]) -> list[bool]:
    """Per line, whether it is inside a fenced block (the opening and closing fence lines are not)."""
    fence: str | None = None
    inside = []
    for line in lines:
        if fence is None:
            fence = opening(line)
            inside.append(False)
        elif closes(fence, line):
            fence = None
            inside.append(False)
        else:
            inside.append(True)
    return inside
