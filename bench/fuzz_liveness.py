"""Liveness under hostile work, for bench/fuzz.py: /healthz answers while one request chews on something nasty.

A real `webreach serve` process points bing at a loopback server of ours (its result page: 0.5 MB of nested divs)
and may read that server's pages (a PDF bomb: pages whose content streams inflate to 70 MB of whitespace each, over
the stream budget; and a slow PDF: 40 pages of 15 MB each, under it, so extraction runs until the read's deadline
stops it). While one hostile request runs, GET /healthz is sampled every 20 ms on the same server; the report gives
its p50, p99 and maximum latency, how the hostile request ended and when (against its deadline), and the peak
resident memory of the server and its extraction workers together (sampled from /proc every 20 ms). A /healthz that
has not answered after HEALTHZ_TIMEOUT counts as a timeout at that latency.

Concurrent crops (issue 35): a noisy 4000x3000 JPEG is uploaded once (POST /v1/images), then three crop_images
calls of 2000x1500 boxes of it run at once, each cut, encoded and stored by the server.

Attribute floods (issue 35): a page of one tag with 200,000 attributes is fetched FLOOD_READS times at once, then
an ordinary page; "ended" is that last read's.
"""

from __future__ import annotations

import functools
import io
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from extract.hostile_pdf import bomb_pdf
from frontends.serving import http_server

SAMPLE_EVERY = 0.02
HEALTHZ_TIMEOUT = 10.0  # a /healthz that takes longer is recorded as taking this long
NESTED_PAGE = (b"<html><body>" + b"<div>" * 100_000 + b"x" + b"</div>" * 2_000 + b"</body></html>")[: 512 * 1024]
# one tag of 200,000 distinct attributes (1.9 MB): minutes of lxml's parse before attribute floods were tamed
FLOOD_PAGE = ("<html><body><div " + " ".join(f"a{i}=x" for i in range(200_000)) + ">x</div></body></html>").encode()
FLOOD_READS = 6  # at once: as many as once held every extraction thread


def hostile_site(pdfs: dict[str, bytes]) -> ThreadingHTTPServer:
    """A loopback site: the PDFs at their paths, the nested page anywhere else."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            pdf = pdfs.get(self.path)
            page = FLOOD_PAGE if self.path == "/flood.html" else NESTED_PAGE
            body, kind = (pdf, "application/pdf") if pdf is not None else (page, "text/html")
            self.send_response(200)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            return None

    site = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    return site


def tree_rss_mb(pid: int) -> float:
    """Resident memory of `pid` and its descendants now, in MB."""
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
            for task in Path(f"/proc/{current}/task").iterdir():
                pending += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return total / 1024


def under_load(url: str, pid: int, hostile: Callable[[], httpx.Response]) -> dict[str, Any]:
    """Run `hostile` in a thread; sample /healthz and memory until it ends."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        started = time.perf_counter()
        try:
            response = hostile()
            body = response.json()
            outcome["status"] = f"{response.status_code} {body.get('code', 'ok') if isinstance(body, dict) else ''}"
        except Exception as exc:
            outcome["status"] = f"client {type(exc).__name__}"
        outcome["seconds"] = time.perf_counter() - started

    worker = threading.Thread(target=run)
    latencies, peak = [], 0.0
    with httpx.Client(timeout=HEALTHZ_TIMEOUT, trust_env=False) as client:
        worker.start()
        while worker.is_alive():
            started = time.perf_counter()
            try:
                client.get(f"{url}/healthz")
            except httpx.TimeoutException:
                outcome["healthz_timeouts"] = outcome.get("healthz_timeouts", 0) + 1  # counted at the timeout
            latencies.append((time.perf_counter() - started) * 1000)
            peak = max(peak, tree_rss_mb(pid))
            time.sleep(max(0.0, SAMPLE_EVERY - (time.perf_counter() - started)))
    worker.join()
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] if latencies else 0.0
    p50 = statistics.median(latencies) if latencies else 0.0
    return {
        **outcome, "healthz_samples": len(latencies), "healthz_p50_ms": p50, "healthz_p99_ms": p99,
        "healthz_max_ms": latencies[-1] if latencies else 0.0, "peak_rss_mb": peak,
    }  # fmt: skip


