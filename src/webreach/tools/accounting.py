"""The accounting call policies: credits and quotas (Metering) and idempotency keys (Idempotent), each a CallPolicy
of the tool pipeline (tools/pipeline.py), the idempotency one outermost so a replay is never charged.

Charging rule (docs/decisions.md "Agents, credits and quotas"): the arguments were checked before any policy runs,
so a refused input never reaches here; the price is reserved before the tool's handler sends anything upstream;
success commits it; a failure releases it unless it is the agent's own choice of a page that answered with
something unusable (a 4xx, a PDF too large, an unsupported type: see CHARGED_FAILURES); an unsafe URL, an unknown
ref, all engines failing, a timeout, a cancelled call or a bug release it. One logical call is one charge: fallback,
hedging, retries and fan-out happen inside the handler. web_search with several queries costs its price per query
that answered (the queries that failed are released); web_search_multi is one query over many engines, one price.
image_search is one price per call (plus the engine surcharge of a paid engine it names, as web_search); crop_images
costs its price per crop that was made (a crop refused for its box or token is released with the call's others).
web_search or web_search_multi with a question holds web_fetch's price for each of its read_top pages besides, and
is charged it for each page read (tools/search_reading.py: a read that answered, or failed as a charged web_fetch
does).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Protocol

from webreach.accounts.database import Transaction
from webreach.accounts.idempotency import Replay, Stale, check_key, keep, note_hold
from webreach.accounts.ledger import Agent
from webreach.accounts.quotas import iso
from webreach.accounts.recent_calls import RecentCall
from webreach.accounts.service import Accounts, Held, Then
from webreach.errors import AccountingUnavailableError, AgentAuthError, ToolNotAllowedError, WebreachError
from webreach.tools.aliases import priced_as
from webreach.tools.backend import CHARGED_FAILURES as CHARGED_FAILURES  # its home is backend.py
from webreach.tools.backend import ToolResult, charged_failure
from webreach.tools.costs import cost_of, with_cost, without_cost
from webreach.tools.pipeline import CallPolicy, PreparedCall, Proceed, error_result

_NO_AGENT_HINT = "HTTP: send 'Authorization: Bearer <key>'; CLI and stdio: --agent NAME or [accounts] agent."


def account_policies(accounts: Accounts) -> Sequence[CallPolicy]:
    """The policies for a toolbox: idempotency always (keys work with accounts off too), metering when enabled."""
    idempotent = Idempotent(accounts)
    return (idempotent, Metering(accounts, keys=idempotent)) if accounts.enabled else (idempotent,)


class KeyRecords(Protocol):
    """What the metering writes on a keyed call's idempotency record, in its own transactions (Idempotent)."""

    def keeping(self, call: PreparedCall) -> Callable[[Transaction, ToolResult], None] | None: ...
    def noting(self, call: PreparedCall) -> Callable[[Transaction, str], None] | None: ...


