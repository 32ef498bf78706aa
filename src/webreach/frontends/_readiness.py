"""GET /readyz: whether the backends this process is configured with answer now (GET /healthz is the process only).

Checked: the state backend ([state] backend "redis": the shared connection answers PING; "sqlite": the state file
opens and its schema reads, or, before the first write created it, its directory is writable; "memory": nothing to
reach) and, with [accounts] enabled, the ledger's database (one `SELECT 1` on the ledger's own thread, PostgreSQL
or SQLite alike). Each check runs off the event loop (redis.asyncio; a worker thread for SQLite and psycopg) and is
bounded by READY_TIMEOUT. A check still running from an earlier probe is awaited again rather than started twice,
so a prober polling a hung database every second never piles up threads or ledger jobs.

The answer is 200 {"status": "ready", "checks": {...}} or 503 {"status": "unready", "checks": {...}}, each check
{"ok", "backend"} and, when it failed, the typed error's "code", "retryable" and a "message" naming the backend
and what went wrong: never a URL (a Redis or PostgreSQL URL may hold a password).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from webreach.errors import AccountingUnavailableError, StateBackendError, WebreachError
from webreach.gateway import Gateway

READY_TIMEOUT = 2.0  # seconds one backend check may take before it counts as failed

Check = Callable[[], Awaitable[None]]


@dataclass
class Readiness:
    """The /readyz handler over the served gateway; `pending` holds each check's task while it runs."""

    gateway: Callable[[], Gateway]
    timeout: float = READY_TIMEOUT
    pending: dict[str, asyncio.Task[None]] = field(default_factory=dict)

    async def answer(self, request: Request) -> Response:
        """GET /readyz."""
        checks = await self.report()
        ready = all(check["ok"] for check in checks.values())
        body = {"status": "ready" if ready else "unready", "checks": checks}
        return JSONResponse(body, status_code=200 if ready else 503, headers={"cache-control": "no-store"})

    async def report(self) -> dict[str, dict[str, Any]]:
        """Each configured backend's check result, run concurrently."""
        gateway = self.gateway()
        planned: dict[str, tuple[str, Check, type[WebreachError]]] = {"state": _state_check(gateway)}
        if gateway.accounts.enabled:
            database = gateway.accounts.url()
            backend = "postgresql" if database.startswith(("postgresql:", "postgres:")) else "sqlite"
            planned["accounts"] = (backend, lambda: _ledger_answers(gateway), AccountingUnavailableError)
        results = await asyncio.gather(
            *(self._run(name, backend, check, error) for name, (backend, check, error) in planned.items())
        )
        return dict(zip(planned, results, strict=True))

    async def _run(self, name: str, backend: str, check: Check, error: type[WebreachError]) -> dict[str, Any]:
        task = self.pending.get(name)
        if task is None or task.done():
            task = self.pending[name] = asyncio.ensure_future(check())
        try:
            await asyncio.wait_for(asyncio.shield(task), self.timeout)
        except TimeoutError:
            return _failed(backend, error(f"{backend} did not answer within {self.timeout:g} s"))
        except WebreachError as failure:
            return _failed(backend, failure)
        except Exception as exc:  # a driver's error the store did not type: named by its type, never its text
            return _failed(backend, error(f"{backend} cannot be used ({type(exc).__name__})"))
        return {"ok": True, "backend": backend}


def _failed(backend: str, error: WebreachError) -> dict[str, Any]:
    return {"ok": False, "backend": backend, "code": error.code, "retryable": error.retryable, "message": error.message}


def _state_check(gateway: Gateway) -> tuple[str, Check, type[WebreachError]]:
    """The [state] backend's name and check."""
    state = gateway.settings.state
    if state.backend == "redis":
        return "redis", lambda: _redis_answers(gateway), StateBackendError
    if state.backend == "memory":
        return "memory", _nothing, StateBackendError
    path = gateway.state.state_path
    return "sqlite", lambda: asyncio.to_thread(_sqlite_usable, path), StateBackendError


async def _nothing() -> None:
    return None


async def _redis_answers(gateway: Gateway) -> None:
    redis = gateway.state.redis
    if redis is None:
        raise StateBackendError("redis is configured but no connection is open")
    try:
        await cast("Awaitable[bool]", redis.client.ping())
    except Exception as exc:  # redis-py's errors, OSError, its socket timeouts
        raise StateBackendError(f"redis does not answer PING ({type(exc).__name__})") from None


def _sqlite_usable(path: Path) -> None:
    """The state file opens read-only and its schema reads, or (not created yet) its directory can hold it."""
    if not path.exists():
        ancestor = next(parent for parent in path.parents if parent.exists())
        if not (ancestor.is_dir() and os.access(ancestor, os.W_OK | os.X_OK)):
            raise StateBackendError(f"the state file's directory {ancestor} is not writable")
        return
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=READY_TIMEOUT)) as conn:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as exc:
        raise StateBackendError(f"the state file {path} cannot be read ({type(exc).__name__}: {exc})") from None


async def _ledger_answers(gateway: Gateway) -> None:
    def select_one() -> None:
        with gateway.accounts.ledger.database.transaction(write=False) as tx:
            tx.one("SELECT 1")

    await gateway.accounts.off_loop(select_one)
