"""FakeWeb: a loopback HTTP server that plays recorded engine responses and injects faults on demand.

Routes: `/<engine>/<anything>` (any method; the query string does not route) answers with the engine's current
scenario (scenarios.py), by default its `results` recording; an engine is any folder of `.http` recordings. The
engine's root `/<engine>/` answers with its `warm_up` recording when it has one (DuckDuckGo Images' vqd page,
Baidu Images' cookie), so an engine's two steps are both served.
`/_fakeweb/...` is the control API (control.py), so another process can switch scenarios and read the log.
`/_pages/...` and pages registered with `web.pages.add()` serve the reader's pages and faults (pages.py).
`/_js/...` serves JavaScript-rendered pages for the browser reader (js_pages.py).
A request whose Host is a site name rather than an address gets that site's page: every result URL of the
recordings has one (sites.py), so offline an agent can read what it found; such requests are logged as "_sites".

Point webreach at it with WEBREACH_FAKE_WEB=<web.url>: the gateway sets each engine's base_url to
`<web.url>/<engine>`, which is `web.engine_url(engine)`. It binds loopback addresses only.

The request log (`web.requests()`, GET /_fakeweb/requests) leaves cookies out and shows credentials as "***":
the headers in SECRET_HEADERS and the query parameters in SECRET_PARAMETERS, since users point real keys at it.
Tests that must see a key arrive opt in with `FakeWeb(log_secrets=True)`.

    async with FakeWeb() as web:                 # inside a running event loop
        web.set_scenario("mojeek", fault="captcha")
    with FakeWeb.in_thread() as web:             # its own loop in a daemon thread, for sync code
        ...
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import ipaddress
import re
import threading
from collections import Counter, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import parse_qsl, unquote_plus

from webreach.clock import Clock, SystemClock
from webreach.net.offline import is_control_path
from webreach.testing.control import handle_control
from webreach.testing.faults import send
from webreach.testing.js_pages import JS_ROUTE, is_js_page, serve_js_page
from webreach.testing.pages import PageSite
from webreach.testing.recordings import RECORDINGS_DIR
from webreach.testing.reverse_fetch import ReverseFetcher
from webreach.testing.scenarios import DEFAULT_LIMITS, ENGINE_NAME, Limits, Scenario, key_refused, plan_reply
from webreach.testing.sites import Sites
from webreach.testing.threaded import LoopThread
from webreach.testing.wire import BadRequest, Request, read_request, write_json, write_response

_DEFAULT = Scenario()
SITES_ROUTE = "_sites"
REDACTED = "***"
# where engines put their keys (lower-cased, as the wire reader gives header names)
SECRET_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "x-subscription-token", "x-api-key", "x-goog-api-key"}
)
SECRET_PARAMETERS = frozenset({"api_key", "apikey", "key", "token", "access_token"})
_QUERY_PAIR = re.compile(r"(^|&)([^&=]*)=([^&]*)")


class UnknownEngineError(LookupError):
    """No recordings folder for that engine, or no such recording (HTTP 404 on the control API)."""


@dataclass(frozen=True)
class LoggedRequest:
    """One request an engine route received (cookies left out, credentials "***" unless the web logs secrets)."""

    engine: str
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes
    timestamp: float

    def to_json(self) -> dict[str, Any]:
        fields = dataclasses.asdict(self)
        return {**fields, "body": self.body[:4096].decode("utf-8", errors="replace")}


def loopback_host(host: str) -> str:
    """The address to bind, or ValueError: the fake web never listens beyond this machine."""
    if host == "localhost":
        return "127.0.0.1"  # one address, so port 0 cannot pick different ports for IPv4 and IPv6
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        raise ValueError(f"the fake web binds loopback IP addresses only, not {host!r}") from None
    if not address.is_loopback:
        raise ValueError(f"the fake web binds loopback addresses only, not {host!r}")
    return str(address)


class FakeWeb:
    """The fake web server. Scenario and log methods are thread-safe, so sync code may call them too."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        recordings_dir: Path = RECORDINGS_DIR,
        *,
        limits: Limits = DEFAULT_LIMITS,
        clock: Clock | None = None,
        log_size: int = 1000,
        log_secrets: bool = False,
    ) -> None:
        self.host = loopback_host(host)
        self.log_secrets = log_secrets  # keep keys in the request log as sent (tests that check a key arrived)
        self.recordings_dir = Path(recordings_dir)
        self.limits = limits
        self._requested_port = port
        self._clock = clock or SystemClock()
        self._lock = threading.Lock()
        self._scenarios: dict[str, Scenario] = {}
        self._log: deque[LoggedRequest] = deque(maxlen=log_size)
        self._counts: Counter[str] = Counter()
        self._server: asyncio.Server | None = None
        self._port: int | None = None
        self._connections: set[asyncio.Task[Any]] = set()
        self.pages = PageSite()  # `/_pages/...` and pages tests register (pages.py)
        self.sites = Sites(self.recordings_dir)  # a page for every result URL of the recordings (sites.py)
        self.reverse = ReverseFetcher()  # reverse_* routes fetch loopback image URLs back (reverse_fetch.py)

    # -- lifecycle ---------------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start listening (in the running event loop)."""
        if self._server is not None:
            raise RuntimeError("the fake web is already running")
        self._server = await asyncio.start_server(self._connection, self.host, self._requested_port)
        self._port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Stop listening and end every open connection, hanging and endless ones included."""
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        # a connection accepted just before close() may start its task late: it sees _server is None and ends
        while self._connections:
            for task in list(self._connections):
                task.cancel()
            await asyncio.gather(*self._connections, return_exceptions=True)
            await asyncio.sleep(0)
        await server.wait_closed()

    async def __aenter__(self) -> FakeWeb:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    @classmethod
    @contextlib.contextmanager
    def in_thread(
        cls,
        host: str = "127.0.0.1",
        port: int = 0,
        recordings_dir: Path = RECORDINGS_DIR,
        *,
        limits: Limits = DEFAULT_LIMITS,
        clock: Clock | None = None,
        log_secrets: bool = False,
    ) -> Iterator[FakeWeb]:
        """Run a FakeWeb on its own event loop in a daemon thread for the duration of the `with` block."""
        web = cls(host, port, recordings_dir, limits=limits, clock=clock, log_secrets=log_secrets)
        runner = LoopThread(web)
        runner.start()
        try:
            yield web
        finally:
            runner.stop()

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("the fake web is not started: use `async with FakeWeb()` or `FakeWeb.in_thread()`")
        return self._port

    @property
    def url(self) -> str:
        """The base URL, e.g. "http://127.0.0.1:8765" (the value for WEBREACH_FAKE_WEB)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def engine_url(self, engine: str) -> str:
        """The base URL an engine gets when WEBREACH_FAKE_WEB points here."""
        return f"{self.url}/{engine}"

    # -- scenarios and the request log ------------------------------------------------------------------------

    def engines(self) -> list[str]:
        """Engines with recordings (folder names under recordings_dir)."""
        if not self.recordings_dir.is_dir():
            return []
        return sorted(p.name for p in self.recordings_dir.iterdir() if p.is_dir() and ENGINE_NAME.fullmatch(p.name))

    def set_scenario(self, engine: str, **fields: Any) -> Scenario:
        """Replace an engine's scenario (fields of Scenario); ValueError for bad fields, LookupError for names."""
        scenario = Scenario.from_fields(fields)
        self._check_names(engine, scenario.case)
        with self._lock:
            self._scenarios[engine] = scenario
        return scenario

    def scenario(self, engine: str) -> Scenario:
        """The scenario the engine's next request gets."""
        with self._lock:
            return self._scenarios.get(engine, _DEFAULT)

    def reset(self, engine: str | None = None) -> None:
        """Back to the default scenario, for one engine or all (the request log is kept: see clear_requests)."""
        with self._lock:
            if engine is None:
                self._scenarios.clear()
            else:
                self._scenarios.pop(engine, None)

    def requests(self, engine: str | None = None) -> list[LoggedRequest]:
        """Recent requests, oldest first (the log keeps the last `log_size`), for one engine or all."""
        with self._lock:
            return [r for r in self._log if engine is None or r.engine == engine]

    def scenarios(self) -> dict[str, Scenario]:
        """Every engine whose scenario is not the default."""
        with self._lock:
            return dict(sorted(self._scenarios.items()))

    def counts(self) -> dict[str, int]:
        """Requests per engine since start or the last clear_requests."""
        with self._lock:
            return dict(sorted(self._counts.items()))

    def count(self, engine: str | None = None) -> int:
        """Requests received since start or the last clear_requests, for one engine or in total."""
        with self._lock:
            return self._counts[engine] if engine is not None else sum(self._counts.values())

    def clear_requests(self) -> None:
        """Forget the request log and counts."""
        with self._lock:
            self._log.clear()
            self._counts.clear()

    def _check_names(self, engine: str, case: str | None) -> None:
        if not ENGINE_NAME.fullmatch(engine) or not (self.recordings_dir / engine).is_dir():
            raise UnknownEngineError(f"no recordings for engine {engine!r} (known: {', '.join(self.engines())})")
        if case is not None and not (self.recordings_dir / engine / f"{case}.http").is_file():
            cases = sorted(p.stem for p in (self.recordings_dir / engine).glob("*.http"))
            raise UnknownEngineError(f"{engine} has no recording {case!r} (has: {', '.join(cases)})")

    def _take(self, engine: str, request: Request) -> Scenario:
        """Log the request and hand out the scenario it gets, using up one of a limited scenario's `times`."""
        headers: dict[str, str] = {}
        for name, value in request.headers:
            if name != "cookie":
                if name in SECRET_HEADERS and not self.log_secrets:
                    value = REDACTED
                headers[name] = f"{headers[name]}, {value}" if name in headers else value
        query = request.query if self.log_secrets else redact_query(request.query)
        entry = LoggedRequest(engine, request.method, request.path, query, headers, request.body, 0.0)
        with self._lock:
            self._log.append(dataclasses.replace(entry, timestamp=self._clock.now()))
            self._counts[engine] += 1
            scenario = self._scenarios.get(engine, _DEFAULT)
            if scenario.times is not None:
                if scenario.times > 1:
                    self._scenarios[engine] = dataclasses.replace(scenario, times=scenario.times - 1)
                else:
                    del self._scenarios[engine]
        return scenario

    # -- serving ----------------------------------------------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            while self._server is not None and await self._answer(reader, writer):
                pass
        except OSError:
            pass  # the client went away (reset, broken pipe): nothing left to answer
        except asyncio.CancelledError:
            pass  # stop() cancels open connections; escaping, this makes Python 3.11's stream callback log an error
        finally:
            await _close(writer)
            self._connections.discard(task)  # only now: stop() must wait for the close too

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Answer one request; True when the connection stays open for another."""
        try:
            async with asyncio.timeout(self.limits.idle_seconds):
                request = await read_request(reader)
        except TimeoutError:
            return False
        except BadRequest as exc:
            await write_json(writer, 400, {"error": str(exc)}, keep_alive=False)
            return False
        if request is None:
            return False
        if is_control_path(request.path):
            status, payload = handle_control(self, request)
            await write_json(writer, status, payload, keep_alive=request.keep_alive)
            return request.keep_alive
        if is_js_page(request.path):  # JavaScript pages for the browser reader (js_pages.py), logged as "_js"
            self._take(JS_ROUTE, request)
            return await serve_js_page(writer, request)
        if self.pages.handles(request):  # the reader's pages and faults (pages.py)
            return await self.pages.answer(request, writer, self.limits)
        if self.sites.handles(request):  # a result's site, reached by name in fake-web mode (sites.py)
            self._take(SITES_ROUTE, request)
            reply = self.sites.reply(request)
            keep_alive = request.keep_alive
            await write_response(writer, reply.status, reply.headers, reply.body, keep_alive=keep_alive)
            return keep_alive
        engine = request.path.strip("/").split("/", 1)[0]
        if not ENGINE_NAME.fullmatch(engine) or not (self.recordings_dir / engine).is_dir():
            payload = {"error": f"unknown engine {engine!r}", "engines": self.engines()}
            await write_json(writer, 404, payload, keep_alive=request.keep_alive)
            return request.keep_alive
        return await self._serve_engine(engine, request, writer)

    async def _serve_engine(self, engine: str, request: Request, writer: asyncio.StreamWriter) -> bool:
        scenario = self._take(engine, request)
        if engine.startswith("reverse_"):
            refusal = await self.reverse.refuses(engine, request)
            if refusal is not None:
                await write_json(writer, 400, {"error": refusal}, keep_alive=request.keep_alive)
                return request.keep_alive
        sent = [value for name, value in request.headers if name in SECRET_HEADERS]
        sent += [value for name, value in parse_qsl(request.query) if name in SECRET_PARAMETERS]
        scenario = key_refused(scenario, sent, self.recordings_dir / engine)
        try:
            below = request.path.strip("/").partition("/")[2]
            reply = plan_reply(scenario, self.recordings_dir / engine, warm_up=not below)
        except (OSError, ValueError) as exc:  # a recording deleted or broken after the scenario was set
            await write_json(writer, 500, {"error": f"cannot serve {engine}: {exc}"}, keep_alive=False)
            return False
        if scenario.latency:
            await asyncio.sleep(scenario.latency)
        keep_alive, head_only = request.keep_alive, request.method == "HEAD"
        return await send(writer, reply, scenario.fault, self.limits, keep_alive=keep_alive, head_only=head_only)


def redact_query(query: str) -> str:
    """A raw query string with the values of SECRET_PARAMETERS replaced by ***, everything else as sent."""

    def mask(pair: re.Match[str]) -> str:
        lead, name, value = pair.groups()
        secret = unquote_plus(name).lower() in SECRET_PARAMETERS and value
        return f"{lead}{name}={REDACTED if secret else value}"

    return _QUERY_PAIR.sub(mask, query)


async def _close(writer: asyncio.StreamWriter) -> None:
    """Close gracefully (a truncated body must still arrive), but never wait on a client that stopped reading."""
    writer.close()
    try:
        async with asyncio.timeout(1.0):
            await writer.wait_closed()
    except (TimeoutError, OSError, asyncio.CancelledError):  # the connection task ends here either way
        writer.transport.abort()


async def serve(
    host: str = "127.0.0.1",
    port: int = 0,
    recordings_dir: Path = RECORDINGS_DIR,
    *,
    limits: Limits = DEFAULT_LIMITS,
    announce: Callable[[str], None] | None = None,
) -> None:
    """Run a fake web until cancelled (`webreach fakeweb`); `announce` gets its URL once it listens."""
    async with FakeWeb(host, port, recordings_dir, limits=limits) as web:
        if announce is not None:
            announce(web.url)
        await asyncio.Event().wait()
