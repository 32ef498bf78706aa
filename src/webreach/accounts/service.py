"""Accounts: the one owner of agents and their keys, prices and quotas, over the ledger.

    accounts = Accounts.open(settings.accounts, clock)
    agent, key = accounts.add("crawler", credits=100)   # the key is shown once; only its hash is stored
    name = accounts.authenticate(key)                    # AgentAuthError unless valid and enabled
    held = accounts.reserve(name, "web_search", price=2)
    accounts.settle(held, charged=2)                     # or charged=None: release

Keys are 32 random bytes (url-safe, prefixed "wr_"), stored as SHA-256: a key of that entropy needs no slow hash,
and a lookup by hash is one indexed read. The database opens on first use, so a server with accounts off never
creates the file.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import secrets
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, TypeVar

from webreach.accounts.agent_cache import AgentCache
from webreach.accounts.archive import archived_journal
from webreach.accounts.audit import Change, entries
from webreach.accounts.charges import Charge
from webreach.accounts.database import Database, Transaction, open_database
from webreach.accounts.group_commit import GroupCommit
from webreach.accounts.idempotency import Idempotency
from webreach.accounts.ledger import Agent, Ledger, Reservation
from webreach.accounts.quotas import Usage, iso
from webreach.accounts.recent_calls import RecentCalls
from webreach.accounts.rules import (
    MAX_CREDITS,
    MAX_KEY_DAYS,
    check_amount,
    check_name,
    check_options,
    checked_limits,
    hash_key,
    merged,
    new_key,
    usage_json,
)
from webreach.clock import Clock
from webreach.config import AccountsSettings, user_directory
from webreach.errors import AccountingUnavailableError, AgentAuthError, InvalidInputError

T = TypeVar("T")
# more work in a settle's transaction, given the balance the settle returned (Accounts.settling)
Then = Callable[[Transaction, int | None], None]


@dataclass(frozen=True)
class Held:
    """A reservation as the call policy carries it."""

    reservation: Reservation
    tool: str


class Accounts:
    """Agents and their credits, quotas and idempotency keys (see the module docstring)."""

    def __init__(self, settings: AccountsSettings, clock: Clock, *, database: Database | None = None) -> None:
        self.settings = settings
        self.clock = clock
        self._database = database
        self._ledger: Ledger | None = None
        self._idempotency: Idempotency | None = None
        self._opening = threading.Lock()  # concurrent first calls open one database, not one each
        self.recent = RecentCalls()  # this process's metered calls, for the console
        self.known = AgentCache(settings.key_cache_seconds, clock)  # agents authenticated in the last seconds
        self._group: GroupCommit | None = None
        # call ids: this process's random 64 bits and a counter, unique across processes and replicas without a
        # uuid4 per call (os.urandom measured 8 us a call here, a tenth of what metering adds)
        self._call_prefix, self._calls = secrets.token_hex(8), itertools.count(1)

    @property
    def enabled(self) -> bool:
        return self.settings.enabled

    def url(self) -> str:
        return self.settings.database or str(user_directory("data") / "accounts.sqlite3")

    @property
    def ledger(self) -> Ledger:
        if self._ledger is None:
            with self._opening:
                if self._ledger is None:
                    timeout = self.settings.database_timeout
                    self._ledger = Ledger(self._database or open_database(self.url(), timeout=timeout))
        return self._ledger

    @property
    def idempotency(self) -> Idempotency:
        if self._idempotency is None:
            self._idempotency = Idempotency(self.ledger.database)
        return self._idempotency

    @property
    def worker(self) -> Executor | None:
        """The ledger's one database thread (None: a database used inline), for callers that shield their work
        from cancellation themselves (the tools' metering); the database opens on first use."""
        return self.ledger.database.worker

    async def off_loop(self, work: Callable[..., T], *args: Any) -> T:
        """`work(*args)` on the ledger's worker thread, the database opened first (itself off the event loop), so
        a ledger that waits on PostgreSQL reconnecting or a SQLite lock never stalls the loop."""
        loop = asyncio.get_running_loop()
        if self._ledger is None:
            await loop.run_in_executor(None, lambda: self.ledger)
        return await loop.run_in_executor(self.ledger.database.worker, functools.partial(work, *args))

    def queued(
        self, agent: str, work: Callable[[Transaction], T], *, charge: Charge | None = None
    ) -> asyncio.Future[T]:
        """`work(tx)` in the ledger's next group commit (accounts/group_commit.py), for calls on the event loop (or
        `charge`, charging(), with the agent's others queued with it); a database without a worker thread runs it
        now, in a transaction of its own."""
        if self.worker is not None:
            if self._group is None:
                self._group = GroupCommit(self.ledger.database)
            return self._group.submit(agent, work, charge=charge)
        done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        try:
            with self.ledger.database.transaction() as tx:
                done.set_result(work(tx))
        except Exception as exc:
            done.set_exception(exc)
        return done

    def close(self) -> None:
        if self._group is not None:
            self._group.close()
            self._group = None
        if self._ledger is not None:
            self._ledger.close()
            self._ledger = None

    # --- administration --------------------------------------------------------------------------------

    def add(
        self,
        name: str,
        *,
        credits: int | None = None,
        per_hour: int | None = None,
        per_day: int | None = None,
        key_days: int | None = None,
        actor: str = "operator",
    ) -> tuple[Agent, str]:
        """A new agent and its key (shown once). Quotas default to the configured ones; `key_days`: the key is
        refused that many days from now (None: never). `actor`, on this and every change below: the door making
        it, for the audit log (accounts/audit.py)."""
        key = new_key()
        credits = check_amount(self.settings.credits if credits is None else credits, "credits", most=MAX_CREDITS)
        limits = checked_limits(
            per_hour=self.settings.per_hour if per_hour is None else per_hour,
            per_day=self.settings.per_day if per_day is None else per_day,
        )
        expires = self._key_expires(key_days)
        expiry = {} if expires is None else {"key_expires": expires}
        audit = self._change(actor, "add", credits=credits, **expiry, **limits)
        agent = self.ledger.add_agent(
            check_name(name), hash_key(key), credits=credits, now=self.clock.now(), key_expires=expires, audit=audit,
            **limits,
        )  # fmt: skip
        return agent, key

    def rotate_key(self, name: str, *, key_days: int | None = None, actor: str = "operator") -> str:
        """A new key for agent `name` (the old one stops at once), valid `key_days` days (None: no expiry)."""
        key = new_key()  # never in the audit entry: it records that the key changed
        expires = self._key_expires(key_days)
        audit = self._change(actor, "rotate-key", **({} if expires is None else {"key_expires": expires}))
        self.ledger.update_agent(name, key_hash=hash_key(key), key_expires=expires, audit=audit)
        self.known.clear()  # the old key stops working here at once
        return key

    def _key_expires(self, days: int | None) -> float | None:
        if days is None:
            return None
        return self.clock.now() + check_amount(days, "key validity in days", most=MAX_KEY_DAYS, least=1) * 86400.0

    def set_disabled(self, name: str, disabled: bool = True, *, actor: str = "operator") -> Agent:
        self.known.clear()
        audit = self._change(actor, "disable" if disabled else "enable")
        return self.ledger.update_agent(name, disabled=int(disabled), audit=audit)

    def delete(self, name: str, *, actor: str = "operator") -> int:
        """Delete agent `name` (its key stops working at once); the balance it had. Refused while a call of it
        runs (accounts/ledger.py: Ledger.delete_agent)."""
        self.known.clear()
        balance = self.ledger.delete_agent(name, now=self.clock.now(), audit=self._change(actor, "delete"))
        self.known.clear()  # a key read between the clear and the delete is dropped too
        return balance

    def set_limits(self, name: str, *, actor: str = "operator", **limits: int | None) -> Agent:
        """per_hour / per_day (None: unlimited)."""
        checked = checked_limits(**limits)
        return self.ledger.update_agent(name, audit=self._change(actor, "update", limits=checked), **checked)

    def set_options(self, name: str, options: dict[str, Any], *, actor: str = "operator") -> Agent:
        """Per-agent prices ({"prices": {...}}) and tool profile ({"profile": {...}})."""
        self.known.clear()
        checked = check_options(options)
        return self.ledger.update_agent(name, options=checked, audit=self._change(actor, "update", options=checked))

    def _change(self, actor: str, action: str, **detail: Any) -> Change:
        return Change(actor, action, self.clock.now(), detail)

    def update_agent(
        self,
        name: str,
        *,
        limits: Mapping[str, int | None] | None = None,
        prices: Mapping[str, int | None] | None = None,
        profile: Mapping[str, Any] | None = None,
        actor: str = "operator",
    ) -> Agent:
        """The one agent update every door (CLI, REST, console) makes; what is not given is kept.

        - `limits`: per_hour / per_day; a key given replaces that quota (None: unlimited), a key left out keeps it.
        - `prices`: merged per tool; a tool given gets that price, None removes the agent's own price (back to
          the configured one), tools left out keep theirs.
        - `profile`: merged per key (tools, default_results, max_results, default_chars, max_chars, surface: a
          drop-in tool profile the agent sees instead of webreach's tools, tools/drop_in.py) the same way;
          None removes the key (all tools, no size limit).
        Checked in full before anything is written (InvalidInputError), then written in one update."""
        unknown = set(limits or {}) - {"per_hour", "per_day"}
        if unknown:
            raise InvalidInputError(f"unknown quota {sorted(unknown)[0]!r}", hint="Give per_hour or per_day.")
        changes = {"prices": prices, "profile": profile}
        for key, change in changes.items():
            if change is not None and not isinstance(change, Mapping):
                raise InvalidInputError(f"{key} must be an object", hint=f"Send {key} as a JSON object.")
        limits_checked = checked_limits(**(limits or {}))

        def columns(agent: Agent) -> dict[str, Any]:  # merged with the row as it is, under its lock
            options = dict(agent.options)
            for key, change in changes.items():
                if change is not None:
                    options[key] = merged(options.get(key, {}), change)
                    if not options[key]:
                        del options[key]
            found: dict[str, Any] = dict(limits_checked)
            if options != agent.options:
                found["options"] = check_options(options)
            return found

        self.known.clear()
        given = {"limits": limits, "prices": prices, "profile": profile}
        audit = self._change(actor, "update", **{key: dict(value) for key, value in given.items() if value is not None})
        return self.ledger.change_agent(name, columns, audit=audit)

    def agent(self, name: str) -> Agent:
        """Agent `name` (InvalidInputError when there is none)."""
        return self.ledger.agent(name)

    def agents(self) -> list[Agent]:
        return self.ledger.agents()

    def journal(self, name: str, *, limit: int = 100) -> list[dict[str, Any]]:
        """Agent `name`'s journal rows, newest first."""
        return self.ledger.journal(name, limit=limit)

    def archived_journal(self, name: str, *, limit: int = 1000) -> list[dict[str, Any]]:
        """The journal rows of every deleted agent called `name` (accounts/archive.py), newest delete first."""
        return archived_journal(self.ledger.database, name, limit=limit)

    def spend_by_day(self, name: str, *, days: int = 14) -> list[tuple[str, int]]:
        """Credits agent `name` spent on each of the last `days` UTC days, oldest first (a database read)."""
        return self.ledger.spend_by_day(name, now=self.clock.now(), days=days)

    def grant(self, name: str, credits: int, *, note: str = "", actor: str = "operator") -> Agent:
        """Add `credits` (negative: take back); the balance after stays within MAX_CREDITS."""
        check_amount(credits, "a grant of", most=MAX_CREDITS, least=-MAX_CREDITS)
        audit = self._change(actor, "grant", credits=credits, note=note)
        return self.ledger.grant(name, credits, now=self.clock.now(), note=note, most=MAX_CREDITS, audit=audit)

    def audit(self, *, limit: int = 100, name: str | None = None) -> list[dict[str, Any]]:
        """The audit log of admin changes (of agent `name`), newest first."""
        return entries(self.ledger.database, limit=limit, target=name)

    def show(self, name: str, *, recent: int = 10) -> dict[str, Any]:
        """Balance, quota use, recent calls (what each cost) and recent journal rows of one agent."""
        agent = self.ledger.agent(name)
        usage = self.ledger.usage(name, now=self.clock.now())
        calls = self.ledger.calls(name, limit=recent)
        recent_rows = self.ledger.journal(name, limit=recent)
        return {**agent.to_json(), "quota": usage_json(usage), "calls": calls, "recent": recent_rows}

    def standing(self, name: str) -> tuple[int, Usage]:
        """Agent `name`'s balance and quota use now."""
        return self.ledger.agent(name).balance, self.ledger.usage(name, now=self.clock.now())

    # --- calls -------------------------------------------------------------------------------------------

    def authenticate(self, key: str | None) -> str:
        """The enabled agent `key` belongs to, else AgentAuthError (no key, unknown key, disabled agent)."""
        if not key:
            raise AgentAuthError("this server needs an agent API key")
        key_hash = hash_key(key)
        agent = self.known.by_key(key_hash)
        if agent is None:  # read, then remembered from this read (a hit never extends its time)
            agent = self.ledger.agent_for_key(key_hash)
            if agent is None:
                raise AgentAuthError("the API key is not valid (revoked, rotated or mistyped)")
            self.known.keep(agent, key_hash)
        if agent.disabled:
            raise AgentAuthError(f"agent {agent.name!r} is disabled", hint="Ask an operator to enable it.")
        if agent.key_expired(self.clock.now()):
            raise AgentAuthError(
                f"the key of agent {agent.name!r} expired at {iso(agent.key_expires or 0.0)}",
                hint="Ask an operator for a new key.",
            )
        return agent.name

    def known_caller(self, key: str | None) -> str | None:
        """The agent `key` belongs to when it was authenticated in the last `key_cache_seconds` (no database
        read: callable on the event loop); None means ask `authenticate`."""
        agent = self.known.by_key(hash_key(key)) if key else None
        usable = agent is not None and not agent.disabled and not agent.key_expired(self.clock.now())
        return agent.name if agent is not None and usable else None

    def profile(self, name: str) -> dict[str, Any]:
        """Agent `name`'s tool profile (tools/profiles.py); {} for none or an unknown agent (refused elsewhere)."""
        agent = self.known.by_name(name)
        if agent is None:
            try:
                agent = self.ledger.agent(name)
            except InvalidInputError:
                return {}
            self.known.keep(agent)
        profile: dict[str, Any] = agent.options.get("profile", {})
        return profile

    def known_profile(self, name: str) -> dict[str, Any] | None:
        """Agent `name`'s profile when it was read in the last `key_cache_seconds` (None: ask `profile`)."""
        agent = self.known.by_name(name)
        return None if agent is None else dict(agent.options.get("profile", {}))

    def price(self, agent: Agent, tool: str, *, units: int = 1, engine: str | None = None) -> int:
        prices = {**self.settings.prices, **agent.options.get("prices", {})}
        surcharge = self.settings.engine_surcharge.get(engine, 0) if engine else 0
        return (int(prices.get(tool, 0)) + surcharge) * units

    def reserve(self, name: str, tool: str, price_of: Callable[[Agent], int]) -> Held:
        """Hold the call's price for agent `name` (`price_of` reads the agent's options and may refuse)."""
        with self.ledger.database.transaction() as tx:
            return self.reserving(name, tool, price_of)(tx)

    def reserving(
        self, name: str, tool: str, price_of: Callable[[Agent], int], *, whole: Callable[[int], bool] | None = None
    ) -> Callable[[Transaction], Held]:
        """reserve(), as work for a transaction (queued(): a group commit's); `whole`: Ledger.reserve_in's."""
        call_id, now, lease = self._call_id(), self.clock.now(), self.settings.lease_seconds
        return lambda tx: Held(
            self.ledger.reserve_in(tx, name, call_id, price_of, tool=tool, now=now, lease=lease, whole=whole), tool
        )

    def charging(
        self,
        name: str,
        tool: str,
        price_of: Callable[[Agent], int],
        *,
        whole: Callable[[int], bool],
        then: Callable[[Transaction, Held], T],
        alone: Callable[[Transaction], T],
    ) -> Charge:
        """An answered call's charge, for queued() (accounts/charges.py): reserved and committed whole, then
        `then(tx, held)`; `alone` is the same call as work of its own (reserving(..., whole=whole), then its settle)."""
        return Charge(
            name, self._call_id(), tool, self.clock.now(), price_of, whole,
            lambda tx, reservation: then(tx, Held(reservation, tool)), alone,
        )  # fmt: skip

    def _call_id(self) -> str:
        return f"{self._call_prefix}{next(self._calls):016x}"

    def settling(
        self, held: Held, *, charged: int | None, then: Then | None = None
    ) -> Callable[[Transaction], int | None]:
        """settle()'s one attempt, as work for a transaction (queued(): a group commit's); `then(tx, balance)` runs
        after it in the same transaction (a keyed call's stored result: tools/accounting.py)."""
        agent, call_id, now = held.reservation.agent, held.reservation.call_id, self.clock.now()

        def work(tx: Transaction) -> int | None:
            balance = self.ledger.settle_in(tx, agent, call_id, charged=charged, now=now, alone=then is None)
            if then is not None:
                then(tx, balance)
            return balance

        return work

    def release(self, name: str, call_id: str) -> None:
        """Release agent `name`'s hold `call_id` if it is still open (a failed attempt's: tools/accounting.py)."""
        try:
            self.ledger.settle(name, call_id, charged=None, now=self.clock.now())
        except InvalidInputError:  # the agent is gone, and a hold keeps an agent: nothing was open
            return

    def settle(self, held: Held, *, charged: int | None) -> int | None:
        """Commit `charged` (<= held) or release (None); the balance after, None when recovery settled it first."""
        reservation = held.reservation
        try:
            return self.ledger.settle(reservation.agent, reservation.call_id, charged=charged, now=self.clock.now())
        except AccountingUnavailableError:
            # once more, on another connection (the pool drops a broken one): a settle is idempotent, so one whose
            # COMMIT went through unacknowledged is found done rather than made twice
            return self.ledger.settle(reservation.agent, reservation.call_id, charged=charged, now=self.clock.now())
