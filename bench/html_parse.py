"""Benchmark: the time html_tree.parse takes per page, by phase, over a WCXB dev half (the extractor's one parse).

Run: python -m bench.html_parse [--split tune] [--repeat 10]. Prints one row per phase: the median and mean ms per
page (each page's time the median of its repetitions) and the total for one pass. The pages are decoded as
cascade.extract decodes them; the phases are the ones parse runs: the UTF-8 bytes lxml is handed (xml_safe_utf8),
libxml2's parse (_parse_html) and the whitespace layout (collapse_whitespace, on a fresh tree each time).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench.wcxb import SPLITS, load_wcxb
from webreach.extract import charset
from webreach.extract.preparation import html_tree, whitespace
from webreach.extract.preparation.xml_chars import xml_safe_utf8
from webreach.extract.sniff import sniff


def decoded_pages(split: str) -> list[str]:
    """The split's HTML pages as decoded text, as cascade.extract decodes them."""
    pages = []
    for _key, url, _kind, _truth, body, _path in load_wcxb(split):
        sniffed = sniff(body, "text/html", url)
        if sniffed.kind == "html":
            pages.append(charset.decode(body, sniffed.charset, markup=True).text)
    return pages


def phase_times(pages: list[str], repeat: int) -> dict[str, list[float]]:
    """Per phase, each page's median seconds over `repeat` runs."""
    samples: dict[str, list[list[float]]] = {name: [[] for _ in pages] for name in PHASES}
    gc.disable()  # a collection landing inside one phase would be charged to it
    try:
        for _ in range(repeat):
            for index, page in enumerate(pages):
                for name, (prepare, run) in PHASES.items():
                    argument = prepare(page)
                    start = time.perf_counter()
                    run(argument)
                    samples[name][index].append(time.perf_counter() - start)
            gc.collect()
    finally:
        gc.enable()
    return {name: [statistics.median(page) for page in rows] for name, rows in samples.items()}


PHASES: dict[str, tuple[Callable[[str], Any], Callable[[Any], Any]]] = {
    "parse (all of it)": (lambda page: page, html_tree.parse),
    "xml_safe_utf8": (lambda page: page, xml_safe_utf8),
    "_parse_html": (xml_safe_utf8, html_tree._parse_html),
    "collapse_whitespace": (lambda page: html_tree._parse_html(xml_safe_utf8(page))[0], whitespace.collapse_whitespace),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--split", choices=SPLITS, default="tune", help="WCXB half: tune, check or all")
    parser.add_argument("--repeat", type=int, default=10, help="timed runs per page (median kept)")
    args = parser.parse_args()
    pages = decoded_pages(args.split)
    times = phase_times(pages, max(1, args.repeat))
    print(f"html_tree.parse over the {len(pages)} pages of WCXB dev, split {args.split}, {args.repeat} runs a page\n")
    print("| phase | median ms/page | mean ms/page | total s |\n|---|---|---|---|")
    for name, seconds in times.items():
        median, mean = statistics.median(seconds) * 1000, statistics.fmean(seconds) * 1000
        print(f"| {name} | {median:.2f} | {mean:.2f} | {sum(seconds):.2f} |")


if __name__ == "__main__":
    main()
