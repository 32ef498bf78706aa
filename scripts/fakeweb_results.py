"""Write (or --check) the fake web's result index: every result URL of its recordings, with title and snippet.

    .venv/bin/python scripts/fakeweb_results.py           # rewrite src/webreach/testing/recordings/_results.json
    .venv/bin/python scripts/fakeweb_results.py --check   # exit 1 when the file is out of date

The fake web serves a readable page for every URL in the index (testing/sites.py), so an offline `webreach
search` can be followed by a read of any result. The index is generated here, with webreach's own parsers,
because the fake web must not import engines (it is a plain loopback server that plays files). Run it after
adding or changing a results recording or a parser; tests/testing/test_fakeweb_sites.py runs --check.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from webreach import Gateway, Settings
from webreach.testing.recordings import RECORDINGS_DIR, load_recording
from webreach.testing.sites import INDEX_FILE

SOURCE = RECORDINGS_DIR / INDEX_FILE


async def build() -> str:
    """The index as JSON text: {"results": [{"url", "title", "snippet", "engine"}, ...]}, sorted by URL."""
    async with Gateway.from_settings(Settings(state={"backend": "memory"}, cache={"backend": "none"})) as gateway:
        return _index(gateway)


def _index(gateway: Gateway) -> str:
    entries: dict[str, dict[str, str]] = {}
    for path in sorted(RECORDINGS_DIR.glob("*/results*.http")):
        engine = path.parent.name
        if engine.startswith(("images_", "reverse_")):  # image-search and reverse-search recordings: image hits
            continue
        recording = load_recording(path)
        kind = dict(recording.headers).get("content-type", "text/html")
        parsed = gateway.engines.parse_saved(engine, recording.body, status=recording.status, content_type=kind)
        for hit in parsed.results:
            url = hit.url.partition("#")[0]
            entries.setdefault(url, {"url": url, "title": hit.title, "snippet": hit.snippet, "engine": engine})
    return json.dumps({"results": sorted(entries.values(), key=lambda e: e["url"])}, ensure_ascii=False, indent=1)


def main(argv: list[str]) -> int:
    text = asyncio.run(build()) + "\n"
    if "--check" in argv:
        current = SOURCE.read_text(encoding="utf-8") if SOURCE.exists() else ""
        if current != text:
            print(f"{SOURCE} is out of date: run scripts/fakeweb_results.py", file=sys.stderr)
            return 1
        return 0
    Path(SOURCE).write_text(text, encoding="utf-8")
    print(f"wrote {SOURCE}: {len(json.loads(text)['results'])} results")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
