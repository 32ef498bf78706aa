"""A product page's declared facts (JSON-LD name, price, description) join the extracted text when the visible
page does not say them, once, decoded, and escaped in HTML output."""

from __future__ import annotations

import json

import pytest

from webreach.extract.cascade import extract
from webreach.extract.fixes.product_facts import product_facts, with_facts
from webreach.extract.metadata import page_json_ld
from webreach.extract.preparation import html_tree

URL = "https://shop.example/products/stoneware-mug"
DESCRIPTION = "Thrown by hand from speckled stoneware, glazed inside, holds 350 ml & keeps coffee warm for longer."
PRODUCT = {
    "@context": "https://schema.org",
    "@type": "Product",
    "name": "Speckled stoneware mug",
    "description": f"<p>{DESCRIPTION.replace('&', '&amp;')}</p>",
    "offers": {"@type": "Offer", "price": "24.00", "priceCurrency": "EUR"},
}
REVIEWS = "".join(
    f"<p>Review {n}: a lovely everyday mug, the handle sits well in the hand and it survives the dishwasher.</p>"
    for n in range(8)
)


def page(ld: object, body: str = REVIEWS) -> str:
    script = f"<script type='application/ld+json'>{json.dumps(ld)}</script>"
    return f"<html><head><title>Mug</title>{script}</head><body><main><h1>Mug</h1>{body}</main></body></html>"


def read(html: str, format: str = "text") -> str:
    return extract(html.encode(), content_type="text/html", url=URL, format=format).text  # type: ignore[arg-type]


def test_a_product_page_says_its_declared_name_price_and_description() -> None:
    text = read(page(PRODUCT))
    assert text.startswith("Speckled stoneware mug\n\nPrice: 24.00 EUR\n\n" + DESCRIPTION)
    assert "Review 7" in text


def test_a_fact_the_page_already_says_is_not_said_twice() -> None:
    text = read(page(PRODUCT, f"<p>Speckled stoneware mug</p><p>{DESCRIPTION.replace('&', '&amp;')}</p>{REVIEWS}"))
    assert text.count(DESCRIPTION) == 1
    assert text.count("Speckled stoneware mug") == 1
    assert text.startswith("Price: 24.00 EUR")


def test_html_output_escapes_the_declared_facts() -> None:
    hostile = {**PRODUCT, "name": "Mug &lt;img src=x onerror=alert(1)&gt; deluxe"}
    html = read(page(hostile), "html")
    assert html.count("<html") == 1 and html.index("<body>") < html.index("Mug &lt;img")  # inside the one document
    assert "<img" not in html
    assert "<p>Mug &lt;img src=x onerror=alert(1)&gt; deluxe</p>" in html
    assert "holds 350 ml &amp; keeps coffee warm" in html


@pytest.mark.parametrize(
    ("offers", "line"),
    [
        ({"price": 9.5, "priceCurrency": "USD"}, "Price: 9.5 USD"),
        ([{"lowPrice": "10", "highPrice": "30", "priceCurrency": "GBP"}], "Price: 10-30 GBP"),
        ({"availability": "https://schema.org/OutOfStock"}, None),
        ("not an offer", None),
    ],
)
def test_the_price_line_reads_an_offer_or_a_range(offers: object, line: str | None) -> None:
    facts = product_facts(
        page_json_ld(html_tree.parse(page({"@type": "Product", "name": "Mug", "offers": offers}), url=URL))
    )
    assert facts == (["Mug", line] if line else ["Mug"])


def test_percent_encoded_descriptions_are_decoded() -> None:
    ld = {"@type": ["Product"], "name": "Sofa", "description": "An%20elegant%20curved%20sofa."}
    assert product_facts(page_json_ld(html_tree.parse(page(ld), url=URL))) == ["Sofa", "An elegant curved sofa."]


@pytest.mark.parametrize("script", ["{not json", '{"@type": "Article", "headline": "x"}', "[" * 5000])
def test_no_product_declared_means_no_facts(script: str) -> None:
    html = f"<html><head><script type='application/ld+json'>{script}</script></head><body><p>x</p></body></html>"
    assert product_facts(page_json_ld(html_tree.parse(html, url=URL))) == []


def test_nothing_missing_leaves_the_text_as_it_was() -> None:
    assert with_facts("Mug\n\nPrice: 3 EUR", ["Mug", "Price: 3 EUR"], "markdown") == "Mug\n\nPrice: 3 EUR"


def test_a_huge_declared_description_is_cut_to_a_paragraph() -> None:
    ld = {"@type": "Product", "name": "Mug", "description": "word " * 100_000}
    facts = product_facts(page_json_ld(html_tree.parse(page(ld), url=URL)))
    assert facts[0] == "Mug"
    assert len(facts[1]) <= 4_000
