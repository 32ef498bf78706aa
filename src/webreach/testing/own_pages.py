"""The fake web's own named pages: the documents the README reads, served offline under their README addresses.

- https://example.com/report.pdf: a two-page PDF report (a real PDF with a text layer, written here by hand), for
  `webreach fetch https://example.com/report.pdf --format text`;
- https://app.example.com/: a JavaScript app whose HTML is an empty <div> filled in by a script, so the direct
  reader answers needs_browser and `--reader browser` reads the article.

sites.py answers them by Host like the result pages (so fake-web mode resolves these names too), and
`webreach fakeweb` lists them in its banner with the fake web's `/_pages/` and `/_js/` pages.
"""

from __future__ import annotations

import json
from types import MappingProxyType

from webreach.testing.pdfs import text_pdf
from webreach.testing.scenarios import Reply

REPORT_URL = "https://example.com/report.pdf"
APP_URL = "https://app.example.com/"
REPORT_TITLE = "Tide report, summer"
REPORT_PAGES = (
    "Tide report: the summer tides at the north beach ran two hours later than the tables said.",
    "Second page: the pools by the cliff stayed coolest; readings were taken every morning at low tide.",
)
APP_TITLE = "Tide pool field notes"
APP_PARAGRAPHS = (
    "These field notes are written into the page by its script: without JavaScript the page is an empty shell.",
    "Anemones close at low tide and open again when the sea returns; crabs wait in the deepest corner.",
)
_APP_SCRIPT = """
const app = document.getElementById("app");
const heading = document.createElement("h1");
heading.textContent = %(title)s;
app.appendChild(heading);
for (const text of %(paragraphs)s) {
  const paragraph = document.createElement("p");
  paragraph.textContent = text;
  app.appendChild(paragraph);
}
"""


def report_pdf() -> bytes:
    """The report: one Helvetica text line per page, a title and an author in its information dictionary."""
    return text_pdf(REPORT_PAGES, title=REPORT_TITLE, author="The fake web", created="D:20260801090000Z", font_size=11)


def app_page() -> bytes:
    """The JavaScript app: an empty <div id="app"> and the script that writes the notes into it."""
    script = _APP_SCRIPT % {"title": json.dumps(APP_TITLE), "paragraphs": json.dumps(APP_PARAGRAPHS)}
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{APP_TITLE}</title></head>\n'
        f'<body><div id="app"></div>\n<noscript>This app needs JavaScript.</noscript>\n<script>{script}</script>'
        "</body></html>\n"
    ).encode()


# site key (host + path, as sites.site_key makes it) -> the page
OWN_PAGES = MappingProxyType(
    {
        "example.com/report.pdf": Reply(200, (("content-type", "application/pdf"),), report_pdf()),
        "app.example.com/": Reply(200, (("content-type", "text/html; charset=utf-8"),), app_page()),
    }
)


def banner(url: str) -> str:
    """What `webreach fakeweb` says it is, after the line announcing its URL."""
    return "\n".join(
        (
            "Recorded answers: every search gets the same recorded results whatever its query, and filters "
            "(--site, --freshness, ...) do not change them; each result URL has a stand-in page to read.",
            "Its own pages:",
            f"  {REPORT_URL}  a PDF (webreach fetch {REPORT_URL} --format text)",
            f"  {APP_URL}  a JavaScript app (webreach fetch {APP_URL} --reader browser)",
            f"  {url}/_pages/article  an article; {url}/_pages/ also serves redirects and faults",
            f"  {url}/_js/article  a JavaScript-rendered article",
            f"Point webreach at it: export WEBREACH_FAKE_WEB={url}",
        )
    )
