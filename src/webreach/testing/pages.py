"""Pages on the fake web for the reader: HTML pages and every fault a page fetch can meet, under `/_pages/`.

Routes (any method; query parameters pick the variant; `to=` may be absolute or relative):

    /_pages/article[?title=T&site=S]   a readable article page          /_pages/status/<code>   a generic page
    /_pages/challenge[?status=403]     a Cloudflare-style challenge     /_pages/js-shell        a JavaScript-only shell
    /_pages/tiny-script                a tiny page whose script merely mentions location (no redirect)
    /_pages/binary                     PNG bytes labelled image/png     /_pages/echo            the request as JSON
    /_pages/redirect?to=U[&status=302] a redirect                       /_pages/no-location[?status=302]
    /_pages/redirect-bomb?to=U         a 302 carrying a gzip bomb body (a client must never read it)
    /_pages/chain/<n>                  n redirects, then the article    /_pages/loop/<a|b>      a -> b -> a ...
    /_pages/endless  /_pages/hang  /_pages/truncated  /_pages/reset      the connection faults of faults.py
    /_pages/reset-mid-body             half the body, then a TCP RST    /_pages/close-after     keep-alive, then closed
    /_pages/drip[?bytes=1&interval=0.05]  the article a few bytes at a time
    /_pages/long-body                  Content-Length smaller than the bytes sent
    /_pages/gzip[?layers=1]            the article gzip'ed `layers` times (Content-Encoding repeated)
    /_pages/deflate[?raw=1]            the article deflated (zlib-wrapped, or raw with raw=1)
    /_pages/gzip-bomb[?size=N]         N zero bytes (default 64 MiB) gzip'ed into ~N/1000 bytes
    /_pages/corrupt-gzip  /_pages/truncated-gzip  /_pages/brotli       bad or unaccepted encodings
    /_pages/header-bomb[?count=N]      N response headers               /_pages/huge-header[?size=N]  one big header
    /_pages/meta-refresh?to=U          a tiny page with <meta http-equiv=refresh>
    /_pages/js-redirect?to=U[&style=href|replace|assign]   a tiny page that redirects by script
    /_pages/baidu-link?to=U[&style=302|js|meta]            Baidu's /link?url= answers
    /_pages/jina[/<url>]               an r.jina.ai stand-in: POST {"url"} or GET /<url>; JSON with Accept JSON

Tests may also register fixed pages at any path, optionally for one Host only (robots.txt per site):
`web.pages.add("/robots.txt", b"User-agent: *\\nDisallow: /private", host="site.test")`.
Every request is logged in `web.pages.requests` with its Host and headers (Authorization included: tests
check that it was dropped). Every stream stops at the fake web's `Limits`, so nothing outlives a test.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import threading
import zlib
from collections import deque
from dataclasses import dataclass
from html import escape
from urllib.parse import parse_qs

from webreach.testing.faults import endless, reset, truncate
from webreach.testing.scenarios import Limits, Reply, challenge_page, generic_page
from webreach.testing.wire import Request, response_head, write_json, write_response

PAGES_PREFIX = "/_pages"
HTML = (("content-type", "text/html; charset=utf-8"),)
_PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64)


def article_html(title: str = "The fake web article", site: str | None = None) -> bytes:
    """A readable article: a title, a byline, several paragraphs and some navigation around them; `site` declares
    the site's name (og:site_name)."""
    paragraphs = "".join(
        f"<p>Paragraph {n} of the fake web article explains how webreach reads pages safely: every hop goes "
        f"through the guard, every byte counts against a budget, and nothing private is ever reached. {n}</p>"
        for n in range(1, 9)
    )
    page = (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        '<meta name="author" content="Fake Author"><link rel="canonical" href="/_pages/article">'
        + (f'<meta property="og:site_name" content="{escape(site)}">' if site else "")
        + "</head><body>"
        '<nav><a href="/">Home</a> <a href="/about">About</a></nav>'
        f"<article><h1>{escape(title)}</h1>{paragraphs}</article><footer>Footer links</footer></body></html>"
    )
    return page.encode()


