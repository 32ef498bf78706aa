"""The sites behind the fake web's search results: a readable page for every result URL in its recordings.

An offline search answers with real-looking result URLs (https://docs.python.org/3/library/asyncio.html); these
pages let the next step, reading a result, work offline too. The index, recordings/_results.json, lists every
result URL of every `results*.http` recording with its title and snippet; scripts/fakeweb_results.py writes it
with webreach's own parsers (the fake web never imports engines) and a test keeps it in step.

A request whose Host header names a site, not an address (the fake web's own routes are reached by address),
is answered here, whatever its port or scheme:
- a URL in the index: a recorded page when its entry names one (`"page": "<path under recordings/>"`, a `.http`
  recording), else an HTML article generated from the result's title and snippet, which says it is the fake
  web's stand-in;
- anything else on such a host (robots.txt included): 404, so robots.txt allows everything.

The fake web's own named pages (own_pages.py: the README's PDF and JavaScript app) are answered the same way.

`serves(host)` answers the control API's GET /_fakeweb/resolve?host=H, which is how webreach's fake-web mode
resolves names (net/fake_web.py): a host is "on the fake web" when some result URL is on it.
"""

from __future__ import annotations

import ipaddress
import json
from dataclasses import dataclass
from html import escape
from pathlib import Path
from urllib.parse import urlsplit

from webreach.testing.own_pages import OWN_PAGES
from webreach.testing.recordings import load_recording
from webreach.testing.scenarios import Reply
from webreach.testing.wire import Request

INDEX_FILE = "_results.json"
HTML = (("content-type", "text/html; charset=utf-8"),)


@dataclass(frozen=True)
class SiteEntry:
    """One result URL the fake web serves a page for."""

    url: str
    title: str
    snippet: str
    engine: str
    page: str | None = None  # a recorded page (path under the recordings folder) instead of a generated one


def site_key(host: str, target: str) -> str:
    """How a page is looked up: lower-case host without port, then path and query (scheme and port ignored)."""
    return host.lower().rstrip(".") + (target or "/")


def _entry_key(url: str) -> str:
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return site_key(parts.hostname or "", target)


class Sites:
    """The result index of one recordings folder, loaded once."""

    def __init__(self, recordings_dir: Path) -> None:
        self.recordings_dir = recordings_dir
        index = recordings_dir / INDEX_FILE
        results = json.loads(index.read_text(encoding="utf-8"))["results"] if index.is_file() else []
        self._pages = {_entry_key(item["url"]): SiteEntry(**item) for item in results}
        self._hosts = frozenset(key.partition("/")[0] for key in (*self._pages, *OWN_PAGES))

    def __len__(self) -> int:
        return len(self._pages)

    def urls(self) -> list[str]:
        """Every result URL served, sorted."""
        return sorted(entry.url for entry in self._pages.values())

    def serves(self, host: str) -> bool:
        """Whether some result URL is on `host`."""
        return host.lower().rstrip(".") in self._hosts

    def handles(self, request: Request) -> bool:
        """Whether the request is for a site (its Host is a name, not the fake web's own address)."""
        host = request_host(request)
        if not host or host == "localhost":
            return False
        try:
            ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            return True
        return False

    def reply(self, request: Request) -> Reply:
        """The page for the request's URL, or a 404 page."""
        target = request.path + (f"?{request.query}" if request.query else "")
        key = site_key(request_host(request), target)
        if key in OWN_PAGES:
            return OWN_PAGES[key]
        entry = self._pages.get(key)
        if entry is None:
            return Reply(404, HTML, b"<!DOCTYPE html><html><body><h1>Not on the fake web</h1></body></html>")
        if entry.page is not None:
            recording = load_recording(self.recordings_dir / entry.page)
            return Reply(recording.status, recording.headers, recording.body)
        return Reply(200, HTML, generated_page(entry))


def request_host(request: Request) -> str:
    """The Host header's name, lower-cased, without the port."""
    host = (request.header("host") or "").lower()
    return host.rsplit(":", 1)[0] if not host.endswith("]") else host


def generated_page(entry: SiteEntry) -> bytes:
    """A readable article from a result's title and snippet, saying plainly what it is."""
    title, snippet, url = escape(entry.title), escape(entry.snippet or entry.title), escape(entry.url)
    paragraphs = (
        f"<p>{snippet}</p>",
        f"<p>This page stands in for {url} on the fake web, webreach's offline test server. It was generated from "
        f"the search result that {escape(entry.engine)} returned in a recorded response: the title above and the "
        "snippet before this paragraph are that result's own words.</p>",
        "<p>With network access, webreach reads the real page at this address instead. Offline, this stand-in "
        "lets an agent or a test follow a search with a read of any result, end to end, over real sockets.</p>",
    )
    page = (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f'<link rel="canonical" href="{url}"></head><body><nav><a href="/">Home</a></nav>'
        f"<article><h1>{title}</h1>{''.join(paragraphs)}</article><footer>fake web</footer></body></html>"
    )
    return page.encode()