class Metering:
    """Reserve before the handler, settle after it, and say what the call cost in its answer. `keys` (the
    Idempotent policy) writes a keyed call's record: the hold, in the reservation's transaction (a failed attempt's
    hold is released when its key is retried), and the answer, in the settle's, so the charge and the answer a retry
    replays are written together or not at all."""

    def __init__(self, accounts: Accounts, *, keys: KeyRecords | None = None) -> None:
        self.accounts = accounts
        self.keys = keys

    async def __call__(self, call: PreparedCall, proceed: Proceed) -> ToolResult:
        caller = call.context.caller
        if caller is None:
            raise AgentAuthError("accounts are enabled here, so every call needs an agent", hint=_NO_AGENT_HINT)
        read_price: list[int] = [0]  # web_fetch's price for this agent: each page a search reads for a question
        price_of = functools.partial(self._price, call=call, read_price=read_price)
        if call.at_once is not None and call.at_once():  # its hold is settled in its own transaction: no note
            return await self._at_once(call, proceed, price_of, read_price)
        reserve = self.accounts.reserving(caller, call.tool.name, price_of)
        held = await self._reserve(_noted(reserve, self.keys.noting(call) if self.keys else None), caller)
        started = self.accounts.clock.now()
        with self.accounts.recent.collecting() as engines:
            try:
                result = await proceed()
            except WebreachError as exc:
                result = error_result(call.context.tool, exc, output=call.context.output)
            except BaseException:
                await self._settle(held, None)  # cancelled or a bug: not the agent's doing
                raise
        charged = _charged(call, held.reservation.price, result, read_price[0])
        answer = functools.partial(self._answer, call, result, held, charged)
        store = self.keys.keeping(call) if self.keys is not None and result.error is None else None
        then = None if store is None else _stored_when_charged(store, answer)
        try:
            balance = await self._settle(held, charged, then)
            if balance is None and charged is not None:  # the hold was released while the call ran (its lease)
                held, balance = await self._charge_afresh(call, result, charged, read_price, store)
                answer = functools.partial(self._answer, call, result, held, charged)
        except AccountingUnavailableError as exc:  # not recorded: not served (the lease gives the hold back)
            raise AccountingUnavailableError(
                f"{exc.message}; this call's charge could not be recorded, so its result is withheld and the "
                f"credits it held come back within {self.accounts.settings.lease_seconds:g} s"
            ) from None
        self._record(call, started, engines, result, charged)
        final = answer(balance)
        return final if store is None else replace(final, stored=True)

    async def _at_once(
        self, call: PreparedCall, proceed: Proceed, price_of: Callable[[Agent], int], read_price: list[int]
    ) -> ToolResult:
        """A call answered with nothing upstream to pay for (PreparedCall.at_once: a cached search) runs first and
        is charged after it answered: its reserve and settle (and a keyed call's stored answer) are one piece of
        work in one group commit, one ledger round trip instead of two. A refusal there (credits, quota, a disabled
        agent, a tool not allowed) is the call's answer and its result is dropped; a ledger that fails withholds
        it (nothing was charged, or the charge and a keyed call's answer were written together)."""
        started = self.accounts.clock.now()
        with self.accounts.recent.collecting() as engines:
            try:
                result = await proceed()
            except WebreachError as exc:
                result = error_result(call.context.tool, exc, output=call.context.output)
        store = self.keys.keeping(call) if self.keys is not None and result.error is None else None
        caller = call.context.caller or ""

        def whole(price: int) -> bool:  # charged all it holds: committed with its reservation, no hold opened
            return _charged(call, price, result, read_price[0]) == price

        reserve = self.accounts.reserving(caller, call.tool.name, price_of, whole=whole)

        def committed(tx: Transaction, held: Held) -> tuple[Held, int | None, int | None]:  # charged all it holds
            balance = held.reservation.balance
            if store is not None:
                store(tx, self._answer(call, result, held, held.reservation.price, balance))
            return held, held.reservation.price, balance

        def work(tx: Transaction) -> tuple[Held, int | None, int | None]:
            held = reserve(tx)
            if held.reservation.committed:
                return committed(tx, held)
            charged = _charged(call, held.reservation.price, result, read_price[0])
            answer = functools.partial(self._answer, call, result, held, charged)
            then = None if store is None else (lambda tx, balance: store(tx, answer(balance)))
            return held, charged, self.accounts.settling(held, charged=charged, then=then)(tx)

        charge = self.accounts.charging(caller, call.tool.name, price_of, whole=whole, then=committed, alone=work)
        try:  # shielded: a cancelled call's charge is still made once begun (as a settle is)
            held, charged, balance = await asyncio.shield(self.accounts.queued(caller, work, charge=charge))
        except AccountingUnavailableError as exc:  # not tried again: a COMMIT made unacknowledged would charge twice
            raise AccountingUnavailableError(
                f"{exc.message}; this call's charge could not be recorded, so its result is withheld"
            ) from None
        self._record(call, started, engines, result, charged)
        final = self._answer(call, result, held, charged, balance)
        return final if store is None else replace(final, stored=True)

    def _record(
        self, call: PreparedCall, started: float, engines: list[str], result: ToolResult, charged: int | None
    ) -> None:
        """The call in the console's recent calls."""
        status = "ok" if result.error is None else result.error.code
        latency = (self.accounts.clock.now() - started) * 1000
        caller = call.context.caller or ""
        self.accounts.recent.record(
            RecentCall(started, caller, call.tool.name, tuple(engines), status, round(latency, 1), charged)
        )

    async def _charge_afresh(
        self,
        call: PreparedCall,
        result: ToolResult,
        charged: int,
        read_price: list[int],
        store: Callable[[Transaction, ToolResult], None] | None,
    ) -> tuple[Held, int | None]:
        """Charge an answered call whose hold was released before it settled (it ran past its lease, and lease
        recovery or its key's retry gave the hold back): a new reservation committed at once, with a keyed call's
        answer, in one transaction. A refusal there (credits, quota) is the call's answer: nothing is served
        uncharged."""
        caller = call.context.caller or ""
        reserve = self.accounts.reserving(caller, call.tool.name, lambda a: self._price(a, call, read_price))

        def work(tx: Transaction) -> tuple[Held, int | None]:
            held = reserve(tx)
            answer = functools.partial(self._answer, call, result, held, charged)
            then = None if store is None else _stored_when_charged(store, answer)
            return held, self.accounts.settling(held, charged=charged, then=then)(tx)

        return await asyncio.shield(self.accounts.queued(caller, work))  # a charge begun is made, as a settle is

    @staticmethod
    def _answer(
        call: PreparedCall, result: ToolResult, held: Held, charged: int | None, balance: int | None
    ) -> ToolResult:
        """The call's answer with what it cost (`balance`: the settle's)."""
        cost = cost_of(held, charged, balance)
        if call.tool.bare and result.error is None:  # a contract's exact answer: the cost is the door's to show
            return replace(result, cost=cost)
        return with_cost(result, cost, output=call.context.output)

    async def _reserve(self, reserve: Callable[[Transaction], Held], caller: str) -> Held:
        """`reserve` in the ledger's next group commit (the event loop serves other calls meanwhile). A call
        cancelled meanwhile still gets its reservation released once it is made (the thread cannot be stopped)."""
        future = self.accounts.queued(caller, reserve)
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            future.add_done_callback(self._release_once_held)
            raise

    def _release_once_held(self, future: asyncio.Future[Held]) -> None:
        if not future.cancelled() and future.exception() is None:
            held = future.result()
            # no one waits for it: if it fails too, the lease gives the hold back
            release = self.accounts.queued(held.reservation.agent, self.accounts.settling(held, charged=None))
            release.add_done_callback(lambda done: done.cancelled() or done.exception())  # retrieved, not logged

    async def _settle(self, held: Held, charged: int | None, then: Then | None = None) -> int | None:
        """Settle in the ledger's next group commit (`then`: more work in its transaction); shielded, so a cancelled
        call's settlement still completes. A batch that failed is tried once more (a settle is idempotent: a commit
        found made is not made twice, and `then` writes the same again)."""
        try:
            return await self._settle_once(held, charged, then)
        except AccountingUnavailableError:
            return await self._settle_once(held, charged, then)

    async def _settle_once(self, held: Held, charged: int | None, then: Then | None) -> int | None:
        settling = self.accounts.settling(held, charged=charged, then=then)
        return await asyncio.shield(self.accounts.queued(held.reservation.agent, settling))

    def _price(self, agent: Agent, call: PreparedCall, read_price: list[int]) -> int:
        profile = agent.options.get("profile", {})
        tools = profile.get("tools")
        if tools is not None and call.tool.name not in tools:
            raise ToolNotAllowedError(
                f"tool {call.tool.name!r} is not enabled for agent {agent.name!r}",
                tool=call.tool.name,
                allowed=tools,
                hint=f"Available tools: {', '.join(tools) or 'none'}.",
            )
        price = call.tool.price(call.plan)  # the tool's own (tools/definitions.py); an alias's is its target's
        own = self.accounts.price(agent, priced_as(call.tool), units=price.units, engine=price.engine)
        read_price[0] = self.accounts.price(agent, "web_fetch") if price.reads else 0
        return own + read_price[0] * price.reads  # the most it may read: the reads not made are released


