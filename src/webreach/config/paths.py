"""Where settings and state live on disk: the TOML file settings are read from, and the per-user directories."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from webreach.user_dirs import APP_NAME, user_directory

__all__ = ["APP_NAME", "CONFIG_ENV", "DEFAULT_CONFIG_FILE", "config_file", "user_directory"]
CONFIG_ENV = "WEBREACH_CONFIG"
DEFAULT_CONFIG_FILE = "webreach.toml"


def config_file(environ: Mapping[str, str] | None = None) -> Path:
    """The TOML file settings are read from: $WEBREACH_CONFIG when set, else ./webreach.toml (optional)."""
    env = os.environ if environ is None else environ
    return Path(env.get(CONFIG_ENV) or DEFAULT_CONFIG_FILE)