def _tiny(body: str) -> Reply:
    return Reply(200, HTML, f"<!DOCTYPE html><html><head>{body}</head><body></body></html>".encode())


def _js_string(url: str) -> str:
    return json.dumps(url).replace("/", "\\/")  # as pages often write it, escaped slashes included


@dataclass(frozen=True)
class PageRequest:
    """One request a page route received."""

    host: str
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes


class PageSite:
    """The `/_pages/` routes plus pages registered by tests; thread-safe like the rest of FakeWeb."""

    def __init__(self, log_size: int = 1000) -> None:
        self._lock = threading.Lock()
        self._fixed: dict[tuple[str | None, str], Reply] = {}
        self._log: deque[PageRequest] = deque(maxlen=log_size)

    def add(
        self, path: str, body: bytes | str, *, status: int = 200, headers: dict[str, str] | None = None,
        host: str | None = None,
    ) -> None:  # fmt: skip
        """Serve `body` at `path` (for requests whose Host is `host`, or any host when None)."""
        data = body.encode() if isinstance(body, str) else body
        fields = tuple((headers or {"content-type": "text/plain; charset=utf-8"}).items())
        with self._lock:
            self._fixed[(host, path)] = Reply(status, fields, data)

    def remove(self, path: str, *, host: str | None = None) -> None:
        with self._lock:
            self._fixed.pop((host, path), None)

    @property
    def requests(self) -> list[PageRequest]:
        with self._lock:
            return list(self._log)

    def handles(self, request: Request) -> bool:
        """Whether this request is for a page rather than an engine or the control API."""
        if request.path == PAGES_PREFIX or request.path.startswith(PAGES_PREFIX + "/"):
            return True
        with self._lock:
            return (None, request.path) in self._fixed or (_host(request), request.path) in self._fixed

    async def answer(self, request: Request, writer: asyncio.StreamWriter, limits: Limits) -> bool:
        """Answer one page request; True when the connection may carry another."""
        with self._lock:
            self._log.append(
                PageRequest(_host(request), request.method, request.path, request.query, dict(request.headers),
                            request.body)
            )  # fmt: skip
            fixed = self._fixed.get((_host(request), request.path)) or self._fixed.get((None, request.path))
        keep_alive = request.keep_alive
        if fixed is not None:
            await write_response(writer, fixed.status, fixed.headers, fixed.body, keep_alive=keep_alive)
            return keep_alive
        parts = request.path[len(PAGES_PREFIX) :].strip("/").split("/", 1)
        query = {k: v[0] for k, v in parse_qs(request.query).items()}
        try:
            if await _fault(parts[0], request, writer, limits, query):
                return False
            reply = _page(parts, request, query)
        except ValueError as exc:  # a malformed query parameter (status=abc, size=-1)
            await write_json(writer, 400, {"error": f"bad page parameter: {exc}"}, keep_alive=False)
            return False
        await write_response(writer, reply.status, reply.headers, reply.body, keep_alive=keep_alive)
        return keep_alive


def _host(request: Request) -> str:
    host = (request.header("host") or "").lower()
    return host.rsplit(":", 1)[0] if not host.endswith("]") else host


