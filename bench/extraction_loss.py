"""Where the rules' reading loses word F1 on WCXB dev, per page type: precision (boilerplate kept) or recall (content
missed), and in which blocks.

Run: python -m bench.extraction_loss [--half tune|check] (after python -m bench.block_scorer collect)

Per true type: the mean precision, recall and F1 of the rules' reading; the F1 it would have with perfect precision
(its recall kept) and with perfect recall (its precision kept), so the larger gap names the side the loss is on; and
three oracle edits with the blocks' true labels (a block is content when its words occur in the true text,
bench/block_scorer.py): prune every line of the reading that is a boilerplate block, add back the content blocks
next to the reading (scorer.add_lines' reach), add back every content block. Then the words behind the loss by
kind of block: boilerplate kept (a line of the reading labelled not content) and content missed (a block labelled
content that no line of the reading is), by tag, furniture, main region, link share, repetition and distance from
the reading. Reads the block scorer's cache only; chooses nothing.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
from collections import Counter
from typing import Any

from bench.block_scorer import CACHE
from bench.wcxb import PAGE_TYPES, word_scores
from webreach.extract.blocks.features import NUMERIC, TAG_GROUPS
from webreach.extract.blocks.scorer import add_lines, prune_lines

AT = {name: index for index, name in enumerate(NUMERIC)}
TAG_NAMES = {value: name for name, value in {**TAG_GROUPS, "h*": 2, "td/th": 3, "dd/dt": 4, "other": 9}.items()}
FOCUS = ("product", "collection", "listing", "service")


def oracles(row: dict[str, Any]) -> tuple[float, float, float]:
    """F1 of the rules' reading pruned, added to (next to it), added to (anywhere) with the true labels."""
    truth, rule, blocks, labels = row["truth"], row["rule"], row["blocks"], row["labels"]
    pruned = prune_lines(rule, blocks, labels, 0.5)
    near = add_lines(rule, blocks, labels, 0.5)
    kept = set(rule_keys(row))
    anywhere = "\n".join([rule, *(b.text for b, label in zip(blocks, labels, strict=True)
                                   if label and b.key not in kept)])  # fmt: skip
    return tuple(word_scores(truth, text)[2] for text in (pruned, near, anywhere))  # type: ignore[return-value]


def rule_keys(row: dict[str, Any]) -> list[str]:
    return [b.key for b in row["blocks"] if b.numbers[AT["in_reading"]]]


def where(numbers: tuple[float, ...]) -> list[str]:
    """The kinds of block a block is, for the loss tables (one block counts under each it is)."""
    tag = TAG_NAMES.get(next(i for i in range(10) if numbers[AT[f"tag_{i}"]]), "other")
    near = numbers[AT["previous_in_reading"]] or numbers[AT["next_in_reading"]]
    return [
        f"tag {tag}",
        "in furniture" if numbers[AT["in_furniture"]] or numbers[AT["furniture_name"]] else "not furniture",
        "in main region" if numbers[AT["in_region"]] else "outside main region",
        "mostly links" if numbers[AT["link_share"]] > 0.5 else "mostly text",
        "repeated siblings" if numbers[AT["log_same_siblings"]] > 0 else "unrepeated",
        "next to reading" if near else "far from reading",
        "short (<5 words)" if numbers[AT["log_words"]] < 1.8 else "5+ words",
    ]


def loss_words(rows: list[dict[str, Any]]) -> tuple[Counter[str], Counter[str]]:
    """(words of boilerplate kept, words of content missed) per kind of block."""
    kept: Counter[str] = Counter()
    missed: Counter[str] = Counter()
    for row in rows:
        for block, label in zip(row["blocks"], row["labels"], strict=True):
            inside = block.numbers[AT["in_reading"]]
            if inside and not label:
                target = kept
            elif label and not inside:
                target = missed
            else:
                continue
            target["all"] += block.words
            for name in where(block.numbers):
                target[name] += block.words
    return kept, missed


def summary(rows: list[dict[str, Any]], kind: str) -> None:
    scores = [word_scores(r["truth"], r["rule"]) for r in rows]
    p, r, f = (statistics.fmean(s[i] for s in scores) for i in range(3))
    perfect_p = statistics.fmean(2 * s[1] / (1 + s[1]) for s in scores)
    perfect_r = statistics.fmean(2 * s[0] / (1 + s[0]) if s[0] else 0.0 for s in scores)
    o = [oracles(row) for row in rows]
    pruned, near, anywhere = (statistics.fmean(x[i] for x in o) for i in range(3))
    print(f"| {kind} | {len(rows)} | {p:.3f} | {r:.3f} | {f:.3f} | {perfect_p:.3f} | {perfect_r:.3f} "
          f"| {pruned:.3f} | {near:.3f} | {anywhere:.3f} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--half", choices=("tune", "check"), default="tune")
    half = parser.parse_args().half
    rows = [row for row in pickle.loads(CACHE.read_bytes()) if row["split"] == half]
    print(f"{half} half, the rules' reading; oracle F1 with the true block labels\n")
    print("| type | pages | P | R | F1 | F1 if P=1 | F1 if R=1 | oracle prune | oracle add near | oracle add any |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for kind in (*PAGE_TYPES, "all"):
        summary([row for row in rows if kind in ("all", row["kind"])], kind)
    for kind in FOCUS:
        kept, missed = loss_words([row for row in rows if row["kind"] == kind])
        print(f"\n{kind}: words of boilerplate kept / content missed, by kind of block")
        for name in sorted(set(kept) | set(missed), key=lambda n: -(kept[n] + missed[n])):
            print(f"  {name:22} kept {kept[name]:7} ({kept[name] / max(1, kept['all']):4.0%})"
                  f"  missed {missed[name]:7} ({missed[name] / max(1, missed['all']):4.0%})")  # fmt: skip


if __name__ == "__main__":
    main()
