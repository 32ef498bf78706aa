"""Benchmark: REST throughput of `webreach serve --workers 1` against `--workers 2` on this machine (issue 37).

Run: python -m bench.workers [--seconds 5] [--rounds 5] [--connections 32]

Both servers run at once on the fake web with SQLite state and cache (what --workers shares), warmed so every
measured search is a cache hit; wrk (Debian's `wrk`) drives each in turn within a round, POST /v1/search closed
loop from --connections connections on 2 threads. Reports each round's requests per second and the median ratio
of 2 workers to 1. On a 2-core machine wrk and the server share the cores, so the ratio is a floor.
Writes bench/results/workers.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import re
import shutil
import statistics
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx

from webreach.testing import FakeWeb
from webreach.testing.environment import process_env
from webreach.testing.server_process import serve_process

RESULTS = Path(__file__).parent / "results"
BODY = '{"query": "python asyncio", "engine": "mojeek"}'
SCRIPT = f"""wrk.method = "POST"
wrk.body = '{BODY}'
wrk.headers["Content-Type"] = "application/json"
"""


@contextlib.contextmanager
def server(web: FakeWeb, home: Path, workers: int) -> Iterator[str]:
    env = process_env(
        home, WEBREACH_FAKE_WEB=web.url, WEBREACH_STATE__BACKEND="sqlite", WEBREACH_CACHE__BACKEND="sqlite",
    )  # fmt: skip
    home.mkdir(parents=True, exist_ok=True)
    with serve_process(env, home, "--workers", str(workers)) as running:
        for _ in range(4 * workers):  # every worker's cache warm (the SQLite cache is shared; its reader is not)
            answer = httpx.post(running.url + "/v1/search", content=BODY, trust_env=False, timeout=60)
            assert answer.status_code == 200
        yield running.url


def wrk(url: str, seconds: float, connections: int, script: Path) -> float:
    command = ["wrk", "-t", "2", "-c", str(connections), "-d", f"{seconds:g}s", "-s", str(script), url + "/v1/search"]
    output = subprocess.run(command, capture_output=True, text=True, check=True, timeout=seconds + 60).stdout
    if "Non-2xx" in output or "Socket errors" in output:
        raise RuntimeError(f"wrk saw errors: {output}")
    return float(re.findall(r"Requests/sec:\s+(\S+)", output)[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=32)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (apt-get install wrk)")
    rates: dict[int, list[float]] = {1: [], 2: []}
    with FakeWeb.in_thread() as web, tempfile.TemporaryDirectory() as home, contextlib.ExitStack() as stack:
        urls = {n: stack.enter_context(server(web, Path(home) / f"w{n}", n)) for n in rates}
        script = Path(home) / "post.lua"
        script.write_text(SCRIPT)
        for _ in range(args.rounds):
            for n, url in urls.items():
                rates[n].append(wrk(url, args.seconds, args.connections, script))
    ratios = [two / one for one, two in zip(rates[1], rates[2], strict=True)]
    print("| workers | req/s per round | median |\n|---:|---|---:|")
    for n, values in rates.items():
        print(f"| {n} | {', '.join(f'{v:.0f}' for v in values)} | {statistics.median(values):.0f} |")
    print(f"\n2 workers / 1 worker: {statistics.median(ratios):.2f}x (rounds {min(ratios):.2f}-{max(ratios):.2f})")
    RESULTS.mkdir(exist_ok=True)
    result = {"machine": platform.platform(), "rates": rates, "ratios": ratios, "args": vars(args)}
    (RESULTS / "workers.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