def _page(parts: list[str], request: Request, query: dict[str, str]) -> Reply:
    """The non-fault pages."""
    name, rest = parts[0], parts[1] if len(parts) > 1 else ""
    to = query.get("to", "/_pages/article")
    status = int(query.get("status", "302"))
    match name:
        case "article":
            return Reply(200, HTML, article_html(query.get("title", "The fake web article"), query.get("site")))
        case "status":
            return generic_page(int(rest or "500"))
        case "challenge":
            page = challenge_page()
            return Reply(int(query.get("status", "403")), page.headers, page.body)
        case "js-shell":
            body = '<!DOCTYPE html><html><head><title>App</title></head><body><div id="root"></div>'
            body += "<noscript>You need to enable JavaScript to run this app.</noscript>"
            return Reply(200, HTML, (body + '<script src="/static/app.js"></script></body></html>').encode())
        case "tiny-script":
            return _tiny("<title>Tiny</title><script>var here = window.location.pathname;</script>")
        case "binary":
            return Reply(200, (("content-type", "image/png"),), _PNG)
        case "echo":
            echo = {"method": request.method, "path": request.path, "query": request.query,
                    "headers": dict(request.headers), "body": request.body.decode("utf-8", "replace")}  # fmt: skip
            return Reply(200, (("content-type", "application/json"),), json.dumps(echo).encode())
        case "redirect":
            return Reply(status, (("location", to), *HTML), b"<p>moved</p>")
        case "no-location":
            return Reply(status, HTML, b"<p>moved, but where?</p>")
        case "chain":
            hops = int(rest or "0")
            if hops <= 0:
                return Reply(200, HTML, article_html("End of the chain"))
            return Reply(302, (("location", f"{PAGES_PREFIX}/chain/{hops - 1}"),), b"")
        case "loop":
            return Reply(302, (("location", f"{PAGES_PREFIX}/loop/{'b' if rest == 'a' else 'a'}"),), b"")
        case "jina":
            return _jina(rest, request)
        case _:
            return _encoded(name, query) or _interstitial(name, query) or generic_page(404)


def _encoded(name: str, query: dict[str, str]) -> Reply | None:
    """Pages whose bodies are content-encoded, well or badly."""
    article = article_html()
    match name:
        case "gzip":
            layers, body = int(query.get("layers", "1")), article
            for _ in range(layers):
                body = gzip.compress(body)
            return Reply(200, (*HTML, ("content-encoding", ", ".join(["gzip"] * layers))), body)
        case "deflate":
            raw = query.get("raw") == "1"
            packer = zlib.compressobj(wbits=-zlib.MAX_WBITS if raw else zlib.MAX_WBITS)
            return Reply(200, (*HTML, ("content-encoding", "deflate")), packer.compress(article) + packer.flush())
        case "gzip-bomb" | "redirect-bomb":
            bomb = _gzip_zeros(min(int(query.get("size", str(64 * 1024 * 1024))), 1 << 30))
            if name == "redirect-bomb":
                return Reply(
                    302, (*HTML, ("location", query.get("to", "/_pages/article")), ("content-encoding", "gzip")), bomb
                )
            return Reply(200, (*HTML, ("content-encoding", "gzip")), bomb)
        case "corrupt-gzip":
            broken = bytearray(gzip.compress(article))
            broken[-8] ^= 0xFF  # the CRC32 in the trailer
            return Reply(200, (*HTML, ("content-encoding", "gzip")), bytes(broken))
        case "truncated-gzip":
            return Reply(200, (*HTML, ("content-encoding", "gzip")), gzip.compress(article)[:-20])
        case "brotli":
            return Reply(200, (*HTML, ("content-encoding", "br")), b"\x1b\x03\x00\xf8\xa5\x80\x01")
    return None


def _gzip_zeros(size: int) -> bytes:
    """`size` zero bytes gzip'ed a MiB at a time (the server itself must not hold the bomb decoded)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    chunk = bytes(min(size, 1024 * 1024))
    parts = [packer.compress(chunk[: min(len(chunk), size - done)]) for done in range(0, size, max(1, len(chunk)))]
    return b"".join(parts) + packer.flush()


def _interstitial(name: str, query: dict[str, str]) -> Reply | None:
    """Pages that only send the reader on: meta refresh, script redirects, and Baidu's link answers."""
    to = query.get("to", "/_pages/article")
    style = query.get("style", "302" if name == "baidu-link" else "href")
    match name, style:
        case "meta-refresh", _:
            return _tiny(f'<meta http-equiv="refresh" content="0; url=\'{escape(to)}\'">')
        case "js-redirect", "replace" | "assign":
            return _tiny(f"<script>window.location.{style}({_js_string(to)});</script>")
        case "js-redirect", _:
            return _tiny(f"<script>location.href = {_js_string(to)};</script>")
        case "baidu-link", "js" | "meta":
            # Baidu's 200 answer carries both forms: the script, and the meta refresh inside <noscript>
            script = f'<script>window.location.replace("{to}")</script>' if style == "js" else ""
            meta = f'<noscript><META http-equiv="refresh" content="0;URL=\'{escape(to)}\'"></noscript>'
            return _tiny(f'<meta content="always" name="referrer">{script}{meta}')
        case "baidu-link", _:
            return Reply(302, (("location", to), ("content-type", "text/html")), b"")
    return None


