"""Reading end to end on the fake web: windows and the page cache, robots, reader fallback, overrides, files."""

from __future__ import annotations

import gzip
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from net.harness import SAFE, CountingResolver
from webreach.config import ReadSettings
from webreach.errors import (
    ExtractionError,
    HostResolutionError,
    InvalidInputError,
    NeedsBrowserError,
    PageBlockedError,
    ResponseTooLargeError,
    RobotsDisallowedError,
    UnsupportedContentError,
    UrlNotAllowedError,
)
from webreach.extract.passages import Passage
from webreach.extract.question_rank import PageIndex, QuestionRanker
from webreach.models import ReadRequest
from webreach.read.question_read import QuestionReading
from webreach.read.service import Reading, extract_file, parse_resolve
from webreach.read.window import EstimatedTokenizer
from webreach.testing import FakeClock, FakeWeb
from webreach.testing.connects import ConnectRecorder
from webreach.testing.pages import article_html
from webreach.testing.scenarios import challenge_page


@dataclass(frozen=True)
class Rendered:
    final_url: str
    status: int
    headers: Mapping[str, str]
    body: bytes
    content_type: str
    redirects: tuple[str, ...] = ()


@dataclass
class FakeRenderer:
    """The browser reader's shape: answers with a rendered article, or says Chromium is missing."""

    available: bool = True
    urls: list[str] = field(default_factory=list)

    async def read(self, url: str, seconds: float | None = None) -> Rendered:
        from webreach.errors import BrowserUnavailableError

        self.urls.append(url)
        if not self.available:
            raise BrowserUnavailableError("no Chromium here")
        return Rendered(url, 200, {}, article_html("Rendered by the browser"), "text/html; charset=utf-8")

    async def aclose(self) -> None:
        return None


@dataclass
class World:
    web: FakeWeb
    reading: Reading
    recorder: ConnectRecorder
    renderer: FakeRenderer
    clock: FakeClock

    def url(self, path: str, host: str = "site.test") -> str:
        path = path if path.startswith("/") else f"/_pages/{path}"
        return f"http://{host}:{self.web.port}{path}"

    def served(self, path: str) -> int:
        return sum(r.path == path for r in self.web.pages.requests)


@asynccontextmanager
async def world(resolver: CountingResolver | None = None, **settings: Any) -> AsyncIterator[World]:
    async with FakeWeb(limits=SAFE) as web:
        recorder = ConnectRecorder(allowed={"127.0.0.1"})
        renderer, clock = FakeRenderer(), FakeClock()
        fields: dict[str, Any] = {"allow_cidrs": ["127.0.0.1/32"], "timeout": 10.0, "jina_timeout": 2.0}
        fields["jina_base_url"] = f"{web.url}/_pages/jina"
        reading = Reading(
            ReadSettings(**{**fields, **settings}),
            resolver=resolver or CountingResolver(),
            clock=clock,
            tokenizer=EstimatedTokenizer(),
            renderer=renderer,
            network_backend=recorder,
            connect_observer=recorder.observe,
        )
        async with reading:
            yield World(web, reading, recorder, renderer, clock)
        recorder.assert_clean()


pytestmark = pytest.mark.network


async def test_a_page_is_windowed_and_the_next_window_comes_from_the_cache() -> None:
    async with world() as w:
        first = await w.reading.read(ReadRequest.create(url=w.url("article"), max_chars=300))
        assert first.next_start is not None
        second = await w.reading.read(ReadRequest.create(url=w.url("article"), max_chars=300, start=first.next_start))
        assert w.served("/_pages/article") == 1
    assert (first.cached, second.cached) == (False, True)
    assert first.start == 0 and len(first.content) <= 300
    assert not first.truncated, "the window ended, the document was not cut short"
    assert second.start == first.next_start
    assert first.total_chars == second.total_chars > 600
    assert first.title == "The fake web article"
    assert first.reader == "direct"
    assert first.status == 200


