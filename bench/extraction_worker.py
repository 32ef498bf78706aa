"""Benchmark: what extracting ordinary pages in the worker pool (extract/pool.py) costs against extracting them in
the server's process, and what the attribute-flood scan (attribute_floods.py) costs, on a WCXB dev sample.

Run: python -m bench.extraction_worker [--pages 200] [--repeat 3]. For each page (every fifth of WCXB dev, in id
order, up to --pages; each page's time the median of --repeat runs, markdown as the reader asks): extract() in
this process, then the same through ExtractionWorkers.extract (pool of one child, already started: the pipe there
and back and the pickling of the page and its result), and tame_attributes alone. Prints the median and mean ms
per page of each, and checks that both paths give the same text. `--dump FILE` writes every page's text and
markdown (200 WCXB dev pages and every AEB page) as JSON instead, so two trees' outputs can be compared.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import statistics
import time
from pathlib import Path

from bench.extraction import load_pages
from bench.wcxb import load_wcxb
from webreach.extract.cascade import extract
from webreach.extract.worker import ExtractionWorkers, WorkerBudget

HTML = "text/html"


def sample(count: int) -> list[tuple[str, str, bytes]]:
    """(key, url, body) of every fifth WCXB dev page, up to `count`."""
    return [(key, url, body) for key, url, _kind, _truth, body, _path in load_wcxb("all")[::5][:count]]


async def timings(pages: list[tuple[str, str, bytes]], repeat: int) -> dict[str, list[float]]:
    from webreach.attribute_floods import tame_attributes

    workers = ExtractionWorkers(WorkerBudget(pool_size=1))
    times: dict[str, list[float]] = {"in process": [], "worker pool": [], "attribute scan": []}
    try:
        await workers.extract(b"<p>warm up</p>", content_type=HTML, url="https://warm.example/", seconds=60)
        for _key, url, body in pages:
            runs: dict[str, list[float]] = {name: [] for name in times}
            text = body.decode("utf-8", "replace")
            for _ in range(repeat):
                started = time.perf_counter()
                here = extract(body, content_type=HTML, url=url)
                runs["in process"].append(time.perf_counter() - started)
                started = time.perf_counter()
                there = await workers.extract(body, content_type=HTML, url=url, seconds=60)
                runs["worker pool"].append(time.perf_counter() - started)
                started = time.perf_counter()
                tame_attributes(text)
                runs["attribute scan"].append(time.perf_counter() - started)
                assert here.text == there.text, url
            for name, values in runs.items():
                times[name].append(statistics.median(values) * 1000)
    finally:
        await workers.aclose()
    return times


def dump(path: Path, count: int) -> None:
    """Every sampled WCXB page's and every AEB page's text and markdown, hashed, as JSON."""
    pages = [(key, url, body) for key, url, body in sample(count)]
    pages += [(f"aeb/{page.key}", page.url, page.html) for page in load_pages()]
    outputs = {}
    for key, url, body in pages:
        row = []
        for form in ("text", "markdown"):
            try:
                row.append(
                    hashlib.sha256(extract(body, content_type=HTML, url=url, format=form).text.encode()).hexdigest()
                )
            except Exception as exc:  # a typed error is an output too
                row.append(type(exc).__name__)
        outputs[key] = row
    path.write_text(json.dumps(outputs, indent=0, sort_keys=True))
    print(f"{len(outputs)} pages written to {path}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dump", type=Path)
    args = parser.parse_args()
    if args.dump:
        dump(args.dump, args.pages)
        return
    pages = sample(args.pages)
    times = asyncio.run(timings(pages, args.repeat))
    print(f"| path ({len(pages)} WCXB dev pages) | median ms | mean ms |\n|---|---:|---:|")
    for name, values in times.items():
        print(f"| {name} | {statistics.median(values):.2f} | {statistics.fmean(values):.2f} |")


if __name__ == "__main__":
    main()