def _noted(
    reserve: Callable[[Transaction], Held], note: Callable[[Transaction, str], None] | None
) -> Callable[[Transaction], Held]:
    """`reserve`, and when given, `note` of the hold it made, in the same transaction."""
    if note is None:
        return reserve

    def noted(tx: Transaction) -> Held:
        held = reserve(tx)
        note(tx, held.reservation.call_id)
        return held

    return noted


def _stored_when_charged(
    store: Callable[[Transaction, ToolResult], None], answer: Callable[[int | None], ToolResult]
) -> Callable[[Transaction, int | None], None]:
    """A keyed call's answer stored in its settle's transaction, unless the settle found its hold released (the
    call is then charged afresh, and its answer stored with that charge)."""

    def then(tx: Transaction, balance: int | None) -> None:
        if balance is not None:
            store(tx, answer(balance))

    return then


def _charged(call: PreparedCall, held: int, result: ToolResult, read_price: int) -> int | None:
    """What the call is charged from the `held` price: its own part per query (crop) that answered (the price is
    per unit, so it divides exactly; a call with none made is released whole, like a failed one), plus web_fetch's
    price per page read (ToolResult.reads)."""
    price = call.tool.price(call.plan)
    charged = _charge(held - read_price * price.reads, result.error)
    if charged is not None and result.answered is not None:
        charged = charged // price.units * result.answered if result.answered else None
    return charged + read_price * result.reads if charged is not None else None


