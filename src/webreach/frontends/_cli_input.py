"""What the command line takes in, checked where it enters: text options, files, the settings.

- Text options and arguments (_cli_run.py's TEXT, by text_problem) refuse invalid UTF-8, which Python hands over as
  lone surrogates, and control characters other than spacing: a usage error, exit 2, before anything runs. File
  arguments may hold any bytes, as file names do.
- Files are read with a byte cap whatever their size claims (devices and FIFOs report 0): read_capped reads at
  most limit + 1 bytes and refuses more, and never waits on a FIFO or device that sends nothing (local_files.py).
- The settings: a bad webreach.toml or WEBREACH_* value is InvalidInputError naming it (exit 2), never a
  traceback.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from webreach.errors import InvalidInputError
from webreach.local_files import read_local

if TYPE_CHECKING:  # the settings load when a command runs, not with the CLI (start-up)
    from webreach.config import Settings

# a saved engine answer `parse` reads: engine result pages are well under 5 MB; /dev/zero must not fill memory
MAX_SAVED_BYTES = 20 * 1024 * 1024


def text_problem(value: str, *, ascii: bool = False) -> str | None:
    """Why a text option cannot be taken (invalid UTF-8, a control character other than spacing, or with
    ascii=True anything beyond printable ASCII, as in a header value), else None."""
    if re.search("[\ud800-\udfff]", value):
        return "is not valid UTF-8"
    if re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]", value):  # tab, newline and return are spacing
        return "holds a control character"
    if ascii and not (value.isascii() and value.isprintable()):
        return "must be printable ASCII"
    return None


def load_settings() -> Settings:
    """Settings from webreach.toml and WEBREACH_*; any problem is InvalidInputError naming the file or variable."""
    from pydantic import ValidationError

    from webreach.config import Settings
    from webreach.models import describe_validation_error

    try:
        return Settings.load()
    except ValidationError as exc:
        raise InvalidInputError(
            f"configuration is invalid: {describe_validation_error(exc)}",
            hint="Fix webreach.toml or the WEBREACH_* environment.",
        ) from None
    except ValueError as exc:  # pydantic-settings' SettingsError: a WEBREACH_* value that is not the JSON it needs
        raise InvalidInputError(
            f"configuration is invalid: {environment_problem(exc)}",
            hint="Complex settings in the environment are JSON, e.g. WEBREACH_ENGINES='{\"bing\": {}}'; "
            "or set one part with WEBREACH_ENGINES__BING__TIMEOUT=5.",
        ) from None


def environment_problem(exc: ValueError) -> str:
    """Which WEBREACH_* variable pydantic-settings could not parse (its error names the field only in text)."""
    field = re.search(r'field "(\w+)"', str(exc))
    if field is None:
        return f"a WEBREACH_* environment value cannot be parsed ({exc})"
    name = f"WEBREACH_{field.group(1).upper()}"
    return f"{name} (or one of its {name}__* parts) is not valid JSON"


def read_capped(path: Path, limit: int) -> bytes:
    """At most `limit` bytes of `path`, read as limit + 1 so a device or FIFO (whose size says 0) cannot run on."""
    try:
        body = read_local(path, limit)  # non-blocking open: a FIFO without a writer cannot hang the command
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc.strerror or exc}", hint="Pass a readable file.") from None
    if len(body) > limit:
        raise InvalidInputError(f"{path} is over the {limit:,} byte limit", hint="Pass a saved response body.")
    return body
