"""webreach's per-user data and cache directories (platformdirs, with the XDG variables read from a mapping).
A bottom module: config/paths.py re-exports it, and the CLI's answer memo (webreach/answer_memo.py) finds its
directory through it before the settings load."""

from __future__ import annotations

import os
import posixpath
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import platformdirs

APP_NAME = "webreach"
_XDG_VARIABLES = {"data": "XDG_DATA_HOME", "cache": "XDG_CACHE_HOME"}


def user_directory(kind: Literal["data", "cache"], environ: Mapping[str, str] | None = None) -> Path:
    """webreach's per-user data or cache directory (nothing is created here).

    An absolute $XDG_DATA_HOME / $XDG_CACHE_HOME in `environ` (default os.environ) wins outside Windows, as
    platformdirs has it; relative values are ignored, as the XDG spec says. Otherwise platformdirs names the
    system's place: ~/.local/share/webreach and ~/.cache/webreach on Linux, ~/Library/Application Support/webreach
    and ~/Library/Caches/webreach on macOS, %LOCALAPPDATA%\\webreach (and its Cache folder) on Windows. The XDG
    check is made here rather than left to platformdirs because platformdirs only reads os.environ, and `environ`
    is the seam tests use.
    """
    env = os.environ if environ is None else environ
    value = env.get(_XDG_VARIABLES[kind], "")
    if sys.platform != "win32" and posixpath.isabs(value):
        return Path(value) / APP_NAME
    dirs = platformdirs.PlatformDirs(APP_NAME, appauthor=False)
    return dirs.user_data_path if kind == "data" else dirs.user_cache_path