def liveness() -> dict[str, Any]:
    pdf = bomb_pdf(pages=4, inflated=70 * 1024 * 1024)
    # pages just under the stream budget (16 MB): each is extracted, slowly, so the read runs to its deadline
    slow = bomb_pdf(pages=40, inflated=15 * 1024 * 1024)
    site = hostile_site({"/bomb.pdf": pdf, "/slow.pdf": slow})
    base = f"http://127.0.0.1:{site.server_address[1]}"
    env = {
        "WEBREACH_ENGINES__BING__BASE_URL": f"{base}/bing",
        "WEBREACH_READ__ALLOW_CIDRS": '["127.0.0.1/32"]',
        "WEBREACH_READ__TIMEOUT": "20",
        "WEBREACH_FAKE_WEB": "",
        **({"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}),  # the tree measured
    }
    rows = {}
    photo = Path(tempfile.mkstemp(suffix=".jpg")[1])
    photo.write_bytes(noisy_jpeg(4000, 3000))
    try:
        with tempfile.TemporaryDirectory() as home, _NoFakeWeb() as web, http_server(web, Path(home), **env) as server:
            post = httpx.Client(timeout=120, trust_env=False)
            search = {"query": "hostile nesting", "engine": "bing"}
            rows["search: 0.5 MB nested divs (deadline 30 s)"] = under_load(
                server.url, server.process.pid, lambda: post.post(f"{server.url}/v1/search", json=search)
            )
            for path, name in (
                ("/bomb.pdf", f"PDF bomb, {len(pdf) // 1024} KB -> 4 x 70 MB"),
                ("/slow.pdf", f"slow PDF, {len(slow) // 1024} KB -> 40 x 15 MB"),
            ):
                fetch = {"url": f"{base}{path}"}
                rows[f"fetch: {name} (deadline 20 s)"] = under_load(
                    server.url, server.process.pid, functools.partial(post.post, f"{server.url}/v1/fetch", json=fetch)
                )
            rows[f"fetch: {FLOOD_READS} x 200,000 attributes on one tag, at once (deadline 20 s)"] = under_load(
                server.url, server.process.pid, functools.partial(flood_reads, post, server.url, f"{base}/flood.html")
            )
            rows["crops: three concurrent 2000x1500 crops of a 12 MP JPEG"] = under_load(
                server.url,
                server.process.pid,
                functools.partial(concurrent_crops, server.url, photo),
            )
            post.close()
    finally:
        photo.unlink()
        site.shutdown()
        site.server_close()
    return {"rows": rows, "table": liveness_table(rows)}


def flood_reads(post: httpx.Client, server: str, url: str) -> httpx.Response:
    """FLOOD_READS fetches of the attribute flood at once, then an ordinary one (the nested page); its answer."""
    with ThreadPoolExecutor(FLOOD_READS) as pool:
        list(pool.map(lambda _: post.post(f"{server}/v1/fetch", json={"url": url}), range(FLOOD_READS)))
    return post.post(f"{server}/v1/fetch", json={"url": url.replace("/flood.html", "/ordinary")})


def concurrent_crops(url: str, photo: Path, *, count: int = 3) -> httpx.Response:
    """Upload `photo` (12 MP), then `count` crop_images calls of 2000x1500 boxes at once, from a child process (so
    this one, sampling /healthz, never waits on their megabytes of answers); the first failure or the last answer."""
    script = f"""
import threading, httpx
session = {{"X-Webreach-Session": "liveness-crops"}}
post = httpx.Client(timeout=120, trust_env=False)
with open({str(photo)!r}, "rb") as photo:
    uploaded = post.post("{url}/v1/images", files={{"file": ("photo.jpg", photo.read())}}, headers=session)
answers = [uploaded]
def crop(i):
    box = [500 * i, 500 * i, 500 * i + 2000, 500 * i + 1500]
    arguments = {{"crops": {{uploaded.json()["token"]: box}}, "units": "pixels"}}
    answers.append(post.post("{url}/v1/crop_images", json=arguments, headers=session))
workers = [threading.Thread(target=crop, args=(i,)) for i in range({count})] if uploaded.status_code == 200 else []
for worker in workers: worker.start()
for worker in workers: worker.join()
last = next((a for a in answers if a.status_code != 200), answers[-1])
print(last.status_code, last.text[:2000] if last.status_code != 200 else '{{"status": "ok"}}')
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False)
    status, _, text = done.stdout.strip().partition(" ")
    return httpx.Response(int(status or 599), text=text or done.stderr[-2000:])


def noisy_jpeg(width: int, height: int) -> bytes:
    """A photo-like JPEG (noise over gradients), megabytes as a camera's are."""
    from PIL import Image

    noise = Image.frombytes("L", (width, height), random.Random(35).randbytes(width * height))
    base = Image.linear_gradient("L").resize((width, height))
    image = Image.merge("RGB", (base, noise.point(lambda v: v // 4), base.transpose(Image.Transpose.FLIP_LEFT_RIGHT)))
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=90)
    return out.getvalue()


class _NoFakeWeb:
    """http_server wants a fake web for its environment; this run points engines elsewhere, so it gets none."""

    url = ""

    def __enter__(self) -> _NoFakeWeb:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def liveness_table(rows: dict[str, dict[str, Any]]) -> str:
    lines = [
        "| hostile request | ended | after s | /healthz samples | timeouts | p50 ms | p99 ms | max ms | peak RSS MB |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, row in rows.items():
        lines.append(
            f"| {name} | {row['status']} | {row['seconds']:.1f} | {row['healthz_samples']} "
            f"| {row.get('healthz_timeouts', 0)} | {row['healthz_p50_ms']:.1f} "
            f"| {row['healthz_p99_ms']:.1f} | {row['healthz_max_ms']:.1f} | {row['peak_rss_mb']:.0f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    result = liveness()
    print(result["table"])
    os._exit(0)
