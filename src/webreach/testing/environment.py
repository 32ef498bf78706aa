"""The environment of a webreach process a test or benchmark starts: nothing of the caller's but PATH (and
PYTHONPATH, so a worktree's source is what runs), its own home, data and cache directories, no config file.

    subprocess.run([sys.executable, "-m", "webreach", ...], env=process_env(home, WEBREACH_FAKE_WEB=web.url))
"""

from __future__ import annotations

import os
from pathlib import Path
from types import MappingProxyType

# servers that answer an outage quickly: the ledger's wait 1 s, a lease that outlasts the shortened 4 s calls
# (checked at start-up); the fault tests of the accounts and of the replicas start their servers with it
FAST_OUTAGES = MappingProxyType(
    {
        "WEBREACH_ACCOUNTS__DATABASE_TIMEOUT": "1",
        "WEBREACH_ACCOUNTS__LEASE_SECONDS": "8",
        "WEBREACH_REQUEST_DEADLINE": "4",
        "WEBREACH_READ__TIMEOUT": "4",
        "WEBREACH_READ__JINA_TIMEOUT": "4",
        "WEBREACH_READ__BROWSER_TIMEOUT": "4",
    }
)


def process_env(home: Path, **settings: str) -> dict[str, str]:
    """A clean environment under `home`, plus `settings` (WEBREACH_* and the like; they win over the defaults)."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "WEBREACH_CONFIG": os.devnull,  # no config file (a named file that is missing is an error)
    }
    if os.environ.get("PYTHONPATH"):  # the code under test (a worktree's src first), not what the venv installed
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env | settings
