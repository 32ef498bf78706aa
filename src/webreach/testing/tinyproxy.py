"""Debian's tinyproxy on loopback: a third-party HTTP proxy for the outbound-proxy interop tests.

testing/proxy.py's TestProxy is ours; this checks webreach's CONNECT against a proxy it did not write. tinyproxy
runs in the foreground on a free 127.0.0.1 port with Basic auth and every CONNECT port allowed (no ConnectPort
line), logging to a file; `asked()` reads from that log the host:port it was asked to open, in order.

    with tinyproxy(password="...") as proxy:
        proxy.url          # http://agent:<password>@127.0.0.1:<port>
        proxy.asked()      # ["127.0.0.1:8123", ...]
"""

from __future__ import annotations

import contextlib
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from webreach.testing.balancer import free_port, wait_listening
from webreach.testing.server_process import stop

USER = "agent"
_OPENING = re.compile(r"opensock: opening connection to (\S+)")


class TinyproxyUnavailable(RuntimeError):
    """No tinyproxy binary here (install Debian's tinyproxy package)."""


@dataclass(frozen=True)
class Tinyproxy:
    """A running tinyproxy: its URL (with credentials) and its log."""

    url: str = field(repr=False)  # it carries the password
    port: int
    log: Path

    def asked(self) -> list[str]:
        """Every host:port tinyproxy opened a connection to, in order."""
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return _OPENING.findall(text)


@contextlib.contextmanager
def tinyproxy(password: str) -> Iterator[Tinyproxy]:
    """tinyproxy on a free loopback port demanding `agent`/`password`; stopped (by its PID) on exit."""
    found = shutil.which("tinyproxy") or next((p for p in ("/usr/sbin/tinyproxy",) if Path(p).exists()), None)
    if found is None:
        raise TinyproxyUnavailable("tinyproxy not found (apt-get install tinyproxy)")
    with tempfile.TemporaryDirectory(prefix="webreach-tinyproxy-") as folder:
        port, log = free_port(), Path(folder) / "tinyproxy.log"
        config = Path(folder) / "tinyproxy.conf"
        config.write_text(
            f'Port {port}\nListen 127.0.0.1\nTimeout 10\nMaxClients 20\nLogLevel Info\nLogFile "{log}"\n'
            f'PidFile "{folder}/tinyproxy.pid"\nBasicAuth {USER} {password}\nDisableViaHeader Yes\n'
        )
        process = subprocess.Popen(
            [found, "-d", "-c", str(config)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_listening(process, port, "tinyproxy")
            yield Tinyproxy(f"http://{USER}:{password}@127.0.0.1:{port}", port, log)
        finally:
            stop(process)
