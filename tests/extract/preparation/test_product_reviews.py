"""A product page's review blocks: left out of a sure product's reading, kept on every other kind of page."""

from __future__ import annotations

import json

from webreach.extract.cascade import extract
from webreach.extract.preparation.html_tree import parse
from webreach.extract.preparation.product_reviews import remove_reviews

DESCRIPTION = " ".join(["The pack carries a day's gear in three zipped pockets and a padded sleeve."] * 20)
REVIEWS = "".join(
    f'<div class="review"><p>Reviewer {n} says: I carried it up the ridge and the straps dug into my shoulders '
    "after an hour of walking, so I would choose another bag next time. The zips stuck in the rain on the second "
    "day, and the side pockets are too shallow for a bottle, which fell out twice on the way down. "
    "Good value otherwise.</p></div>"
    for n in range(3)
)
SUMMARY = '<div class="review-summary">4.6 out of 5 stars (44,754)</div>'
PRODUCT = json.dumps({"@type": "Product", "name": "Trail 25", "offers": {"price": 99}})


def page(extra_head: str = "") -> bytes:
    return (
        f"<html><head><title>Trail 25 pack</title>{extra_head}</head><body><main><h1>Trail 25 pack</h1>"
        f"{SUMMARY}<p>{DESCRIPTION}</p><p>Price: $99.00</p>"
        f'<section id="product-reviews"><h2>Reviews</h2>{REVIEWS}</section></main></body></html>'
    ).encode()


def test_a_products_reviews_are_left_out() -> None:
    head = f'<script type="application/ld+json">{PRODUCT}</script>'
    read = extract(page(head), content_type="text/html", url="https://shop.example/products/trail-25", format="text")
    assert read.page_type == "product"
    assert "pockets" in read.text and "Price: $99.00" in read.text
    assert "Reviewer" not in read.text


def test_a_page_not_sure_to_be_a_product_keeps_them() -> None:
    read = extract(page(), content_type="text/html", url="https://blog.example/2026/trail-25", format="text")
    assert read.page_type != "product"
    assert "Reviewer 2 says" in read.text


def test_blocks_are_removed_once_and_a_rating_summary_and_a_wrapper_of_most_of_the_page_stay() -> None:
    tree = parse(page().decode())
    assert remove_reviews(tree) == 1  # the section; the cards inside it went with it
    assert "Reviewer" not in tree.text_content() and "4.6 out of 5" in tree.text_content()
    wrapped = parse(f'<html><body><div class="product-review-page"><p>{DESCRIPTION}</p>{REVIEWS}</div></body></html>')
    assert remove_reviews(wrapped) == 3  # the wrapper is most of the page: only the reviews in it go
    assert "pockets" in wrapped.text_content()


def test_microdata_reviews_go_and_words_merely_containing_review_do_not_count() -> None:
    tree = parse(
        f'<html><body><p>{DESCRIPTION}</p><div class="preview-gallery"><p>{DESCRIPTION}</p></div>'
        f'<div itemprop="review"><p>{DESCRIPTION.replace("pack", "bag")}</p></div><p>{DESCRIPTION}</p></body></html>'
    )
    assert remove_reviews(tree) == 1
    assert "bag" not in tree.text_content() and tree.text_content().count("pack") == 60
