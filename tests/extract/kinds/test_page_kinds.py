"""Each kind of page keeps its quality floor, and the classifier and the forum-post reader do what they say.

The floors hold on a fixed sample of WCXB's "check" half (../shared/data/extraction/wcxb-dev; bench/wcxb.py
defines the halves: a page is in "check" when the first 8 hex digits of sha256(page id) are odd), the half the
profiles were never tuned on: the first SAMPLE pages of each type in id order. The metric is WCXB's word F1
(lower-cased \\w+ multisets, mean over pages), restated here because tests do not import bench/. Floors sit a
little under what the sample measured, so a change that makes any kind worse fails while noise does not.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import statistics
from collections import Counter
from pathlib import Path

import pytest
import trafilatura
from lxml import etree
from trafilatura.settings import MANUALLY_CLEANED

from webreach.extract import charset
from webreach.extract.blocks.scorer import Edits
from webreach.extract.cascade import ExtractOptions, extract, prepare
from webreach.extract.extracted import Extracted
from webreach.extract.kinds.page_type import classify
from webreach.extract.preparation import html_tree
from webreach.extract.preparation.set_aside import set_aside
from webreach.extract.readings.posts import render_thread, thread_posts

SAMPLE = 6
# floors a little under what this sample measured (in brackets: with page kinds / the article cascade alone)
FLOORS = {
    "article": 0.95,  # 0.976 / 0.976
    "documentation": 0.92,  # 0.951 / 0.933
    "service": 0.94,  # 0.969 / 0.925: the main region (every section)
    "forum": 0.83,  # 0.850 / 0.129 (short precise text on threads: refused as script shells)
    "collection": 0.64,  # 0.669 / 0.497: the main region
    "listing": 0.58,  # 0.601 / 0.473: the repeated-block rescue reads a news listing trafilatura cut to one teaser
    # 0.568 / 0.594: one home page of the sample read right in a few words takes its main region since a short
    # reading gives way to the region (0.97 -> 0.33); the check half as a whole gained with that rule (0.827 ->
    # 0.831), its products lost (0.610 -> 0.600)
    "product": 0.55,
}
WORD = re.compile(r"\w+")


def word_f1(truth: str, predicted: str) -> float:
    true, pred = Counter(WORD.findall(truth.lower())), Counter(WORD.findall(predicted.lower()))
    if not true:
        return 0.0 if pred else 1.0
    overlap = sum((true & pred).values())
    return 2 * overlap / (sum(true.values()) + sum(pred.values())) if overlap else 0.0


def check_sample(root: Path) -> dict[str, list[tuple[str, str, bytes]]]:
    """(url, true text, html) of the first SAMPLE check-half pages of each type."""
    chosen: dict[str, list[tuple[str, str, bytes]]] = {kind: [] for kind in FLOORS}
    for truth_file in sorted((root / "ground-truth").glob("*.json")):
        if int(hashlib.sha256(truth_file.stem.encode()).hexdigest()[:8], 16) % 2 == 0:
            continue  # the tune half
        document = json.loads(truth_file.read_text(encoding="utf-8"))
        kind = document["_internal"]["page_type"]["primary"]
        if len(chosen[kind]) < SAMPLE:
            body = gzip.decompress((root / "html" / f"{truth_file.stem}.html.gz").read_bytes())
            chosen[kind].append((document.get("url", ""), document["ground_truth"].get("main_content") or "", body))
    return chosen


def scorer_sample(root: Path) -> list[tuple[str, str, bytes]]:
    """The first SAMPLE * 2 check-half pages, in id order, of the kinds the shipped block scorer edits (stage 2g,
    blocks/edits.json), as the classifier names them."""
    chosen: list[tuple[str, str, bytes]] = []
    for truth_file in sorted((root / "ground-truth").glob("*.json")):
        if int(hashlib.sha256(truth_file.stem.encode()).hexdigest()[:8], 16) % 2 == 0:
            continue  # the tune half
        document = json.loads(truth_file.read_text(encoding="utf-8"))
        body = gzip.decompress((root / "html" / f"{truth_file.stem}.html.gz").read_bytes())
        url = document.get("url", "")
        kind = prepare(charset.decode(body, None, markup=True).text, url, "text", ExtractOptions()).kind
        if Edits.shipped().thresholds(kind) != (None, None):
            chosen.append((url, document["ground_truth"].get("main_content") or "", body))
        if len(chosen) == SAMPLE * 2:
            break
    return chosen


@pytest.mark.slow
def test_every_kind_of_page_keeps_its_floor(shared_data: Path) -> None:
    """Every kind keeps its floor with the rules alone and as shipped, with the learned block scorer's edits (stage
    2g, blocks/edits.json) where the gate enabled them; on pages of the kinds it edits, the shipped cascade takes
    that path (it changes some reading) and scores no lower than the rules."""
    root = shared_data / "extraction" / "wcxb-dev"
    if not root.is_dir():
        pytest.skip(f"WCXB dev split not found at {root}")
    settings = {"rules": ExtractOptions(block_scorer=False), "shipped": ExtractOptions()}
    scores: dict[str, dict[str, float]] = {name: {} for name in settings}
    for kind, pages in check_sample(root).items():
        for name, options in settings.items():
            texts = [read_text(body, url, options) for url, _, body in pages]
            scores[name][kind] = statistics.fmean(
                word_f1(truth, out) for (_, truth, _), out in zip(pages, texts, strict=True)
            )
    for name, measured in scores.items():
        below = {kind: round(f1, 3) for kind, f1 in measured.items() if f1 < FLOORS[kind]}
        assert not below, f"{name}: below the floor {FLOORS}: {below} (all: {measured})"
    lowered = {kind: (round(scores["rules"][kind], 3), round(f1, 3)) for kind, f1 in scores["shipped"].items()
               if f1 < scores["rules"][kind] - 0.005}  # fmt: skip
    assert not lowered, f"the block scorer lowered (rules, shipped): {lowered}"
    edited = scorer_sample(root)
    if not Edits.shipped().prune and not Edits.shipped().add:
        assert not edited  # the scorer ships off: no page takes its path
        return
    assert edited, "no check page of the kinds the block scorer edits"
    outputs = {name: [read_text(body, url, options) for url, _, body in edited] for name, options in settings.items()}
    assert outputs["rules"] != outputs["shipped"], "the block scorer edited none of the pages of its kinds"
    f1 = {
        name: statistics.fmean(word_f1(t, out) for (_, t, _), out in zip(edited, texts, strict=True))
        for name, texts in outputs.items()
    }
    assert f1["shipped"] >= f1["rules"] - 0.005, f"the block scorer lowered its kinds' pages: {f1}"


def read_text(body: bytes, url: str, options: ExtractOptions) -> str:
    return extract(body, content_type="text/html", url=url, format="text", options=options).text


THREAD = """<html><head><title>Which bike?</title></head><body><nav>Forums &gt; Bikes</nav>
<div itemscope itemtype="https://schema.org/Comment"><span itemprop="author" itemscope
 itemtype="https://schema.org/Person"><span itemprop="name">rider42</span></span>
