"""Benchmark: the floor under metering's cost per REST call, and a branch against a base, in one interleaved run.

Run: python -m bench.accounting_floor [--rounds 3] [--seconds 3] [--clients 8] [--tree base=/path/to/base/src ...]
[--postgres]

Servers (each a process of its own, cached searches under wrk as bench/accounting.py drives them, modes taking turns
each round, reversed every other round), each reported as server CPU per request and its ratio to accounting off
in the same round (median, min-max):
- off: no accounting; null-off: the same through bench/_null_ledger.py's entry (that the entry costs what
  `webreach serve` does);
- null-inline: the metering policy over a null ledger, its no-op work run on the event loop (bench/_null_ledger.py);
- null-thread: the same no-op through the group commit's thread and back (the hand-off under the GIL);
- sqlite (and postgresql with --postgres): the real ledger; with --base, the same modes from the base's source tree
  (`sqlite@base`) and likewise for each `--tree LABEL=SRC`, so a change is measured against its base on the same
  machine at the same moments.
So null-inline - off is the policy, null-thread - null-inline the hand-off, sqlite - null-thread the SQL.
Writes bench/results/accounting-floor.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx

from bench._serve_processes import serving
from bench.accounting import ARGUMENTS, RESULTS, Rate, _add_agent, saturated
from webreach.testing import FakeWeb
from webreach.testing.environment import process_env
from webreach.testing.postgres import fresh_database, throwaway_cluster
from webreach.testing.server_process import serve_process

SRC = Path(__file__).parent.parent / "src"


@contextlib.contextmanager
def started(mode: str, web: FakeWeb, home: Path, database: str | None, src: Path) -> Iterator[tuple[str, int]]:
    env = process_env(home, WEBREACH_FAKE_WEB=web.url, WEBREACH_STATE__BACKEND="memory", PYTHONPATH=str(src))
    if database:
        env |= {"WEBREACH_ACCOUNTS__ENABLED": "true", "WEBREACH_ACCOUNTS__DATABASE": database}
    home.mkdir(parents=True, exist_ok=True)
    if mode.startswith("null"):
        flag = {"null-inline": ["--inline"], "null-off": ["--off"]}.get(mode, [])
        command = [sys.executable, "-m", "bench._null_ledger", *flag]
        with serving(command, env, cwd=SRC.parent) as running:
            yield running
        return
    with serve_process(env, home) as server:
        yield server.url, server.process.pid


def run(args: argparse.Namespace, web: FakeWeb, cluster: str | None, tmp: Path) -> dict[str, list[Rate]]:
    modes = ["off", "null-off", "null-inline", "null-thread", "sqlite"] + (["postgresql"] if args.postgres else [])
    sources = {mode: SRC for mode in modes}
    for label, src in (tree.split("=", 1) for tree in args.tree):
        for mode in [m for m in modes if m in ("sqlite", "postgresql")]:
            modes.append(f"{mode}@{label}")
            sources[f"{mode}@{label}"] = Path(src)
    rates: dict[str, list[Rate]] = {mode: [] for mode in modes}
    with contextlib.ExitStack() as stack:
        servers, keys = {}, {}
        for mode in modes:
            kind = mode.split("@")[0]
            database = None if kind in ("off", "null-off") else str(tmp / f"{mode.replace('@', '-')}.sqlite3")
            if kind == "postgresql":
                database = fresh_database(cluster) if cluster else None
            keys[mode] = asyncio.run(_add_agent(database, mode.replace("@", "-"))) if database else None
            servers[mode] = stack.enter_context(started(mode, web, tmp / mode, database, sources[mode]))
            headers = {"Authorization": f"Bearer {keys[mode]}"} if keys[mode] else {}
            url = servers[mode][0]
            httpx.post(f"{url}/v1/search", json=ARGUMENTS, headers=headers, trust_env=False).raise_for_status()
        for index in range(args.rounds):
            for mode in modes if index % 2 == 0 else reversed(modes):
                url, pid = servers[mode]
                rates[mode].append(saturated(url, pid, keys[mode], args.clients, args.seconds))
    return rates


def table(rates: dict[str, list[Rate]]) -> tuple[str, dict[str, object]]:
    lines = ["| mode | REST req/s | server CPU ms/req | CPU vs off (median, min-max) |", "|---|---:|---:|---:|"]
    summary: dict[str, object] = {}
    for mode, runs in rates.items():
        ratios = [r.cpu_ms / off.cpu_ms for r, off in zip(runs, rates["off"], strict=True)]
        rps, cpu, ratio = statistics.median(r.rps for r in runs), statistics.median(r.cpu_ms for r in runs), 0.0
        ratio = statistics.median(ratios)
        summary[mode] = {"rest_rps": rps, "server_cpu_ms": cpu, "cpu_vs_off": ratio, "ratios": ratios}
        lines.append(f"| {mode} | {rps:.0f} | {cpu:.3f} | {ratio:.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) |")
    return "\n".join(lines), summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--tree", action="append", default=[], help="LABEL=SRC: that tree's ledger servers too")
    parser.add_argument("--postgres", action="store_true")
    args = parser.parse_args()
    with FakeWeb.in_thread() as web, tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        cluster = stack.enter_context(throwaway_cluster()) if args.postgres else None
        rates = run(args, web, cluster, Path(tmp))
    text, summary = table(rates)
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "accounting-floor.json").write_text(json.dumps({"args": vars(args), "modes": summary}, indent=2) + "\n")


if __name__ == "__main__":
    main()