def _charge(price: int, error: WebreachError | None) -> int | None:
    if error is None:
        return price
    if charged_failure(error):
        return price
    return None


class Idempotent:
    """A call with an idempotency key runs once per 24 hours; retries get its stored result."""

    def __init__(self, accounts: Accounts) -> None:
        self.accounts = accounts

    async def __call__(self, call: PreparedCall, proceed: Proceed) -> ToolResult:
        context = call.context
        if context.idempotency_key is None:
            return await proceed()
        key, agent = check_key(context.idempotency_key), context.caller or ""
        accounts, now = self.accounts, self.accounts.clock.now()
        store = await accounts.off_loop(lambda: accounts.idempotency)  # the database opens off the event loop too
        lease = accounts.settings.lease_seconds
        mark = fingerprint(call)
        begin = functools.partial(store.begin, agent, key, mark, now=now, lease=lease)
        replay = await accounts.off_loop(begin)  # every idempotency read and write on the ledger's worker
        if isinstance(replay, Replay):
            result = ToolResult(tool=context.tool, text=replay.text, is_json=replay.is_json)
            return await self._replayed(result, context.caller, output=context.output)
        if isinstance(replay, Stale):  # an earlier attempt died holding credits and a quota slot: give them back
            await self._release(agent, replay.call_id)
        try:
            result = await proceed()
        except BaseException:
            with contextlib.suppress(AccountingUnavailableError):  # else the key's and the hold's leases free them
                stale = await accounts.off_loop(store.forget, agent, key)
                if stale is not None:  # the charge was not recorded (the ledger failed): the hold goes back now
                    await self._release(agent, stale)
            raise
        # a ledger that fails now must not take a served result away: the key stays claimed until its lease
        # passes, so a duplicate meanwhile is told in_progress, and one after it runs afresh (a metered call's
        # result is stored with its charge: `stored`, and the retry is replayed)
        with contextlib.suppress(AccountingUnavailableError):
            if result.error is None and not result.stored:
                done = functools.partial(store.finish, agent, key, mark, result.text, is_json=result.is_json)
                await accounts.off_loop(functools.partial(done, now=accounts.clock.now()))
            elif result.error is not None:
                await accounts.off_loop(store.forget, agent, key)
        return result

    async def _release(self, agent: str, call_id: str) -> None:
        """Release hold `call_id` of a failed attempt if it is still open (settled ones are left as they are)."""
        with contextlib.suppress(AccountingUnavailableError):  # the hold's lease releases it
            await self.accounts.off_loop(self.accounts.release, agent, call_id)

    def noting(self, call: PreparedCall) -> Callable[[Transaction, str], None] | None:
        """For a keyed call, the note of its hold on its record, as work for the reservation's transaction."""
        key = call.context.idempotency_key
        if key is None:
            return None
        agent = call.context.caller or ""
        return lambda tx, call_id: note_hold(tx, agent, key, call_id)

    def keeping(self, call: PreparedCall) -> Callable[[Transaction, ToolResult], None] | None:
        """For a keyed call, its result store as work for the transaction that commits its charge (Metering's
        settle); None for a call without a key."""
        key = call.context.idempotency_key
        if key is None:
            return None
        agent, mark, clock = call.context.caller or "", fingerprint(call), self.accounts.clock
        return lambda tx, result: keep(tx, agent, key, mark, result.text, is_json=result.is_json, now=clock.now())

    async def _replayed(self, result: ToolResult, caller: str | None, *, output: str) -> ToolResult:
        """A stored result as a replay answers it: its cost says 0 charged now (`replayed`, with what the original
        call was charged) and the agent's balance and calls left as they are now."""
        body, original = without_cost(result)
        if original is None or caller is None or not self.accounts.enabled:
            return result
        standing = functools.partial(self.accounts.standing, caller)
        worker = self.accounts.worker
        balance, usage = await asyncio.get_running_loop().run_in_executor(worker, standing)
        cost = {
            "charged": 0,
            "balance": balance,
            "calls_left": usage.remaining(),
            "resets_at": None if usage.hour_resets_at is None else iso(usage.hour_resets_at),
            "replayed": True,
            "original_charged": original,
        }
        return with_cost(body, cost, output=output)


def fingerprint(call: PreparedCall) -> str:
    """The call's identity for its idempotency key: tool, output, session and decoded arguments."""
    context = call.context
    text = json.dumps([context.tool, context.output, context.session, call.arguments], sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8", errors="surrogateescape")).hexdigest()
