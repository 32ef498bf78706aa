"""A `webreach serve` whose metering runs over a null ledger (bench/accounting_floor.py's floor; bench only, never
shipped): the Metering policy, its keys and prices, and the same hand-off to the group commit's thread and back,
with the ledger's work replaced by a no-op (no SQL, no transaction). `--inline` runs that no-op on the event loop
instead (the policy alone, no hand-off). Agents and keys are the real SQLite ledger's (authentication is cached)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any, TypeVar

import uvicorn

from webreach.accounts.charges import Charge
from webreach.accounts.group_commit import GroupCommit
from webreach.accounts.ledger import Agent, Reservation
from webreach.accounts.quotas import HOUR, Usage
from webreach.accounts.service import Accounts, Held, Then
from webreach.accounts.transaction import Transaction
from webreach.config import Settings
from webreach.frontends._http_app import build_app
from webreach.frontends._http_run import _uvicorn_config, ready_hook
from webreach.frontends._listening import listen
from webreach.frontends._serve_logs import LogOptions
from webreach.gateway import Gateway

T = TypeVar("T")


class _NoCursor:
    """A transaction's cursor that is never used: the null ledger sends nothing."""

    rowcount = 0

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        raise AssertionError(f"the null ledger sent {sql!r}")

    def executemany(self, sql: str, params: Sequence[Sequence[Any]]) -> Any:
        raise AssertionError(f"the null ledger sent {sql!r}")

    def fetchall(self) -> list[Any]:
        return []

    def fetchone(self) -> Any:
        return None


class _NullDatabase:
    lock_row = ""
    worker = None

    @contextlib.contextmanager
    def transaction(self, *, write: bool = True, patient: bool = True) -> Iterator[Transaction]:
        yield Transaction(_NoCursor(), postgres=False)

    def close(self) -> None:
        pass


class NullAccounts(Accounts):
    """Accounts whose metered calls reserve and settle nothing: each is held and committed at the agent's balance."""

    def __init__(self, accounts: Accounts, *, hand_off: bool) -> None:
        super().__init__(accounts.settings, accounts.clock)
        self._null = GroupCommit(_NullDatabase()) if hand_off else None
        self._agents: dict[str, Agent] = {}  # read once: no ledger read per call

    def queued(
        self, agent: str, work: Callable[[Transaction], T], *, charge: Charge | None = None
    ) -> asyncio.Future[T]:
        if self._null is not None:
            return self._null.submit(agent, work)  # each call's own no-op work, one batch, one hand-back
        done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        done.set_result(work(Transaction(_NoCursor(), postgres=False)))
        return done

    def reserving(
        self, name: str, tool: str, price_of: Callable[[Agent], int], *, whole: Callable[[int], bool] | None = None
    ) -> Callable[[Transaction], Held]:
        call_id, now = self._call_id(), self.clock.now()
        agent = self._agents.get(name) or self._agents.setdefault(name, self.ledger.agent(name))

        def work(tx: Transaction) -> Held:
            price = price_of(agent)
            usage = Usage(1, agent.per_hour, now + HOUR, 1, agent.per_day)
            committed = whole is not None and whole(price)
            return Held(Reservation(name, call_id, price, agent.balance - price, usage, committed=committed), tool)

        return work

    def settling(self, held: Held, *, charged: int | None, then: Then | None = None) -> Callable[..., int | None]:
        def work(tx: Transaction) -> int | None:
            if then is not None:
                then(tx, held.reservation.balance)
            return held.reservation.balance

        return work

    def close(self) -> None:
        if self._null is not None:
            self._null.close()
        super().close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inline", action="store_true")
    parser.add_argument("--off", action="store_true", help="no accounts: the entry itself against `webreach serve`")
    args = parser.parse_args()
    settings = Settings()

    @contextlib.asynccontextmanager
    async def opened() -> AsyncIterator[Gateway]:
        async with Gateway.from_settings(settings) as gateway:
            real = gateway.accounts
            if args.off:
                yield gateway
                return
            gateway.accounts = NullAccounts(real, hand_off=not args.inline)
            try:
                yield gateway
            finally:
                gateway.accounts.close()
                gateway.accounts = real

    sock = listen("127.0.0.1", 0)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = settings.server.model_copy(update={"host": "127.0.0.1", "port": sock.getsockname()[1]})
    # as `webreach serve` runs (frontends/_http_run.py): its uvicorn settings, its start-up heap frozen when ready
    ready = ready_hook(0, lambda: print(f"webreach: serving {url}", file=sys.stderr, flush=True))
    app = build_app(opened, server=server, on_ready=ready)
    uvicorn.Server(_uvicorn_config(app, server, settings, LogOptions(), ())).run(sockets=[sock])


if __name__ == "__main__":
    main()