async def test_the_page_keeps_the_metadata_the_extractor_read_sitename_included() -> None:
    async with world() as w:
        page = await w.reading.read(ReadRequest.create(url=w.url("article?site=Tide+Pool+Gazette")))
        asked = await w.reading.read(ReadRequest.create(url=w.url("article?site=Tide+Pool+Gazette"), question="guard"))
    for read in (page, asked):  # a window and a question's passages carry the same metadata
        assert read.sitename == "Tide Pool Gazette"
        assert (read.title, read.author, read.language) == ("The fake web article", "Fake Author", "en")
        assert read.canonical_url == w.url("/_pages/article")
        assert read.model_dump()["sitename"] == "Tide Pool Gazette"


class CountingRanker(QuestionRanker):
    """The ranker, counting the pages it made ready and the words it looked up."""

    def __init__(self) -> None:
        super().__init__()
        self.indexed = 0
        self.looked_up: list[int] = []

    def index(self, passages: Sequence[Passage], *, title: str = "") -> PageIndex:
        self.indexed += 1
        return super().index(passages, title=title)

    def page_words(self, texts: Sequence[Sequence[str]], text_of: Any = None) -> Any:
        self.looked_up.append(sum(len(text) for text in texts))
        return super().page_words(texts, text_of)


async def test_a_second_question_on_a_cached_page_only_reads_the_question() -> None:
    """The page's index (its passages' terms and embeddings) is kept with the cached document: a second question
    neither fetches, extracts, cuts nor indexes again; it looks up only its own words."""
    async with world() as w:
        ranker = CountingRanker()
        w.reading.questions = QuestionReading(w.reading.cache, w.reading.tokenizer, ranker)
        first = await w.reading.read(ReadRequest.create(url=w.url("article"), question="What does the guard do?"))
        ranker.looked_up.clear()
        second = await w.reading.read(ReadRequest.create(url=w.url("article"), question="Who wrote the article?"))
        assert w.served("/_pages/article") == 1
    assert (first.cached, second.cached, ranker.indexed) == (False, True, 1)
    assert ranker.looked_up == [4]  # "Who wrote the article?": its four words, not the page's
    assert second.passages and second.question == "Who wrote the article?"


async def test_the_cache_expires() -> None:
    async with world(cache_ttl=60) as w:
        await w.reading.read(ReadRequest.create(url=w.url("article")))
        w.clock.advance(61)
        again = await w.reading.read(ReadRequest.create(url=w.url("article")))
        assert w.served("/_pages/article") == 2
    assert not again.cached


async def test_the_final_url_is_cached_too() -> None:
    async with world() as w:
        await w.reading.read(ReadRequest.create(url=w.url("redirect?to=/_pages/article")))
        direct = await w.reading.read(ReadRequest.create(url=w.url("article")))
    assert direct.cached


async def test_max_tokens_caps_the_window() -> None:
    async with world() as w:
        page = await w.reading.read(ReadRequest.create(url=w.url("article"), max_tokens=20))
    assert page.tokens is not None and page.tokens <= 20
    assert page.next_start is not None and not page.truncated


async def test_a_start_past_the_end_is_invalid_input() -> None:
    async with world() as w:
        with pytest.raises(InvalidInputError):
            await w.reading.read(ReadRequest.create(url=w.url("article"), start=100_000))


async def test_json_format_wraps_content_and_metadata() -> None:
    async with world() as w:
        page = await w.reading.read(ReadRequest.create(url=w.url("article"), format="json", max_chars=100_000))
    document = json.loads(page.content)
    assert document["title"] == "The fake web article"
    assert "Paragraph 1" in document["content"]


async def test_robots_is_honoured_when_switched_on() -> None:
    async with world(robots=True) as w:
        w.web.pages.add("/robots.txt", "User-agent: *\nDisallow: /_pages/echo\n")
        await w.reading.read(ReadRequest.create(url=w.url("article")))
        with pytest.raises(RobotsDisallowedError):
            await w.reading.read(ReadRequest.create(url=w.url("echo")))
        assert w.served("/_pages/echo") == 0


