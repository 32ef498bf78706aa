"""`webreach agents ...`: add, list, show, grant, rotate-key, disable, delete, set and ledger (the CLI twin of the
/v1/admin/agents API). The ledger is the one [accounts] database names (default accounts.sqlite3 in the user data
directory), so an operator manages a server's agents from its machine while it runs.

A key is printed once, by `add` and `rotate-key`; it is stored only as a hash.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from webreach.defaults import TOOL_PROFILES
from webreach.errors import InvalidInputError, WebreachError, error_body
from webreach.frontends._cli_input import load_settings
from webreach.frontends._errors import exit_code

if TYPE_CHECKING:  # the Gateway loads when a command runs, not with the CLI (start-up)
    from webreach.gateway import Accounts

T = TypeVar("T")


def _run(as_json: bool, work: Callable[[Accounts], T]) -> T:
    from webreach.gateway import Gateway

    async def main() -> T:
        async with Gateway.from_settings(load_settings()) as gateway:
            return work(gateway.accounts)

    try:
        return asyncio.run(main())
    except WebreachError as error:
        _fail(error, as_json)


def _fail(error: WebreachError, as_json: bool) -> NoReturn:
    if as_json:
        click.echo(json.dumps(error_body(error), ensure_ascii=False))
    else:
        click.echo(f"error [{error.code}]: {error}", err=True)
    sys.exit(exit_code(error))


def _limit(value: str | None) -> int | None:
    """A quota option: a whole number, or 'none' for unlimited (None: not given)."""
    if value is None or value == "none":
        return None
    if not (value.isascii() and value.isdigit()):
        raise InvalidInputError(f"not a quota: {value!r}", hint="Give a whole number, or 'none' for unlimited.")
    return _whole(value)


def _whole(digits: str) -> int:
    """ASCII digits as a number; past 30 digits (more than any amount holds) a stand-in the range check refuses,
    since Python will not parse numbers of over 4,300 digits."""
    return int(digits) if len(digits) <= 30 else 10**30


def _show(data: Any, as_json: bool, lines: Callable[[Any], list[str]]) -> None:
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False))
    else:
        for line in lines(data):
            click.echo(line)


def _agent_line(agent: dict[str, Any]) -> str:
    state = " (disabled)" if agent["disabled"] else ""
    hour = "unlimited" if agent["per_hour"] is None else f"{agent['per_hour']}/hour"
    return f"{agent['name']}{state}: balance {agent['balance']}, {hour}"


@click.group()
def agents() -> None:
    """Manage agents: API keys, credits, quotas and tool profiles ([accounts] in webreach.toml)."""


@agents.command()
@click.argument("name")
@click.option("--credits", type=click.IntRange(min=0), help="Starting credits (default [accounts] credits).")
@click.option("--per-hour", help="Calls per hour (default [accounts] per_hour; 'none': unlimited).")
@click.option("--per-day", help="Calls per day (default [accounts] per_day; 'none': unlimited).")
@click.option("--key-days", type=int, help="The key is refused this many days from now (default: never).")
@click.option("--json", "as_json", is_flag=True)
def add(
    name: str, credits: int | None, per_hour: str | None, per_day: str | None, key_days: int | None, as_json: bool
) -> None:
    """Add agent NAME and print its API key (shown this once)."""

    def work(accounts: Accounts) -> dict[str, Any]:
        given = (("per_hour", per_hour), ("per_day", per_day))
        limits = {field: _limit(value) for field, value in given if value is not None}  # checked before adding
        agent, key = accounts.add(name, credits=credits, key_days=key_days, actor="cli")
        if limits:
            agent = accounts.update_agent(name, limits=limits, actor="cli")
        return {"agent": agent.to_json(), "key": key}

    _show(_run(as_json, work), as_json, lambda d: [_agent_line(d["agent"]), f"key (shown once): {d['key']}"])


@agents.command(name="list")
@click.option("--json", "as_json", is_flag=True)
def list_agents(as_json: bool) -> None:
    """Every agent with its balance and hourly quota."""
    found = _run(as_json, lambda accounts: [agent.to_json() for agent in accounts.agents()])
    _show(found, as_json, lambda rows: [_agent_line(row) for row in rows] or ["no agents"])


@agents.command()
@click.argument("name")
@click.option("--json", "as_json", is_flag=True)
def show(name: str, as_json: bool) -> None:
    """Balance, quota use and recent calls of agent NAME."""

    def lines(data: dict[str, Any]) -> list[str]:
        quota = data["quota"]
        left = "unlimited" if quota["remaining"] is None else f"{quota['remaining']} calls left"
        out = [_agent_line(data), f"quota: {quota['hour_used']} calls this hour, {left}"]
        calls = [_call_line(call) for call in data["calls"]]
        return out + (["recent calls:", *calls] if calls else ["no calls yet"])

    _show(_run(as_json, lambda accounts: accounts.show(name)), as_json, lines)


def _call_line(call: dict[str, Any]) -> str:
    """One call as `agents show` lists it: when, the tool, what it cost and how it ended."""
    cost = f"charged {call['charged']}" if call["state"] == "committed" else f"{call['state']} ({call['held']} held)"
    return f"  {call['at']}  {call['tool']:<16} {cost}"


@agents.command()
@click.argument("name")
@click.argument("credits", type=int)
@click.option("--note", default="", help="Why (kept in the journal).")
@click.option("--json", "as_json", is_flag=True)
def grant(name: str, credits: int, note: str, as_json: bool) -> None:
    """Grant CREDITS to agent NAME (negative: take unspent credits back)."""
    found = _run(as_json, lambda accounts: accounts.grant(name, credits, note=note, actor="cli").to_json())
    _show(found, as_json, lambda agent: [_agent_line(agent)])


@agents.command()
@click.option("--agent", "name", help="Only the changes to this agent.")
@click.option("--limit", type=click.IntRange(1, 10_000), default=50, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def audit(name: str | None, limit: int, as_json: bool) -> None:
    """The audit log: who changed which agent, how and when (newest first)."""
    found = _run(as_json, lambda accounts: {"audit": accounts.audit(limit=limit, name=name)})
    _show(found, as_json, lambda d: [_audit_line(entry) for entry in d["audit"]] or ["no changes yet"])


def _audit_line(entry: dict[str, Any]) -> str:
    detail = ", ".join(f"{key}={json.dumps(value)}" for key, value in entry["detail"].items())
    return f"{entry['at']}  {entry['actor']:<9}  {entry['action']:<10}  {entry['target']}  {detail}".rstrip()


@agents.command(name="rotate-key")
@click.argument("name")
@click.option("--key-days", type=int, help="The new key is refused this many days from now (default: never).")
@click.option("--json", "as_json", is_flag=True)
def rotate_key(name: str, key_days: int | None, as_json: bool) -> None:
    """Give agent NAME a new key; the old one stops working at once."""
    found = _run(
        as_json, lambda accounts: {"name": name, "key": accounts.rotate_key(name, key_days=key_days, actor="cli")}
    )
    _show(found, as_json, lambda data: [f"new key for {name} (shown once): {data['key']}"])


@agents.command()
@click.argument("name")
@click.option("--yes", is_flag=True, required=True, help="Confirm: the agent, its key and its ledger are deleted.")
@click.option("--json", "as_json", is_flag=True)
def delete(name: str, yes: bool, as_json: bool) -> None:
    """Delete agent NAME with its ledger (refused while a call of it holds credits: disable it first)."""
    found = _run(as_json, lambda accounts: {"deleted": name, "balance": accounts.delete(name, actor="cli")})
    _show(found, as_json, lambda data: [f"deleted {name} ({data['balance']} credits went with it)"])


@agents.command()
@click.argument("name")
@click.option("--enable", is_flag=True, help="Enable it again.")
@click.option("--json", "as_json", is_flag=True)
def disable(name: str, enable: bool, as_json: bool) -> None:
    """Disable agent NAME: its calls are refused (agent_auth_failed) until enabled again."""
    found = _run(as_json, lambda accounts: accounts.set_disabled(name, not enable, actor="cli").to_json())
    _show(found, as_json, lambda agent: [_agent_line(agent)])


@agents.command(name="set")
@click.argument("name")
@click.option("--per-hour", help="Calls per hour ('none': unlimited).")
@click.option("--per-day", help="Calls per day ('none': unlimited).")
@click.option("--price", multiple=True, help="TOOL=CREDITS for this agent, e.g. web_search=3.")
@click.option("--tools", help="Comma-separated tools this agent sees (e.g. web_search,web_fetch).")
@click.option("--default-results", type=click.IntRange(min=1), help="Results when a search asks for no number.")
@click.option("--max-results", type=click.IntRange(min=1), help="At most this many results per search.")
@click.option("--default-chars", type=click.IntRange(min=1), help="web_fetch window when none is asked for.")
@click.option("--max-chars", type=click.IntRange(min=1), help="At most this many characters per web_fetch window.")
@click.option(
    "--profile",
    "surface",
    type=click.Choice([*TOOL_PROFILES, "none"]),
    help="A drop-in tool profile this agent sees instead of webreach's tools, e.g. credits-server ('none': ours).",
)
@click.option("--json", "as_json", is_flag=True)
def set_agent(
    name: str,
    per_hour: str | None,
    per_day: str | None,
    price: tuple[str, ...],
    tools: str | None,
    surface: str | None,
    as_json: bool,
    **sizes: int | None,
) -> None:
    """Change agent NAME's quotas, prices or tool profile."""

    profile: dict[str, Any] = {key: value for key, value in sizes.items() if value is not None}
    if surface is not None:
        profile["surface"] = None if surface == "none" else surface
    if tools is not None:
        profile["tools"] = [t.strip() for t in tools.split(",") if t.strip()]

    def work(accounts: Accounts) -> dict[str, Any]:  # given fields replace, prices and profile merge per key
        limits = {key: _limit(value) for key, value in (("per_hour", per_hour), ("per_day", per_day)) if value}
        prices = dict(_price(item) for item in price)
        return accounts.update_agent(name, limits=limits, prices=prices, profile=profile, actor="cli").to_json()

    _show(_run(as_json, work), as_json, lambda agent: [_agent_line(agent), f"options: {json.dumps(agent['options'])}"])


def _price(item: str) -> tuple[str, int]:
    tool, _, credits = item.partition("=")
    if not (credits.isascii() and credits.isdigit()):
        raise InvalidInputError(f"not a price: {item!r}", hint="Write TOOL=CREDITS, e.g. web_search=3.")
    return tool.strip(), _whole(credits)


@agents.command()
@click.argument("name")
@click.option("--limit", type=click.IntRange(min=1, max=100_000), default=100, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def ledger(name: str, limit: int, as_json: bool) -> None:
    """Agent NAME's journal, newest first: grants, reservations, commits and releases."""
    rows = _run(as_json, lambda accounts: accounts.journal(name, limit=limit))
    _show(rows, as_json, lambda found: [_journal_line(row) for row in found] or ["no journal rows"])


def _journal_line(row: dict[str, Any]) -> str:
    when = datetime.fromtimestamp(row["at"], UTC).strftime("%Y-%m-%d %H:%M:%S")
    what = row["tool"] or row["note"]
    return f"{when}  {row['kind']:<8} {row['amount']:>+6}  {row['call_id']}  {what}"
