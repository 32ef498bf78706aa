"""The main region: <main> without the page's furniture, taken when it holds somewhat more than trafilatura kept,
and read by the cascade for service pages; a story slug in the URL keeps an unsure page on the article path."""

from __future__ import annotations

from webreach.extract.cascade import extract
from webreach.extract.kinds.page_type import classify
from webreach.extract.preparation import html_tree
from webreach.extract.readings.main_region import (
    MAX_GAIN,
    MIN_GAIN,
    may_hold,
    region,
    region_text,
    widen,
)

SECTION = (
    "<section class='feature'><h2>{0}</h2><p>Our {0} team plans, builds and runs the whole thing for you, from the "
    "first workshop to the day it goes live, and stays on call afterwards.</p>"
    "<ul><li>fixed price for {0}</li><li>weekly demos</li></ul></section>"
)


def page(sections: int) -> str:
    body = "".join(SECTION.format(f"Service {number}") for number in range(sections))
    return (
        "<html><head><title>Services</title></head><body>"
        "<header><a href='/'>Acme</a> <a href='/about'>About</a></header>"
        "<main><nav class='breadcrumbs'><a href='/'>Home</a> / Services</nav>"
        f"<h1>What we do</h1>{body}"
        "<div class='cookie-banner'>We use cookies to run this site. Accept all</div></main>"
        "<footer>Copyright Acme, all rights reserved</footer></body></html>"
    )


def test_the_region_is_main_without_its_furniture() -> None:
    text = region_text(html_tree.parse(page(3)), "text")
    assert "Service 0" in text and "Service 2" in text and "weekly demos" in text
    for furniture in ("Home", "cookies", "About", "Copyright"):
        assert furniture not in text


def shop_page() -> str:
    # links alone: trafilatura drops the list as link-dense and falls back to the whole page, menus and footer too
    card = "<li><a href='/p/{0}'>Instant Pot Duo {0}-Quart Pressure Cooker</a></li>"
    cards = "".join(card.format(size) for size in range(9))
    return (
        "<html><body><header><nav><a href='/'>Home page</a> <a href='/deals'>Today's deals</a>"
        " <a href='/help'>Customer service</a></nav><button>Sign in to your account</button></header>"
        f"<main><h1>Best sellers</h1><ul>{cards}</ul></main>"
        "<footer><p>Careers at the shop, press releases and investor relations</p>"
        "<p>Conditions of use and privacy notice, copyright the shop</p></footer></body></html>"
    )


def test_a_reading_of_the_whole_page_gives_way_to_its_main_region_in_the_shrinking_band() -> None:
    tree = html_tree.parse(shop_page())
    whole = html_tree.visible_text(tree)  # what trafilatura returns when it finds no content: everything
    assert widen(tree, whole, "text") == ""  # the region holds fewer words than the reading
    text = widen(tree, whole, "text", bands=((0.25, 0.9), (1.5, 3.0)))
    assert "Instant Pot Duo 8-Quart" in text
    for furniture in ("Today's deals", "Sign in", "Careers", "privacy notice"):
        assert furniture not in text
    assert "Instant Pot Duo 8-Quart" in widen(tree, whole, "markdown", bands=((0.25, 0.9),))
    assert widen(tree, whole, "text", bands=((0.25, 0.5),)) == ""  # the region holds more than half its words


def test_an_unsure_pages_reading_of_everything_is_replaced_by_its_region() -> None:
    kind = classify(html_tree.parse(shop_page()), "https://shop.example/best-sellers")
    assert not kind.confident and not kind.article_evidence
    read = extract(shop_page().encode(), content_type="text/html", url="https://shop.example/best-sellers")
    assert read.extractor == "main-region"
    assert "Instant Pot Duo 8-Quart" in read.text and "Careers" not in read.text and "Today's deals" not in read.text


def test_a_catalogues_filters_are_furniture() -> None:
    options = "".join(f"<li class='FilterOption'><input type='checkbox'> {colour}</li>" for colour in ("Black", "Tan"))
    markup = (
        "<html><body><main><h1>Dress shoes</h1>"
        f"<div class='filter-groups'><h2>Colour</h2><ul>{options}</ul></div>"
        "<div class='facets'><h2>Size</h2><ul><li>Size 9</li></ul></div>"
        "<ul class='products'><li>Black Dress Shoes $30</li><li>Brown Leather Dress Shoes $35</li></ul></main>"
        "</body></html>"
    )
    text = region_text(html_tree.parse(markup), "text")
    assert "Black Dress Shoes $30" in text and "Brown Leather Dress Shoes" in text
    assert "Colour" not in text and "Tan" not in text and "Size 9" not in text