async def test_a_javascript_shell_is_rendered_by_the_browser() -> None:
    async with world() as w:
        page = await w.reading.read(ReadRequest.create(url=w.url("js-shell")))
    assert page.reader == "browser"
    assert page.title == "Rendered by the browser"
    assert w.renderer.urls == [w.url("js-shell")]


async def test_without_a_browser_an_allowed_private_page_is_not_handed_to_jina() -> None:
    # site.test is 127.0.0.1: the operator allowed it for direct reads, but the Jina reader's guard is strict
    async with world() as w:
        w.renderer.available = False
        with pytest.raises(NeedsBrowserError):
            await w.reading.read(ReadRequest.create(url=w.url("js-shell")))
        with pytest.raises(UrlNotAllowedError):
            await w.reading.read(ReadRequest.create(url=w.url("article"), reader="jina"))
        assert not any(r.path.startswith("/_pages/jina") for r in w.web.pages.requests)


async def test_a_wall_falls_back_to_jina_for_a_public_page() -> None:
    # the direct guard's question gets the fake web's address, the Jina guard's a public one
    resolver = CountingResolver(answers=[("127.0.0.1",), ("93.184.216.34",)])
    async with world(resolver=resolver) as w:
        w.web.pages.add("/_wall", challenge_page().body, headers={"content-type": "text/html"})
        page = await w.reading.read(ReadRequest.create(url=w.url("/_wall", host="public.test")))
    assert page.reader == "jina"
    assert f"public.test:{w.web.port}/_wall" in page.content


async def test_a_wall_on_a_privately_resolved_page_is_not_sent_to_jina() -> None:
    async with world() as w:
        w.web.pages.add("/_wall", challenge_page().body, headers={"content-type": "text/html"})
        with pytest.raises(PageBlockedError):
            await w.reading.read(ReadRequest.create(url=w.url("/_wall")))
        assert not any(r.path.startswith("/_pages/jina") for r in w.web.pages.requests)


async def test_a_baidu_link_is_read_through_to_the_target() -> None:
    async with world() as w:
        w.web.pages.add("/link", "", status=302, headers={"location": w.url("article", host="other.test")})
        page = await w.reading.read(ReadRequest.create(url=w.url("/link?url=opaque", host="www.baidu.com")))
        target = await w.reading.resolve_link(w.url("/link?url=opaque", host="www.baidu.com"))
    assert page.final_url == target == w.url("article", host="other.test")
    assert page.url == w.url("/link?url=opaque", host="www.baidu.com")


async def test_overrides_pin_names_add_networks_and_keep_a_separate_cache() -> None:
    async with world() as w:
        pinned = w.reading.with_overrides(resolve={"override.test": ["127.0.0.1"]}, timeout=1.0)
        async with pinned:
            page = await pinned.read(ReadRequest.create(url=w.url("article", host="override.test")))
            assert pinned.settings.timeout == 1.0
        with pytest.raises(HostResolutionError):  # the override belongs to its own Reading only
            await w.reading.read(ReadRequest.create(url=w.url("article", host="override.test")))
    assert page.status == 200
    assert w.recorder.hosts() == ["override.test"]


async def test_overrides_never_lift_the_metadata_ban() -> None:
    async with world() as w:
        open_all = w.reading.with_overrides(resolve={"meta.test": ["169.254.169.254"]}, allow_cidrs=["0.0.0.0/0"])
        async with open_all:
            with pytest.raises(UrlNotAllowedError) as refused:
                await open_all.read(ReadRequest.create(url="http://meta.test/latest/meta-data/"))
    assert refused.value.rule == "cloud_metadata"
    assert w.recorder.dials == []


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        ("example.com:93.184.216.34", ("example.com", ("93.184.216.34",))),
        ("example.com:93.184.216.34,2606:2800::1", ("example.com", ("93.184.216.34", "2606:2800::1"))),
        ("example.com:[::1]", ("example.com", ("::1",))),
        ("example.com:443:93.184.216.34", ("example.com", ("93.184.216.34",))),  # curl's form, port ignored
    ],
)
def test_resolve_options(option: str, expected: tuple[str, tuple[str, ...]]) -> None:
    assert parse_resolve(option) == expected


