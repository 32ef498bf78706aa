"""Bot walls and JavaScript shells are reported as errors, never returned as content."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from webreach.errors import NeedsBrowserError, PageBlockedError
from webreach.extract.cascade import extract
from webreach.extract.charset import decode
from webreach.extract.preparation.html_tree import parse, title_tag, visible_text
from webreach.extract.walls import find_empty_frame, find_js_shell, find_wall
from webreach.models import ReadFormat

PAGES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"


def read(name: str) -> object:
    return extract((PAGES / name).read_bytes(), content_type="text/html", url="https://notes.example/a")


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("cloudflare_challenge.html", "captcha"),
        ("cloudflare_blocked.html", "blocked"),
        ("recaptcha_wall.html", "captcha"),
        ("datadome.html", "captcha"),
        ("perimeterx.html", "captcha"),
    ],
)
def test_walls_raise_blocked_errors(name: str, code: str) -> None:
    with pytest.raises(PageBlockedError) as caught:
        read(name)
    error = caught.value
    assert error.code == code
    assert (error.engine, error.url) == (None, "https://notes.example/a")
    assert "reader='browser'" in str(error)


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("js_shell_react.html", "noscript"),
        ("js_shell_next.html", "__next"),
        ("noscript_only.html", "only inside <noscript>"),
    ],
)
def test_javascript_shells_need_a_browser(name: str, reason: str) -> None:
    with pytest.raises(NeedsBrowserError) as caught:
        read(name)
    assert caught.value.code == "needs_browser"
    assert caught.value.url == "https://notes.example/a"
    assert reason in caught.value.message


@pytest.mark.parametrize(
    "script",
    [
        '<script src="/app.js"></script>',
        '<SCRIPT type="module" SRC=/app.js></SCRIPT>',
        f"<script>{'go();' * 60}</script>",
    ],
)
def test_a_page_of_scripts_only_is_a_shell(script: str) -> None:
    source = f"<html><body>{script}<span>…</span></body></html>"
    tree = parse(source)
    assert find_js_shell(source, tree, visible_text(tree)) == "it has scripts and no text"


def test_a_short_inline_script_alone_does_not_make_a_shell() -> None:
    source = "<html><body><script>window.dataLayer = [];</script><span>…</span></body></html>"
    tree = parse(source)
    assert find_js_shell(source, tree, visible_text(tree)) is None


def test_unclosed_script_tags_are_scanned_once() -> None:
    source = "<html><body>" + "<script data-x='1' " * 50_000
    tree = parse(source + "</body></html>")
    assert find_js_shell(source, tree, visible_text(tree)) is None


def test_an_app_root_with_content_is_not_a_shell() -> None:
    source = '<html><body><div id="root"><h1>Closed</h1><p>The library is closed on Monday.</p></div></body></html>'
    tree = parse(source)
    assert find_js_shell(source, tree, visible_text(tree)) is None


FURNITURE = (
    "<footer><dl><dt><h5>Help</h5></dt><dd><a href='/help'>Help Center</a>, <a href='/d'>Disputes and Reports</a>,"
    " <a href='/r'>Return and refund policy</a>, <a href='/t'>Transparency Center</a></dd></dl><dl><dt><h5>Sites"
    "</h5></dt><dd>"
    + ", ".join(f"<a href='//{n}.shop.example'>{n} site</a>" for n in ("ru", "pt", "es", "fr", "de", "it", "nl"))
    + "</dd></dl><dl><dt><h5>Browse by Category</h5></dt><dd>"
    + ", ".join(f"<a href='/c/{n}'>Category number {n}</a>" for n in range(12))
    + "</dd></dl></footer>"
)


def test_a_frame_whose_content_area_is_empty_needs_a_browser() -> None:
    # a shop's item page as it arrives: a search box's label, the app root its scripts fill, the footer
    page = (
        "<html><body><div><h1>Shop</h1><a href='#search'>I'm shopping for...</a></div>"
        f"<div id='root'> </div>{FURNITURE}</body></html>"
    )
    with pytest.raises(NeedsBrowserError) as caught:
        extract(page.encode(), content_type="text/html", url="https://shop.example/item/1.html")
    assert caught.value.code == "needs_browser"
    assert "its app root <div id=root> is empty" in caught.value.message
    assert "reader='browser'" in str(caught.value)


def test_a_short_page_without_an_app_root_is_read() -> None:
    # a soft "closed" notice among the site's menus and footer: short, but what the page says
    page = f"<html><body><main><h1>Closed today</h1><p>Back on Monday.</p></main>{FURNITURE}</body></html>"
    read = extract(page.encode(), content_type="text/html", url="https://shop.example/")
    assert "Back on Monday." in read.text


def test_a_short_reading_among_furniture_that_says_enough_is_kept() -> None:
    story = "The library reopens on Monday after a month of repairs to its roof and reading rooms."
    page = f"<html><body><main><article><h1>Reopening</h1><p>{story}</p></article></main>{FURNITURE}</body></html>"
    read = extract(page.encode(), content_type="text/html", url="https://library.example/news/reopening")
    assert story in read.text


def test_an_empty_frame_is_a_few_words_beside_an_empty_app_root() -> None:
    frame = parse(
        f"<html><body><a href='#q'>I'm shopping for...</a><div id='root'>Loading…</div>{FURNITURE}</body></html>"
    )
    assert find_empty_frame(frame, "I'm shopping for...") == "its app root <div id=root> is empty; the rest is 4 words"
    assert find_empty_frame(frame, "Our opening hours are nine to five, six days a week.") is None  # a reading
    assert find_empty_frame(frame, "") is None
    filled = parse(f"<html><body><div id='root'><p>{'Our opening hours. ' * 5}</p></div>{FURNITURE}</body></html>")
    assert find_empty_frame(filled, "Shop") is None
    assert find_empty_frame(parse(f"<html><body><p>Closed.</p>{FURNITURE}</body></html>"), "Closed.") is None


CATALOGUE_MENUS = (
    "<header><a href='/'>Home</a> <a href='/support'>Support</a> <a href='/contact'>Contact Us</a></header>"
    "<div class='toolbar'><span>Sort:</span><ul><li>Relevance</li><li>Latest</li><li>Top sales</li></ul></div>"
)


@pytest.mark.parametrize("format", ["markdown", "text", "html"])
def test_a_catalogue_whose_items_are_still_loading_needs_a_browser(format: ReadFormat) -> None:
    # the category page as it arrives: menus, a sort control, and "Loading..." where the products will go
    page = f"<html><body>{CATALOGUE_MENUS}<div class='grid'><p>Loading...</p></div>{FURNITURE}</body></html>"
    with pytest.raises(NeedsBrowserError) as caught:
        extract(
            page.encode(), content_type="text/html", url="https://shop.example/category/desk-converters", format=format
        )
    assert "says only 'Loading'" in caught.value.message


def test_a_short_page_with_a_section_titled_loading_is_read() -> None:
    page = (
        "<html><body><h1>Trailer tips</h1><h2>Loading</h2><p>Keep the tongue weight near a tenth of the load.</p>"
        "<h2>Towing</h2><p>Check the lights before you leave.</p></body></html>"
    )
    for format in ("markdown", "text", "html"):
        read = extract(page.encode(), content_type="text/html", url="https://trailers.example/tips", format=format)
        assert "tongue weight" in read.text


@pytest.mark.parametrize(
    ("reading", "frame"),
    [
        ("Home\nSort:\nRelevance\nLatest\nLoading…", True),
        ("Home\nSort:\n- Loading...", True),
        ("Loading dock hours\nOpen six days a week", False),  # a line about loading, not a placeholder
        ("Home\nLoading\n" + "Our opening hours are nine to five. " * 8, False),  # the rest is a reading
    ],
)
def test_a_loading_line_makes_a_frame_of_a_short_reading_only(reading: str, frame: bool) -> None:
    page = parse(f"<html><body>{CATALOGUE_MENUS}<div class='grid'><p>Loading…</p></div>{FURNITURE}</body></html>")
    assert (find_empty_frame(page, reading) is not None) is frame


def test_a_loading_line_beside_served_content_is_read() -> None:
    page = parse(f"<html><body><main><p>Loading</p><h1>Closed today</h1></main>{FURNITURE}</body></html>")
    assert find_empty_frame(page, "Loading\nClosed today") is None


CLINIC_MENUS = "".join(
    f"<li><a href='/{n}'>{label}</a></li>"
    for n, label in enumerate(
        ("How It Works", "For Providers", "Membership Benefits", "Insurance Program", "Resource Hub", "EHR Tools",
         "Join Alma", "Our Mission", "Careers", "FAQs")
    )
)  # fmt: skip
CLINIC_FRAME = (
    "<html><head><script src='/app.js'></script></head><body><header><ul>{menus}</ul></header>"
    "<div class='hero'><h2>Get Started</h2><button>Find a therapist</button></div><div id='slot'></div>"
    f"{FURNITURE}</body></html>"
)


@pytest.mark.parametrize(
    ("reading", "frame"),
    [  # the second in markdown
        ("How It Works\nFor Providers\nMembership Benefits\nResource Hub\nJoin Alma\nFind a therapist", True),
        ("- [How It Works](/0)\n- [For Providers](/1)\n- [Resource Hub](/4)\n- **[Join Alma](/6)**", True),
        ("How It Works\nFor Providers\nOur therapists see clients online and in person, six days a week.", False),
        ("How It Works\n" * 50, False),  # a long reading is never a frame
    ],
)
def test_a_reading_of_menu_labels_only_is_a_frame(reading: str, frame: bool) -> None:
    page = parse(CLINIC_FRAME.format(menus=CLINIC_MENUS))
    reason = find_empty_frame(page, reading)
    assert (reason is not None) is frame
    if frame:
        assert reason is not None and reason.startswith("the reading is only the labels of its menus")


def test_links_that_are_the_content_are_read_not_refused() -> None:
    contents = CLINIC_FRAME.format(menus="").replace(
        "<div id='slot'></div>", "<div class='chapters'>" + CLINIC_MENUS.replace("li>", "p>") + "</div>"
    )
    assert find_empty_frame(parse(contents), "How It Works\nFor Providers\nResource Hub") is None
    served = CLINIC_FRAME.format(menus=CLINIC_MENUS).replace(
        "<div id='slot'></div>", "<main><p>Therapy that takes your insurance.</p></main>"
    )
    assert find_empty_frame(parse(served), "How It Works\nFor Providers\nResource Hub") is None


@pytest.mark.parametrize("format", ["markdown", "text", "html"])
def test_a_home_page_read_as_its_menus_needs_a_browser(format: ReadFormat) -> None:
    page = CLINIC_FRAME.format(menus=CLINIC_MENUS).encode()
    with pytest.raises(NeedsBrowserError) as caught:
        extract(page, content_type="text/html", url="https://clinic.example/", format=format)
    assert "only the labels of its menus" in caught.value.message


WARNING = (
    "本市气象台今天发布暴雨蓝色预警信号，预计未来六小时内全市大部分地区将出现短时强降水并伴有雷电和七级以上大风，"
    "请市民注意防范减少外出，驾车出行时注意交通安全。"
)


@pytest.mark.parametrize(
    ("body", "said"),
    [
        # a server-rendered 404 inside the app root: the root's few words are what was read
        ("<div id='__next'><main><h1>Page not found</h1><p>Sorry.</p></main></div>", "Page not found"),
        ("<div id='root'><h1>Out of stock</h1></div>", "Out of stock"),
        # server-rendered content beside an empty mount point (a widget, a portal)
        ("<main><h1>Closed today</h1><p>Back on Monday.</p></main><div id='root'></div>", "Back on Monday."),
        # Chinese has no spaces: a whole sentence is one or two "words", but far more than a label's letters
        (f"<div><h1>暴雨蓝色预警</h1><p>{WARNING}</p></div><div id='app'></div>", WARNING),
    ],
)
def test_short_server_rendered_pages_beside_an_app_root_are_read(body: str, said: str) -> None:
    page = f"<html><body>{body}{FURNITURE}</body></html>"
    assert find_empty_frame(parse(page), said) is None  # read as `said`, the page is no empty frame
    assert extract(page.encode(), content_type="text/html", url="https://shop.example/p/1").text.strip()


def test_a_marker_on_a_long_page_does_not_count() -> None:
    long_text = "A real paragraph of an article. " * 200
    assert find_wall('<div class="g-recaptcha"></div>', long_text) is None
    assert find_wall("window._cf_chl_opt={}", long_text) is None
    assert find_wall("window._cf_chl_opt={}", "Just a moment...") is not None


def test_just_a_moment_alone_is_not_a_cloudflare_wall() -> None:
    assert find_wall("<title>Just a moment...</title><div id=app></div>", "Just a moment...") is None


def _page_text(body: bytes) -> tuple[str, str]:
    source = decode(body, None).text
    tree = parse(source)
    return source, f"{title_tag(tree) or ''}\n{visible_text(tree)}"


def test_real_search_engine_walls_are_recognised(shared_data: Path) -> None:
    blocked = sorted((shared_data / "serp" / "_blocked").glob("*.html"))
    assert len(blocked) >= 6
    for path in blocked:
        source, text = _page_text(path.read_bytes())
        wall = find_wall(source, text)
        assert wall is not None and wall.kind == "captcha", path.name


def test_real_result_pages_are_not_walls(shared_data: Path) -> None:
    pages = [p for p in sorted((shared_data / "serp").glob("*/*.html")) if not p.parent.name.startswith("_")]
    assert len(pages) > 30
    for path in pages:
        source, text = _page_text(path.read_bytes())
        assert find_wall(source, text) is None, path.name


@pytest.mark.slow
def test_real_articles_are_neither_walls_nor_shells(shared_data: Path) -> None:
    root = shared_data / "extraction" / "aeb"
    keys = sorted(json.loads((root / "ground-truth.json").read_text(encoding="utf-8")))
    assert len(keys) == 181
    for key in keys:
        source, text = _page_text(gzip.decompress((root / "html" / f"{key}.html.gz").read_bytes()))
        tree = parse(source)
        assert find_wall(source, text) is None, key
        assert find_js_shell(source, tree, visible_text(tree)) is None, key
