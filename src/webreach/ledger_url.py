"""The one reading of a ledger URL as a SQLite file: the ledger (accounts/database.py), the console's settings
(configdb/) and the CLI's answer memo (webreach/answer_memo.py, before anything heavy loads) all ask it here."""

from __future__ import annotations

from pathlib import Path

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def sqlite_path(url: str) -> Path | None:
    """The SQLite file a ledger URL names (`sqlite:///path`, or a plain file path; a leading `~` is the user's home,
    as a shell would read it), or None for a PostgreSQL URL."""
    if url.startswith(POSTGRES_SCHEMES):
        return None
    return Path(url.removeprefix("sqlite://")).expanduser()