def _jina(rest: str, request: Request) -> Reply:
    """An r.jina.ai stand-in: the target from the path or a JSON body, echoed in a markdown document."""
    target = rest
    if request.query and target:
        target += "?" + request.query
    if not target and request.body:
        with contextlib.suppress(ValueError, AttributeError):
            target = str(json.loads(request.body).get("url", ""))
    content = f"# Read by the fake Jina\n\nThe page at {target} as markdown, with a paragraph of text."
    if "json" in (request.header("accept") or ""):
        data = {"title": "Read by the fake Jina", "url": target, "content": content, "description": ""}
        body = json.dumps({"code": 200, "status": 20000, "data": data}).encode()
        return Reply(200, (("content-type", "application/json"),), body)
    text = f"Title: Read by the fake Jina\n\nURL Source: {target}\n\nMarkdown Content:\n{content}\n"
    return Reply(200, (("content-type", "text/plain; charset=utf-8"),), text.encode())


async def _fault(name: str, request: Request, writer: asyncio.StreamWriter, limits: Limits, q: dict[str, str]) -> bool:
    """Write a connection-level fault; True when one was written (the connection is then done)."""
    article = Reply(200, HTML, article_html())
    match name:
        case "endless":
            await endless(writer, Reply(200, HTML, b""), limits)
        case "hang":
            await asyncio.sleep(limits.hang_seconds)
        case "truncated":
            await truncate(writer, article)
        case "reset":
            reset(writer)
        case "reset-mid-body":
            framing = (("content-length", str(len(article.body))), ("connection", "close"))
            writer.write(response_head(200, article.headers + framing) + article.body[: len(article.body) // 2])
            await writer.drain()
            reset(writer)
        case "close-after":  # promises keep-alive, then closes: the client must not reuse the connection
            await write_response(writer, 200, article.headers, article.body, keep_alive=True)
        case "drip":
            await _drip(writer, article, limits, int(q.get("bytes", "1")), float(q.get("interval", "0.05")))
        case "long-body":
            framing = (("content-length", str(len(article.body) // 2)), ("connection", "close"))
            writer.write(response_head(200, article.headers + framing) + article.body)
            await writer.drain()
        case "header-bomb":
            headers = [(f"x-bomb-{n}", "b") for n in range(int(q.get("count", "5000")))]
            writer.write(response_head(200, [*HTML, *headers, ("content-length", "0"), ("connection", "close")]))
            await writer.drain()
        case "huge-header":
            big = ("x-huge", "h" * int(q.get("size", str(1024 * 1024))))
            writer.write(response_head(200, [*HTML, big, ("content-length", "0"), ("connection", "close")]))
            await writer.drain()
        case _:
            return False
    return True


async def _drip(writer: asyncio.StreamWriter, reply: Reply, limits: Limits, size: int, interval: float) -> None:
    """The body `size` bytes every `interval` seconds (a slowloris server), up to the stream time cap."""
    framing = (("content-length", str(len(reply.body))), ("connection", "close"))
    writer.write(response_head(reply.status, reply.headers + framing))
    await writer.drain()
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(limits.stream_seconds):
            for start in range(0, len(reply.body), max(1, size)):
                await asyncio.sleep(max(0.001, interval))
                writer.write(reply.body[start : start + size])
                await writer.drain()