@pytest.mark.parametrize("option", ["example.com", "example.com:", ":1.2.3.4", "example.com:not-an-ip"])
def test_bad_resolve_options(option: str) -> None:
    with pytest.raises(InvalidInputError):
        parse_resolve(option)


async def test_local_files_are_extracted_offline(tmp_path: Path) -> None:
    page = tmp_path / "article.html"
    page.write_bytes(article_html("A local file"))
    picture = tmp_path / "picture.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    extracted = await extract_file(page)
    assert extracted.title == "A local file"
    assert "Paragraph 2" in extracted.text
    with pytest.raises(UnsupportedContentError):
        await extract_file(picture)


@pytest.mark.browser
async def test_auto_renders_a_javascript_page_in_real_chromium_through_the_guard() -> None:
    from webreach.read.readers.browser import find_chromium

    if find_chromium() is None:
        pytest.skip("Chromium is not installed (/usr/bin/chromium); .ci/run installs it")
    async with FakeWeb(limits=SAFE) as web:
        recorder = ConnectRecorder(allowed={"127.0.0.1"})
        settings = ReadSettings(allow_cidrs=["127.0.0.1/32"], timeout=10.0, browser_timeout=20.0)
        reading = Reading(
            settings, resolver=CountingResolver(), network_backend=recorder, connect_observer=recorder.observe
        )
        async with reading:
            probes = "probe=http://169.254.169.254/latest/meta-data/&probe=http://private.test/"
            page = await reading.read(ReadRequest.create(url=f"http://site.test:{web.port}/_js/article?{probes}"))
    recorder.assert_clean()
    assert page.reader == "browser"
    assert page.title == "How tide pools survive the summer"
    assert {address for address, _ in recorder.dials} == {"127.0.0.1"}


async def test_gzipped_files_are_decompressed_first(tmp_path: Path) -> None:
    plain = await extract_file(write(tmp_path / "article.html", article_html("Packed")))
    named = await extract_file(write(tmp_path / "article.html.gz", gzip.compress(article_html("Packed"))))
    # found by gzip's magic bytes, whatever the name; two gzip members read as one file
    members = gzip.compress(article_html("Packed")[:40]) + gzip.compress(article_html("Packed")[40:])
    unnamed = await extract_file(write(tmp_path / "download.bin", members))
    assert named.title == unnamed.title == "Packed"
    assert named.text == unnamed.text == plain.text
    notes = await extract_file(write(tmp_path / "notes.csv.gz", gzip.compress(b"day,high\nMon,06:12\n")))
    assert (notes.text, notes.content_type) == ("day,high\nMon,06:12\n", "text/plain")


async def test_a_gzip_bomb_is_refused_within_the_byte_cap(tmp_path: Path) -> None:
    bomb = write(tmp_path / "bomb.html.gz", gzip.compress(b"<p>" + b" " * (4 * 1024 * 1024)))
    assert bomb.stat().st_size < 64 * 1024  # small on disk: only the decompression bound can stop it
    with pytest.raises(ResponseTooLargeError) as refused:
        await extract_file(bomb, max_bytes=64 * 1024)
    assert refused.value.url == bomb.resolve().as_uri()
    assert "decompresses to over 65,536 bytes" in str(refused.value)


@pytest.mark.parametrize("body", [b"\x1f\x8b\x08\x00not really gzip", b"", gzip.compress(b"<p>cut short</p>")[:-12]])
async def test_a_broken_gzip_file_is_an_extraction_error(tmp_path: Path, body: bytes) -> None:
    with pytest.raises(ExtractionError) as failed:
        await extract_file(write(tmp_path / "broken.html.gz", body))
    assert failed.value.url == (tmp_path / "broken.html.gz").resolve().as_uri()


def write(path: Path, body: bytes) -> Path:
    path.write_bytes(body)
    return path
