"""The HTML cascade and its output formats, on the hand-written pages in tests/fixtures/pages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webreach.errors import ExtractionError
from webreach.extract.cascade import ExtractOptions, extract
from webreach.extract.preparation.html_tree import parse, visible_text

PAGES = Path(__file__).resolve().parents[2] / "fixtures" / "pages"
URL = "https://notes.example/guides/tide-tables?utm_source=feed"


def read(name: str, format: str = "markdown", **kwargs: object) -> object:
    body = (PAGES / name).read_bytes()
    return extract(body, content_type="text/html; charset=utf-8", url=URL, format=format, **kwargs)  # type: ignore[arg-type]


def test_markdown_keeps_structure_and_drops_chrome() -> None:
    result = read("article.html")
    text = result.text  # type: ignore[attr-defined]
    assert text.startswith("# Reading the tide tables")
    assert "## Spring and neap tides" in text
    assert "| 04:12 | 0.3 m | Low |" in text
    assert "- Check the table the evening before." in text
    assert "[rock pool guide](https://notes.example/guides/rock-pools)" in text  # links made absolute
    for chrome in ("Shop", "Ten best beaches", "All rights reserved", "Great guide", "Comments"):
        assert chrome not in text, chrome
    assert result.extractor == "trafilatura"  # type: ignore[attr-defined]


def test_metadata_comes_from_the_page() -> None:
    result = read("article.html")
    assert result.title == "Reading the tide tables"  # type: ignore[attr-defined]
    assert result.author == "Ana Ruiz; Tom Hale"  # type: ignore[attr-defined]
    assert result.date == "2024-03-05"  # type: ignore[attr-defined]
    assert result.language == "en-GB"  # type: ignore[attr-defined]
    assert result.sitename == "Coastal Notes"  # type: ignore[attr-defined]
    assert result.canonical_url == "https://notes.example/guides/tide-tables"  # type: ignore[attr-defined]
    assert result.content_type == "text/html"  # type: ignore[attr-defined]


def test_text_format_has_no_markup() -> None:
    text = read("article.html", "text").text  # type: ignore[attr-defined]
    assert "Reading the tide tables" in text
    assert "rock pool guide explains" in text
    assert "](" not in text and "**" not in text and "# " not in text


def test_html_format_is_the_cleaned_main_content() -> None:
    text = read("article.html", "html").text  # type: ignore[attr-defined]
    assert "<h1>Reading the tide tables</h1>" in text
    assert '<a href="https://notes.example/guides/rock-pools">' in text
    assert "<table>" in text
    assert "<nav" not in text and "<script" not in text and "Ten best beaches" not in text


def test_json_format_wraps_metadata_and_markdown() -> None:
    result = read("article.html", "json")
    document = json.loads(result.text)  # type: ignore[attr-defined]
    assert result.format == "json"  # type: ignore[attr-defined]
    assert document["url"] == URL
    assert document["title"] == "Reading the tide tables"
    assert document["date"] == "2024-03-05"
    assert document["content_type"] == "text/html"
    assert document["content"].startswith("# Reading the tide tables")


def test_links_can_be_left_out_of_markdown() -> None:
    text = read("article.html", options=ExtractOptions(links=False)).text  # type: ignore[attr-defined]
    assert "rock pool guide explains" in text and "](" not in text


# the stage tests read the links page as an article (page kinds off): with kinds on it has no sign of being one
ARTICLE_CASCADE = ExtractOptions(page_types=False)


def test_stage_two_takes_over_when_precision_keeps_too_little() -> None:
    result = read("links_page.html", "text", options=ARTICLE_CASCADE)
    assert result.extractor == "trafilatura-fallback"  # type: ignore[attr-defined]
    assert "Lifeguarded beaches and their summer opening hours" in result.text  # type: ignore[attr-defined]


def test_a_page_with_no_sign_of_an_article_is_read_balanced_from_the_start() -> None:
    result = read("links_page.html", "text")
    assert result.extractor == "trafilatura-balanced"  # type: ignore[attr-defined]
    assert result.page_type is None  # type: ignore[attr-defined]
    assert "Lifeguarded beaches and their summer opening hours" in result.text  # type: ignore[attr-defined]


def test_stage_two_is_not_engaged_above_min_chars() -> None:
    result = read("article.html", "text", options=ExtractOptions(min_chars=100))
    assert result.extractor == "trafilatura"  # type: ignore[attr-defined]


def test_stage_two_engages_whenever_stage_one_is_empty() -> None:
    result = read("links_page.html", "text", options=ExtractOptions(min_chars=0, page_types=False))
    assert result.extractor == "trafilatura-fallback"  # type: ignore[attr-defined]


def test_stage_three_returns_the_visible_text_when_trafilatura_gives_nothing() -> None:
    # precision mode finds nothing in a bare list of links; with stage 2 off, the visible text is the answer
    result = read("links_page.html", "text", options=ExtractOptions(fallback=False, page_types=False))
    assert result.extractor == "visible-text"  # type: ignore[attr-defined]
    assert result.text.startswith("Useful links\n\nTide tables for every harbour")  # type: ignore[attr-defined]
    html = read("links_page.html", "html", options=ExtractOptions(fallback=False, page_types=False)).text  # type: ignore[attr-defined]
    assert html.startswith("<html><body>") and "<p>Useful links</p>" in html


def test_a_genuinely_short_page_is_returned() -> None:
    result = read("short_note.html", "text")
    assert "La bibliothèque est fermée lundi prochain" in result.text  # type: ignore[attr-defined]
    assert result.language == "fr"  # type: ignore[attr-defined]


def test_a_server_rendered_app_is_content_not_a_shell() -> None:
    assert "returned to work on Monday" in read("ssr_next_article.html", "text").text  # type: ignore[attr-defined]


def test_an_article_about_captchas_is_content_not_a_wall() -> None:
    text = read("about_captchas.html", "text").text  # type: ignore[attr-defined]
    assert "proof-of-work challenges" in text


@pytest.mark.parametrize("body", [b"", b"   \n ", b"<html><body><div></div></body></html>", b"<html></html>"])
def test_pages_without_text_fail_with_extraction_failed(body: bytes) -> None:
    with pytest.raises(ExtractionError) as caught:
        extract(body, content_type="text/html", url=URL)
    assert (caught.value.code, caught.value.url) == ("extraction_failed", URL)


def test_an_xhtml_page_with_an_encoding_declaration_parses() -> None:
    page = (
        '<?xml version="1.0" encoding="iso-8859-1"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><head><title>X</title>'
        "</head><body><p>Caf\xe9 au lait on the quay, served from seven every morning.</p></body></html>"
    )
    result = extract(page.encode("latin-1"), content_type="application/xhtml+xml", url=URL, format="text")
    assert "Café au lait on the quay" in result.text


def test_visible_text_skips_scripts_and_keeps_paragraphs() -> None:
    tree = parse(
        "<html><head><title>T</title></head><body><p>One <b>bold</b> line</p><script>var x = 1;</script>"
        "<div>Two<br>lines</div><template><p>hidden</p></template><p hidden>secret</p>"
        "<table><tr><td>cell</td><td>by cell</td></tr></table>tail</body></html>"
    )
    assert visible_text(tree) == "One bold line\n\nTwo\nlines\n\ncell by cell\n\ntail"


def test_scripts_are_dropped_at_parse_and_json_ld_stays() -> None:
    tree = parse(
        '<html><head><script src="/app.js"></script><script type="Application/LD+JSON">{"@type": "Article"}</script>'
        "</head><body><p>Before <script>track('x');</script>after</p><script type=module>go()</script></body></html>"
    )
    assert [script.get("type") for script in tree.iter("script")] == ["Application/LD+JSON"]
    assert tree.findtext(".//p") == "Before after"


def test_a_cookie_consent_dialog_is_not_read_as_the_page() -> None:
    purposes = " ".join(
        f"<p>These cookies let our {number} partners measure visits and build a profile of your interests.</p>"
        for number in range(40)
    )
    page = (
        "<html><head><title>Dinner recipes</title></head><body>"
        f"<div id='onetrust-consent-sdk'><h2>Privacy Preference Center</h2>{purposes}</div>"
        "<main><h1>Dinner recipes</h1><ul>"
        + "".join(f"<li><a href='/r/{n}'>Weeknight pasta number {n}</a></li>" for n in range(12))
        + "</ul></main>tail after the dialog</body></html>"
    )
    tree = parse(page)
    assert not tree.xpath("//*[@id='onetrust-consent-sdk']")
    text = visible_text(tree)
    assert "Weeknight pasta number 11" in text and "tail after the dialog" in text
    assert "partners" not in text
    read = extract(page.encode(), content_type="text/html", url="https://food.example/recipes/dinner", format="text")
    assert "Privacy Preference" not in read.text and "partners" not in read.text


def test_every_known_consent_root_is_removed() -> None:
    for root in ("cookie-notice", "gdpr-banner", "cmplz-cookiebanner-container", "sp_message_container_1234"):
        page = f"<html><body><section id='{root}'><p>We use cookies and other technologies.</p></section>"
        assert visible_text(parse(page + "<p>Item specifics</p></body></html>")) == "Item specifics", root


def test_a_page_that_only_names_a_consent_manager_is_left_as_it_is() -> None:
    page = "<html><body><p id='onetrust-docs'>How to set up onetrust-consent-sdk on your site.</p></body></html>"
    assert "onetrust-consent-sdk" in visible_text(parse(page))


def test_a_consent_id_on_the_page_itself_removes_nothing() -> None:
    story = "The council voted on Tuesday to close the old bridge for a year of repairs."
    on_body = f"<html><body id='onetrust-consent-sdk'><p>{story}</p></body></html>"
    assert story in visible_text(parse(on_body))
    wrapper = f"<html><body><div ID='didomi-host'><main><p>{story}</p></main></div></body></html>"
    assert story in visible_text(parse(wrapper))
    upper = f"<html><body><div ID='didomi-host'><p>We value your privacy</p></div><p>{story}</p></body></html>"
    assert "privacy" not in visible_text(parse(upper))


def accordion(items: int, *, controlled: bool = True) -> str:
    """A service page whose offerings sit in an accordion's closed panels (WAI-ARIA's accordion pattern)."""
    rows = []
    for number in range(items):
        control = f" aria-controls='panel-{number}' aria-expanded='false'" if controlled else ""
        rows.append(
            f"<dt><button{control}>Offering {number}</button></dt><dd id='panel-{number}' hidden>"
            f"<p>Offering {number} covers data strategy, governance and the reports a finance team reads "
            f"every month, planned with your staff and run by ours.</p></dd>"
        )
    return (
        "<html><body><main><h1>Data analytics services</h1><p>Our advisers help companies of every size turn "
        f"their data into decisions.</p><dl>{''.join(rows)}</dl></main></body></html>"
    )


def test_an_accordions_closed_panels_are_read_as_content() -> None:
    page = accordion(6)
    assert "Offering 5 covers data strategy" in visible_text(parse(page))
    read = extract(page.encode(), content_type="text/html", url="https://firm.example/services/data", format="text")
    assert all(f"Offering {number} covers" in read.text for number in range(6))


def test_a_hidden_element_nothing_controls_stays_hidden() -> None:
    page = accordion(3, controlled=False)
    assert "covers data strategy" not in visible_text(parse(page))
    spare = "<html><body><p>Shown.</p><div id='spare' hidden>A dialog's spare copy.</div></body></html>"
    assert "spare copy" not in visible_text(parse(spare))


def test_one_control_may_name_several_panels() -> None:
    page = (
        "<html><body><button aria-controls='a b' aria-expanded='false'>Both</button>"
        "<div id='a' hidden>First panel.</div><div id='b' hidden>Second panel.</div>"
        "<div id='c' hidden>Third panel.</div></body></html>"
    )
    text = visible_text(parse(page))
    assert "First panel." in text and "Second panel." in text and "Third panel." not in text


def test_every_copy_of_a_repeated_panel_id_is_opened() -> None:
    # a desktop and a mobile copy of one accordion, each button naming its own copy's id
    copy = (
        "<button aria-controls='item-0' aria-expanded='false'>Fees</button>"
        "<div id='item-0' hidden><p>Tuition is paid each term.</p></div>"
    )
    text = visible_text(parse(f"<html><body><div>{copy}</div><div>{copy}</div></body></html>"))
    assert text.count("Tuition is paid each term.") == 2


def test_a_tab_panel_tied_to_its_tab_only_by_its_label_is_opened() -> None:
    page = (
        "<html><body><div role='tablist'><button role='tab' id='tab-go'>Go</button></div>"
        "<div role='tabpanel' aria-labelledby='tab-go' hidden><pre>client.Messages.Create(params)</pre></div>"
        "<div class='spare' hidden>Not a panel.</div></body></html>"
    )
    text = visible_text(parse(page))
    assert "client.Messages.Create(params)" in text and "Not a panel." not in text


def test_a_phpbb_posters_details_are_not_the_thread() -> None:
    profile = (
        "<dl class='postprofile' id='profile1'><dt><a href='/u/1'>scottgus1</a></dt>"
        "<dd class='profile-rank'>Volunteer</dd><dd class='profile-posts'><strong>Posts:</strong> 1725</dd>"
        "<dd class='profile-joined'><strong>Joined:</strong> 14. Sep 2019, 16:51</dd></dl>"
    )
    page = (
        "<html><body><div class='post'>"
        f"{profile}<div class='content'>Install the extension pack that matches your version.</div></div>"
        "<dl class='details'><dd>A definition list of the thread's own.</dd></dl></body></html>"
    )
    text = visible_text(parse(page))
    assert "scottgus1" in text and "Install the extension pack" in text
    assert "1725" not in text and "Joined" not in text and "Volunteer" not in text
    assert "A definition list of the thread's own." in text