def test_the_region_leaves_out_text_for_screen_readers_only_unless_it_states_a_number() -> None:
    card = (
        "<li class='card'><h3>Dark Roast Coffee</h3><span class='visually-hidden visually-hidden--inline'>Regular "
        "price</span> <s>$24.99</s> <span class='u-srOnly'>Original price was: $24.99.</span> $19.99"
        "<label class='sr-only md:not-sr-only'>Quantity</label><a class='styles_srOnly__6uNpq'>Quick shop</a>"
        "<a class='screen-reader-text'>Skip to cart</a></li>"
    )
    text = region_text(html_tree.parse(f"<html><body><main><ul>{card}</ul></main></body></html>"), "text")
    assert "Dark Roast Coffee" in text and "$19.99" in text
    assert "Original price was: $24.99." in text  # it says what the struck-through figure is
    assert "Quantity" in text  # shown again from the md breakpoint
    for unseen in ("Regular price", "Quick shop", "Skip to cart"):
        assert unseen not in text
    # a class that merely contains a name is another class: Drupal's hidden field *label*
    field = "<div class='field field--label-visually_hidden'>Duration: eight weeks</div>"
    assert "Duration" in region_text(html_tree.parse(f"<html><body><main>{field}</main></body></html>"), "text")


def test_each_screen_reader_element_is_judged_by_its_own_text_under_a_class_seen_before() -> None:
    # the class is judged once a walk; whether the text states a number is asked of each element
    spans = "".join(
        f"<li>Mug {n} <span class='sr-only'>{said}</span></li>"
        for n, said in enumerate(("Add to cart", "Rated 4 out of 5", "Add to wishlist", "Was $12"))
    )
    text = region_text(html_tree.parse(f"<html><body><main><ul>{spans}</ul></main></body></html>"), "text")
    assert "Rated 4 out of 5" in text and "Was $12" in text
    assert "Add to cart" not in text and "Add to wishlist" not in text and "Mug 3" in text


def test_markdown_of_the_region_keeps_headings_lists_and_links() -> None:
    markdown = region_text(html_tree.parse(page(2).replace("weekly demos", "<a href='/demos'>demos</a>")), "markdown")
    assert "## Service 1" in markdown
    assert "- fixed price for Service 0" in markdown
    assert "[demos](https://acme.example/demos)" in region_text(
        html_tree.parse(page(1).replace("weekly demos", "<a href='/demos'>demos</a>")),
        "markdown",
        "https://acme.example/",
    )


def test_the_region_replaces_a_text_only_between_the_gains() -> None:
    tree = html_tree.parse(page(4))
    region_words = len(region_text(tree, "text").split())
    one_section = "Service 0 " + " ".join(["word"] * int(region_words / (MIN_GAIN + MAX_GAIN) * 2))
    assert widen(tree, one_section, "text")  # about 2.6 times shorter than the region: widened
    assert not widen(tree, " ".join(["word"] * region_words), "text")  # as long as the region: kept
    assert not widen(tree, " ".join(["word"] * int(region_words / (MAX_GAIN * 2))), "text")  # far shorter: kept


def test_the_words_bound_counts_text_that_runs_together_as_words_apart() -> None:
    # minified markup: no space between the items, so lxml's joined text reads "alphabetagamma"
    tree = html_tree.parse("<html><body><main><ul><li>alpha</li><li>beta</li><li>gamma</li></ul></main></body></html>")
    assert region_text(tree, "text").split() == ["alpha", "beta", "gamma"]
    assert may_hold(region(tree), 3) and not may_hold(region(tree), 5)
    assert widen(tree, "alpha", "text", bands=((2.0, 4.0),)) == "alpha\n\nbeta\n\ngamma"


def test_a_service_page_is_read_section_by_section() -> None:
    result = extract(page(6).encode(), content_type="text/html", url="https://acme.example/services/", format="text")
    assert result.page_type == "service"
    for number in range(6):
        assert f"Service {number}" in result.text
    assert "cookies" not in result.text and "Copyright" not in result.text


def test_a_story_slug_is_article_evidence() -> None:
    tree = html_tree.parse("<html><body><p>Text</p></body></html>")
    assert classify(tree, "https://city.example/news/home-care-service-expands-to-the-north").article_evidence
    assert not classify(tree, "https://city.example/news/").article_evidence
    assert not classify(tree, "https://city.example/services/home-care").article_evidence
