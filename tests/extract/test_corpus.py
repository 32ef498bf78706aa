"""A quality floor on the real article-extraction-benchmark pages (../shared/data/extraction/aeb).

bench/extraction.py measures the cascade against its baselines; this test only pins the floor so a change that
makes extraction worse fails CI. The scorer is the benchmark's (4-token word shingles, per-page normalised
tp/fp/fn, macro precision and recall, F1 of the means), restated here so tests do not import bench/.
"""

from __future__ import annotations

import gzip
import json
import re
import statistics
from collections import Counter
from pathlib import Path

import pytest

from webreach.extract.cascade import extract

F1_FLOOR = 0.965  # measured 0.9697 (plain trafilatura: 0.9525, with comments off: 0.9598)
WORD = re.compile(r"\w+")


def shingles(text: str) -> Counter[tuple[str, ...]]:
    tokens = WORD.findall(text)
    return Counter(tuple(tokens[i : i + 4]) for i in range(max(1, len(tokens) - 3))) if tokens else Counter()


@pytest.mark.slow
def test_extraction_keeps_its_f1_floor(shared_data: Path) -> None:
    root = shared_data / "extraction" / "aeb"
    truth = json.loads((root / "ground-truth.json").read_text(encoding="utf-8"))
    precisions, recalls = [], []
    for key, expected in sorted(truth.items()):
        body = gzip.decompress((root / "html" / f"{key}.html.gz").read_bytes())
        text = extract(body, content_type="text/html", url=expected["url"], format="text").text
        true, predicted = shingles(expected["articleBody"]), shingles(text)
        tp, fp, fn = (
            sum((true & predicted).values()),
            sum((predicted - true).values()),
            sum((true - predicted).values()),
        )
        if fp == fn == 0:
            precisions.append(1.0)
            recalls.append(1.0)
            continue
        if tp + fp:
            precisions.append(tp / (tp + fp))
        if tp + fn:
            recalls.append(tp / (tp + fn))
    precision, recall = statistics.fmean(precisions), statistics.fmean(recalls)
    f1 = 2 * precision * recall / (precision + recall)
    assert len(truth) == 181
    assert f1 >= F1_FLOOR, f"F1 {f1:.4f} (precision {precision:.4f}, recall {recall:.4f}) fell below {F1_FLOOR}"