<div itemprop="text"><p>Which hardtail should a beginner buy this year?</p>
<blockquote itemprop="text">an older quote</blockquote></div></div>
<div itemscope itemtype="https://schema.org/Comment"><span itemprop="author">gravelfan</span>
<div itemprop="text"><p>Any bike with a decent fork; spend the rest on lessons.</p></div></div>
<div itemscope itemtype="https://schema.org/Review"><div itemprop="text">Not a post: a review widget.</div></div>
</body></html>"""


def test_thread_posts_keep_every_post_with_its_author() -> None:
    posts = thread_posts(html_tree.parse(THREAD, url="https://forum.example/threads/which-bike.123/"))
    assert [post.author for post in posts] == ["rider42", "gravelfan"]
    assert "an older quote" in posts[0].text  # a quote stays inside the post that quotes it
    assert render_thread(posts, "markdown").startswith("**rider42**\n\nWhich hardtail")


def test_a_lone_comment_is_not_a_thread() -> None:
    page = THREAD.split('<div itemscope itemtype="https://schema.org/Comment"><span itemprop="author">gravel')[0]
    assert thread_posts(html_tree.parse(page + "</body></html>", url="https://example.com/")) == []


PRODUCT_LD = '{"@type": "Product", "name": "Mug"}'
ARTICLE_LD = '{"@type": "Article", "name": "List of Nobel laureates"}'


@pytest.mark.parametrize(
    ("url", "head", "expected"),
    [
        ("https://forum.example/threads/which-bike.123/", "", "forum"),
        ("https://permies.example/t/123270/Year-Tiny-House", "", "forum"),
        ("https://community.example/thread-222085.html", "", "forum"),
        ("https://travel.example/ShowTopic-g294232-i525-k15476375-Tips.html", "", "forum"),
        ("https://games.example/boards/189706-nintendo-switch/80702016", "", "forum"),
        ("https://shop.example/x", f"<script type='application/ld+json'>{PRODUCT_LD}</script>", "product"),
        ("https://docs.example.org/guide/install", "", "documentation"),
        ("https://news.example/2024/05/story", '<meta property="og:type" content="article">', "article"),
        ("https://studio.example/", "", "service"),
        (
            "https://en.wiki.example/wiki/List_of_Nobel_laureates",
            f"<script type='application/ld+json'>{ARTICLE_LD}</script>",
            "listing",
        ),
        # og:type "article", which SEO plugins write on every page, under a catalogue's route
        ("https://store.example/genre/Action/", '<meta property="og:type" content="article">', "collection"),
        ("https://store.example/category/coop/", '<meta property="og:type" content="article">', "collection"),
    ],
)  # fmt: skip
def test_classify_reads_declared_structure(url: str, head: str, expected: str) -> None:
    kind = classify(html_tree.parse(f"<html><head>{head}</head><body><p>x</p></body></html>", url=url), url)
    assert (kind.name, kind.confident) == (expected, True)


def test_a_home_page_that_declares_itself_an_article_stays_an_article() -> None:
    url = "https://blog.example/"
    page = '<html><head><meta property="og:type" content="article"></head><body><p>x</p></body></html>'
    kind = classify(html_tree.parse(page, url=url), url)
    assert (kind.name, kind.confident) == ("article", True)
    assert "url:home" not in kind.signals


def test_a_dated_story_under_a_category_route_stays_an_article() -> None:
    url = "https://news.example/category/politics/2024/05/the-vote"
    page = '<html><head><meta property="og:type" content="article"></head><body><p>x</p></body></html>'
    kind = classify(html_tree.parse(page, url=url), url)
    assert kind.name == "article" and kind.article_evidence


def marked_up_questions(questions: int, answers_each: int) -> str:
    """A body of schema.org Question items, each with its Answer items (an FAQ, or a Q&A thread with one)."""
    answer = "<div itemscope itemtype='https://schema.org/Answer'><p itemprop='text'>Yes.</p></div>"
    asked = "<div itemscope itemtype='https://schema.org/Question'><h3>Is it open?</h3>"
    question = f"{asked}{answer * answers_each}</div>"
    return f"<html><body>{question * questions}</body></html>"


def test_a_thread_of_one_question_is_a_forum_and_an_faq_is_not() -> None:
    thread_url, faq_url = "https://ask.example/q/how-to-wire", "https://agency.example/services/analytics"
    thread = classify(html_tree.parse(marked_up_questions(1, 4), url=thread_url), thread_url)
    assert (thread.name, thread.confident) == ("forum", True)
    faq = classify(html_tree.parse(marked_up_questions(8, 1), url=faq_url), faq_url)
    assert (faq.name, faq.confident) == ("service", True)  # its route decides, not its FAQ
    assert "microdata:FAQ x8" in faq.signals


def test_a_page_without_evidence_is_unsure() -> None:
    url = "https://example.com/about"
    kind = classify(html_tree.parse("<html><body><p>Hello</p></body></html>", url=url), url)
    assert not kind.confident
    assert not kind.article_evidence


def test_extracted_carries_the_page_type() -> None:
    result = extract(THREAD.encode(), content_type="text/html", url="https://forum.example/threads/which-bike.123/")
    assert result.page_type == "forum"
    assert result.extractor == "microdata-posts"
    assert "gravelfan" in result.text


MARKDOWN_KINDS = ("article", "documentation", "service", "forum", "collection", "listing")
LINK_TARGET = re.compile(r"\]\([^)]*\)")


@pytest.mark.slow
def test_markdown_keeps_the_text_and_its_structure(shared_data: Path) -> None:
    """format="markdown" says what format="text" says (link targets aside) and keeps the page's structure:
    headings, lists, fenced code and absolute links, on the same check sample (products are left out: there
    trafilatura's link-density rules keep different blocks once links are kept)."""
    root = shared_data / "extraction" / "wcxb-dev"
    if not root.is_dir():
        pytest.skip(f"WCXB dev split not found at {root}")
    found: Counter[str] = Counter()
    for kind, pages in check_sample(root).items():
        if kind not in MARKDOWN_KINDS:
            continue
        for url, _, body in pages:
            text = extract(body, content_type="text/html", url=url, format="text").text
            markdown = extract(body, content_type="text/html", url=url, format="markdown").text
            assert word_f1(text, LINK_TARGET.sub(" ", markdown)) >= 0.93, url
            found["heading"] += bool(re.search(r"^#{1,6} \S", markdown, re.MULTILINE))
            found["list"] += bool(re.search(r"^- \S", markdown, re.MULTILINE))
            found["code"] += "\n```" in markdown
            found["link"] += bool(re.search(r"\]\(https?://", markdown))
            found["table"] += "|---|" in markdown
    # what the sample measured: link 26, heading 21, list 12, code 5, table 1 of 36 pages
    assert found["heading"] >= 18 and found["list"] >= 10 and found["code"] >= 4 and found["link"] >= 22, found
    assert found["table"] >= 1, found


def declared_article(body: str, url: str) -> Extracted:
    """What is read from a page declaring itself an article (og:type) with `body`, at `url`."""
    page = f"<html><head><meta property='og:type' content='article'></head><body>{body}</body></html>"
    return extract(page.encode(), content_type="text/html", url=url)


POST = (
    "<p>Training the explanation together with the network keeps it honest: it cannot drift away from what the "
    "weights compute, and every claim it makes can be checked against the activations.</p>"
)


def test_a_post_inside_a_comment_named_container_is_read_not_the_site_header() -> None:
    # trafilatura's comment filter drops any block whose class starts with "comment", here the post itself
    body = (
        "<header><a href='/'>LessWrong</a> <a href='/login'>Login</a></header>"
        "<h1>Scalable End-to-End Interpretability</h1>"
        f"<div class='commentOnSelection'><div class='postContent'>{POST * 6}</div></div>"
    )
    read = declared_article(body, "https://forum.example/posts/qk/scalable")
    assert "every claim it makes can be checked" in read.text


def test_a_short_story_keeps_its_comment_section_out() -> None:
    comment = (
        "<div class='comment'><p>I disagree: the lanes take the parking the shops on the high street depend on, "
        "and nobody asked them.</p></div>"
    )
    body = (
        "<article><h1>Cycle lanes</h1><p>The council approved new cycle lanes on Tuesday.</p>"
        f"<p>Work starts in May.</p></article><section class='comments'>{comment * 12}</section>"
    )
    read = declared_article(body, "https://news.example/2024/05/cycle-lanes")
    assert "Work starts in May." in read.text
    assert "I disagree" not in read.text


def test_a_discussion_that_is_all_comments_is_read() -> None:
    # a link aggregator's story page: the link, then the discussion, every post a "comment" block
    comment = (
        "<div class='comment'><p>The goals read well, but two of them depend on the same three maintainers, "
        "and nothing in the plan says who reviews their work when they are busy.</p></div>"
    )
    read = declared_article(f"<div class='comments'>{comment * 6}</div>", "https://links.example/s/dwip3v/goals")
    assert read.extractor == "trafilatura-fallback"  # trafilatura with comments kept, not the page's visible text
    assert read.text.count("who reviews their work") >= 3


@pytest.mark.parametrize("page_id", ["4251", "4499"])
def test_a_best_of_list_read_in_precision_mode_keeps_its_entries(shared_data: Path, page_id: str) -> None:
    """Two "best of" stories of the check half whose precision reading keeps the introduction and drops every
    entry (word F1 0.14 and 0.18): the balanced reading takes over (section_headings.sections_left_out)."""
    root = shared_data / "extraction" / "wcxb-dev"
    if not root.is_dir():
        pytest.skip(f"WCXB dev split not found at {root}")
    document = json.loads((root / "ground-truth" / f"{page_id}.json").read_text(encoding="utf-8"))
    body = gzip.decompress((root / "html" / f"{page_id}.html.gz").read_bytes())
    read = extract(body, content_type="text/html", url=document.get("url", ""), format="text")
    assert read.extractor == "trafilatura-fallback"
    assert word_f1(document["ground_truth"]["main_content"], read.text) > 0.85


def test_a_service_pages_accordion_is_read(shared_data: Path) -> None:
    """rsmus.com's data analytics page (check half) lists its offerings in an accordion whose panels are closed
    with `hidden`: read without them it scored 0.64, recall 0.52 (disclosures.py)."""
    root = shared_data / "extraction" / "wcxb-dev"
    if not root.is_dir():
        pytest.skip(f"WCXB dev split not found at {root}")
    document = json.loads((root / "ground-truth" / "1056.json").read_text(encoding="utf-8"))
    body = gzip.decompress((root / "html" / "1056.html.gz").read_bytes())
    read = extract(body, content_type="text/html", url=document.get("url", ""), format="text")
    assert "Enterprise business intelligence" in read.text
    assert word_f1(document["ground_truth"]["main_content"], read.text) > 0.85


def stated_thread(opening: str, title: str) -> bytes:
    """A thread whose opening post's text is stated in a <meta itemprop="text">, its replies shown as Comments."""
    reply = (
        "<div itemprop='comment' itemscope itemtype='https://schema.org/Comment'>"
        "<span itemprop='author' itemscope itemtype='https://schema.org/Person'><meta itemprop='name' "
        "content='{who}'></span><div itemprop='text'>{words}</div></div>"
    )
    replies = "".join(
        reply.format(who=f"member{n}", words=f"Reply {n}: the hybrid machines will share work with GPUs for years.")
        for n in range(3)
    )
    return (
        f"<html><head><title>{title}</title></head><body><div itemscope "
        "itemtype='https://schema.org/DiscussionForumPosting'><span itemprop='author' itemscope "
        "itemtype='https://schema.org/Person'><meta itemprop='name' content='opener'></span>"
        f"<meta itemprop='text' content='{opening}'><div class='narrow'>{opening}</div>{replies}</div>"
        "</body></html>"
    ).encode()


def test_an_opening_post_stated_in_a_meta_is_read() -> None:
    opening = "Hybrid quantum computing is a quantum computer and a classical computer working together."
    page = stated_thread(opening, "Hybrid quantum and classical computing - Forum")
    read = extract(page, content_type="text/html", url="https://forum.example/7603790/hybrid", format="markdown")
    assert read.extractor == "microdata-posts"
    assert "opener" in read.text and opening in read.text and "Reply 2:" in read.text


def test_a_meta_that_states_the_title_is_not_a_post() -> None:
    page = stated_thread("RC1 of NodeBB v4", "RC1 of NodeBB v4 | NodeBB Community")
    read = extract(page, content_type="text/html", url="https://community.example/topic/18427/rc1", format="text")
    assert read.extractor == "microdata-posts"
    assert "RC1 of NodeBB v4" not in read.text and read.text.startswith("member0")


@pytest.mark.slow
def test_trafilatura_reads_real_pages_the_same_with_its_cleaned_elements_set_aside(shared_data: Path) -> None:
    """set_aside.py's promise on the check sample's 42 real pages: the precise reading is the same text, and the
    tree comes back as it was (a trafilatura release that cleans differently fails here)."""
    root = shared_data / "extraction" / "wcxb-dev"
    if not root.is_dir():
        pytest.skip(f"WCXB dev split not found at {root}")
    taken = 0
    for pages in check_sample(root).values():
        for url, _, body in pages:
            tree = html_tree.parse(body.decode("utf-8", "replace"), url=url)
            expected, before = precise_reading(tree), etree.tostring(tree)
            with set_aside(tree, MANUALLY_CLEANED):
                taken += len(etree.tostring(tree)) < len(before)
                assert precise_reading(tree) == expected, url
            assert etree.tostring(tree) == before, url
    assert taken >= 30  # nearly every real page has navigation, a footer or icons to set aside


def precise_reading(tree: etree._Element) -> str:
    return trafilatura.extract(tree, favor_precision=True, fast=True, include_tables=True, with_metadata=False) or ""
