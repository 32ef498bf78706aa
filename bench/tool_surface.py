"""Benchmark: tokens of the tool definitions a model reads every turn (issue 41: at most 900 for the web tools).

Run: python -m bench.tool_surface. Every tool the default surface and the "images" profile offer is rendered in
every dialect, plain and strict, as the doors send it (compact JSON, UTF-8), with every engine of the registry
(the longest any engine list makes a definition), and counted with the o200k_base tokenizer of bpe-openai (its
vocabulary ships with the package, so this runs offline). Prints a table and writes
bench/results/tool_surface.json. tests/tools/test_strict_surface.py holds the default surface to the budget.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bpe_openai import get_encoding

from webreach import engines
from webreach.tools import DIALECTS, tool_schemas

RESULTS = Path(__file__).parent / "results"
BUDGET = 900
WEB = ["web_search", "web_search_multi", "web_fetch"]
IMAGES = ["image_search", "crop_images", "reverse_image_search"]


def measure() -> list[dict[str, Any]]:
    count = get_encoding("o200k_base").encode
    rows = []
    for dialect in DIALECTS:
        for strict in (False, True):
            schemas = tool_schemas(dialect, engines=engines.names(), strict=strict, enabled=[*WEB, *IMAGES])
            tokens = [len(count(json.dumps(s, separators=(",", ":"), ensure_ascii=False))) for s in schemas]
            per_tool = dict(zip([*WEB, *IMAGES], tokens, strict=True))
            web = sum(per_tool[name] for name in WEB)
            rows.append({"dialect": dialect, "strict": strict, **per_tool, "web_tools": web, "all": sum(tokens)})
    return rows


def main() -> None:
    rows = measure()
    names = [*WEB, *IMAGES]
    print("| dialect | strict | " + " | ".join(names) + " | three web tools | all six |")
    print("|---|---|" + "---|" * (len(names) + 2))
    for row in rows:
        cells = " | ".join(str(row[name]) for name in names)
        print(f"| {row['dialect']} | {row['strict']} | {cells} | {row['web_tools']} | {row['all']} |")
    plain = [row["web_tools"] for row in rows if not row["strict"]]
    print(f"\nthe default surface (three web tools), plain: at most {max(plain)} tokens (budget {BUDGET})")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "tool_surface.json"
    summary = {"budget": BUDGET, "tokenizer": "o200k_base (bpe-openai)", "default_surface_max": max(plain)}
    out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
