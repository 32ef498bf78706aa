"""The fake web's sites: a readable page for every result URL of its recordings, read in fake-web mode.

Real sockets on loopback: the Gateway in fake-web mode resolves names by asking the fake web and connects only
to it, with the guard still judging every URL.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from webreach import Gateway, HostResolutionError, ReadRequest, Settings, UrlNotAllowedError
from webreach.testing import FakeWeb, format_recording
from webreach.testing.sites import INDEX_FILE

pytestmark = pytest.mark.network
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # a subprocess or a heavy model: a cheaper sibling covers the rule in the fast loop
def test_the_result_index_matches_the_recordings_and_the_parsers() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "fakeweb_results.py"), "--check"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


async def test_every_result_url_reads_as_a_page_in_fake_web_mode() -> None:
    async with FakeWeb() as web:
        urls = web.sites.urls()
        assert len(urls) >= 15
        async with Gateway.from_settings(Settings(fake_web=web.url, state={"backend": "memory"})) as gateway:
            for url in urls:
                page = await gateway.read(ReadRequest(url=url))
                assert page.url == url and page.status == 200
                assert "fake web" in page.content
        assert web.count("_sites") >= len(urls)


async def test_the_guard_still_judges_every_url_in_fake_web_mode() -> None:
    async with (
        FakeWeb() as web,
        Gateway.from_settings(Settings(fake_web=web.url, state={"backend": "memory"})) as gateway,
    ):
        for refused in ("http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", "http://127.0.0.2/"):
            with pytest.raises(UrlNotAllowedError):
                await gateway.read(ReadRequest(url=refused))
        with pytest.raises(HostResolutionError) as caught:
            await gateway.read(ReadRequest(url="https://not-a-result.example/"))
        assert caught.value.reason == "offline" and "no pages on it" in caught.value.message
        # another port on the fake web's address reaches the fake web, never another service
        port = web.port + 1 if web.port < 65535 else web.port - 1
        page = await gateway.read(ReadRequest(url=f"http://127.0.0.1:{port}/_pages/article"))
        assert "fake web article" in page.content
    assert web.sites.serves("docs.python.org") and not web.sites.serves("not-a-result.example")


async def test_a_recorded_page_is_served_where_the_index_names_one(tmp_path: Path) -> None:
    recorded = b"<html><head><title>Recorded</title></head><body><p>A recorded page body.</p></body></html>"
    (tmp_path / "_pages").mkdir()
    (tmp_path / "_pages" / "e.http").write_bytes(format_recording(200, {"content-type": "text/html"}, recorded))
    entries = [
        {"url": "https://site.example/recorded", "title": "R", "snippet": "", "engine": "e", "page": "_pages/e.http"},
        {"url": "https://site.example/made?q=1", "title": "Made up <b>", "snippet": "A snippet.", "engine": "e"},
    ]
    (tmp_path / INDEX_FILE).write_text(json.dumps({"results": entries}))
    async with FakeWeb(recordings_dir=tmp_path) as web, httpx.AsyncClient(timeout=2.0) as client:
        got = await client.get(f"{web.url}/recorded", headers={"host": "site.example"})
        assert got.content == recorded
        made = await client.get(f"{web.url}/made?q=1", headers={"host": "site.example:443"})
        assert made.status_code == 200 and b"Made up &lt;b&gt;" in made.content and b"A snippet." in made.content
        missing = await client.get(f"{web.url}/robots.txt", headers={"host": "site.example"})
        assert missing.status_code == 404
        resolved = await client.get(f"{web.url}/_fakeweb/resolve", params={"host": "site.example"})
        unknown = await client.get(f"{web.url}/_fakeweb/resolve", params={"host": "other.example"})
        assert (resolved.status_code, unknown.status_code) == (200, 404)


async def test_the_readmes_pdf_and_javascript_app_are_served_offline() -> None:
    """Issue 41: the README's PDF and browser lines failed offline; the fake web serves both under their README
    addresses, the PDF read to text, the app's direct read a needs_browser shell."""
    from webreach import NeedsBrowserError
    from webreach.testing.own_pages import APP_URL, REPORT_PAGES, REPORT_TITLE, REPORT_URL

    async with (
        FakeWeb() as web,
        Gateway.from_settings(Settings(fake_web=web.url, state={"backend": "memory"})) as gateway,
    ):
        report = await gateway.read(ReadRequest(url=REPORT_URL, format="text"))
        assert report.title == REPORT_TITLE and all(text in report.content for text in REPORT_PAGES)
        with pytest.raises(NeedsBrowserError):
            await gateway.read(ReadRequest(url=APP_URL, reader="direct"))
    assert web.sites.serves("example.com") and web.sites.serves("app.example.com")


def test_webreach_fakeweb_says_what_it_is_and_lists_its_own_pages() -> None:
    from webreach.testing.own_pages import APP_URL, REPORT_URL, banner

    text = banner("http://127.0.0.1:8765")
    assert "whatever its query" in text and "filters" in text
    for page in (REPORT_URL, APP_URL, "http://127.0.0.1:8765/_pages/article", "http://127.0.0.1:8765/_js/article"):
        assert page in text
