"""React's streamed parts are read where the page's scripts put them: boundaries ($RC, $RR), segments ($RS), the
CSP form with templates, in document order; text around the moved elements stays where it was."""

from __future__ import annotations

from lxml import etree

from webreach.extract.cascade import extract
from webreach.extract.preparation import html_tree
from webreach.extract.streamed import place_streamed

SECTIONS = "".join(
    f"<section><h2>{name}</h2><p>{name} your app with one click: connect the repository, pick the runtime and "
    f"Render does the rest for every branch you push.</p></section>"
    for name in ("Deploy", "Scale", "Observe")
)


def landing(instruction: str = '<script>$RC("B:0","S:0")</script>') -> str:
    """A landing page as Next.js streams it: the skeleton with a Suspense boundary, the content hidden at the end."""
    return (
        "<html><body><header><a href='/'>Home</a> <a href='/pricing'>Pricing</a></header><main>"
        "<h1>Your fastest path to production</h1><!--$?--><template id='B:0'></template>"
        "<div class='spinner'></div><!--/$--><p>Trusted by builders.</p></main><footer>Terms</footer>"
        f'<div hidden id="S:0">{SECTIONS}</div>{instruction}</body></html>'
    )


def test_a_streamed_boundary_is_read_in_its_place() -> None:
    page = extract(landing().encode(), content_type="text/html", url="https://render.example/")
    text = page.text
    assert "## Deploy" in text and "## Observe" in text
    # in reading order: the heading, the streamed sections, then what followed the boundary
    assert text.index("production") < text.index("Deploy") < text.index("Observe") < text.index("Trusted")


def test_the_content_takes_the_placeholders_place_and_is_shown() -> None:
    tree = html_tree.parse(landing(), url="https://render.example/")
    main = tree.find(".//main")
    assert [child.tag for child in main] == ["h1", "div", "div", "p"]  # the template replaced, the spinner kept
    moved = main[1]
    assert moved.get("hidden") is None and moved.find("section/h2").text == "Deploy"
    assert not tree.xpath("//template[@id='B:0']")


def test_the_csp_form_and_the_styles_form_are_followed() -> None:
    for instruction in (
        "<template data-rci='' data-bid='B:0' data-sid='S:0'></template>",
        '<script>$RR("B:0","S:0",[["/_next/static/css/a.css","high"]])</script>',
    ):
        tree = html_tree.parse(landing(instruction), url="https://render.example/")
        assert tree.find(".//main/div/section/h2").text == "Deploy"


def test_segments_nested_in_boundaries_are_placed_in_document_order() -> None:
    # the boundary's content holds a segment's placeholder: $RS fills it while it is still hidden, $RC moves both
    page = (
        "<html><body><main><template id='B:0'></template>after</main>"
        "<div hidden id='S:0'><h2>Post</h2><template id='P:1'></template></div>"
        "<div hidden id='S:1'><p>The body of the post.</p></div>"
        '<script>$RS("S:1","P:1");$RC("B:0","S:0")</script></body></html>'
    )
    tree = html_tree.parse(page, url="https://forum.example/")
    main = tree.find(".//main")
    assert etree.tostring(main, encoding="unicode", method="text") == "PostThe body of the post.after"


def test_text_after_a_moved_element_stays_where_it_was() -> None:
    tree = html_tree.parse(
        "<html><body><p><template id='P:0'></template> kept after the placeholder</p>"
        "<div><span>a</span><div hidden id='S:0'>streamed</div> stays here</div>"
        '<script>$RS("S:0","P:0")</script></body></html>',
        url="https://site.example/",
    )
    paragraph, block = tree.find(".//p"), tree.find(".//body/div")
    assert html_tree.visible_text(paragraph).split() == ["streamed", "kept", "after", "the", "placeholder"]
    assert html_tree.visible_text(block).split() == ["a", "stays", "here"]


def test_instructions_that_name_nothing_or_loop_move_nothing() -> None:
    markup = (
        "<html><body><div hidden id='S:0'><p>inside <template id='P:0'></template></p></div>"
        '<script>$RS("S:0","P:0");$RC("B:9","S:9")</script></body></html>'
    )
    tree = html_tree.parse(markup, url="https://site.example/")  # parsing places what it can
    assert tree.xpath("//div[@id='S:0']/@hidden") == [""]
    assert place_streamed(tree) == 0


def test_the_first_element_of_an_id_is_used_and_a_failed_call_uses_nothing_up() -> None:
    tree = html_tree.parse(
        "<html><body><main><template id='B:0'></template></main>"
        "<div hidden id='S:0'>FIRST</div><div hidden id='S:0'>SECOND</div>"
        '<script>$RC("B:0","S:9");$RC("B:0","S:0")</script></body></html>',
        url="https://site.example/",
    )
    assert html_tree.visible_text(tree.find(".//main")).strip() == "FIRST"  # as getElementById finds it


def test_the_tails_of_many_moved_siblings_stay_in_order() -> None:
    parts = "".join(f"<div hidden id='S:{n}'>part {n}</div> after {n}" for n in range(3))
    slots = "".join(f"<li><template id='P:{n}'></template></li>" for n in range(3))
    calls = ";".join(f'$RS("S:{n}","P:{n}")' for n in range(3))
    tree = html_tree.parse(
        f"<html><body><ul>{slots}</ul><div class='rest'>{parts}</div><script>{calls}</script></body></html>",
        url="https://site.example/",
    )
    assert [html_tree.visible_text(item).strip() for item in tree.iter("li")] == ["part 0", "part 1", "part 2"]
    assert html_tree.visible_text(tree.find(".//div[@class='rest']")).split() == [
        "after",
        "0",
        "after",
        "1",
        "after",
        "2",
    ]


def test_minified_markup_without_quotes_is_followed() -> None:
    tree = html_tree.parse(
        "<html><body><main><template id=B:0></template></main><div hidden id=S:0><p>Streamed.</p></div>"
        '<script>$RC("B:0","S:0")</script></body></html>',
        url="https://site.example/",
    )
    assert html_tree.visible_text(tree.find(".//main")) == "Streamed."
