"""`webreach serve`'s runner: listen, check the server settings, run uvicorn in one process or a few workers."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Sequence

import uvicorn
from starlette.applications import Starlette

from webreach.config import ServerSettings, Settings
from webreach.frontends._errors import EXIT_INVALID_INPUT, cannot_listen
from webreach.frontends._heap import settle as settle_heap
from webreach.frontends._http_app import build_app
from webreach.frontends._listening import listen, protocol_class
from webreach.frontends._open_tools import open_tools_warning
from webreach.frontends._serve_logs import LogOptions, announcement, log_config, secrets_of
from webreach.frontends._workers import Supervisor, check_workers


def run_http(
    settings: Settings,
    *,
    host: str = "127.0.0.1",
    port: int = 9090,
    server: ServerSettings | None = None,
    bare_route: bool = False,
    logs: LogOptions | None = None,
    masked: Sequence[str] = (),
    workers: int = 1,
) -> None:
    """`webreach serve`: serve MCP and REST until interrupted (blocking). Port 0 picks a free port. `workers`
    processes share the socket (frontends/_workers.py; the CLI sets up their metrics directory first).

    `logs` sets the level, the access log and text or JSON lines (frontends/_serve_logs.py; the secrets of
    `settings` masked, and `masked` too: the console's stored keys).

    Prints one line to stderr once serving, naming the actual address, e.g.
    "webreach: serving http://127.0.0.1:9090 (MCP /mcp, REST /v1/..., docs /docs)".
    A port in use or an unknown address raises InvalidInputError (frontends/_errors.cannot_listen).
    """
    try:
        sock = listen(host, port)
    except OSError as exc:  # the CLI prints it as `webreach fakeweb` does: code, message, hint, exit 2
        raise cannot_listen(host, port, exc) from None
    actual = sock.getsockname()[1]
    server = (server or settings.server).model_copy(update={"host": host, "port": actual})
    address = f"http://{f'[{host}]' if ':' in host else host}:{actual}"

    logs = logs or LogOptions()

    def announce() -> None:
        text = f"webreach: serving {address} (MCP {address}/mcp, REST {address}/v1/..., docs {address}/docs)"
        print(announcement(logs, text), file=sys.stderr, flush=True)

    _check_packages(server)
    check_workers(workers, settings)
    warning = open_tools_warning(settings, host, address)
    if warning is not None:
        print(announcement(logs, warning, level="warning"), file=sys.stderr, flush=True)

    def serve_one(index: int) -> None:
        # a short admin token is refused here; the first worker announces the address once it serves
        app = build_app(settings, server=server, bare_route=bare_route, on_ready=ready_hook(index, announce))
        uvicorn.Server(_uvicorn_config(app, server, settings, logs, masked)).run(sockets=[sock])

    if workers == 1:
        serve_one(0)
    else:
        Supervisor(workers, serve_one).run()


def _check_packages(server: ServerSettings) -> None:
    """Exit with the invalid-input status when the event loop or HTTP parser asked for is not installed."""
    for package in (server.event_loop, server.http_parser):
        if package in ("uvloop", "httptools") and importlib.util.find_spec(package) is None:
            print(
                f"webreach: the server setting {package} needs the {package} package (pip install {package})",
                file=sys.stderr,
            )
            raise SystemExit(EXIT_INVALID_INPUT)


def ready_hook(index: int, announce: Callable[[], None]) -> Callable[[], None]:
    """What worker `index` does once its app is ready: its start-up heap frozen (_heap.py), and the first worker
    announces the address."""

    def ready() -> None:
        settle_heap()
        if index == 0:
            announce()

    return ready


def _uvicorn_config(
    app: Starlette, server: ServerSettings, settings: Settings, logs: LogOptions, masked: Sequence[str]
) -> uvicorn.Config:
    return uvicorn.Config(
        app,
        forwarded_allow_ips=server.trusted_proxies,  # whose X-Forwarded-For/-Proto count ([server] trusted_proxies)
        loop=server.event_loop,
        http=protocol_class(server.http_parser),
        log_level=logs.level,
        access_log=logs.access_log,
        log_config=log_config(logs, [*secrets_of(settings), *masked]),
        lifespan="on",
        timeout_graceful_shutdown=5,
        server_header=False,
    )
