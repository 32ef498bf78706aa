"""The block scorer's wording features (blocks/wording.py): what a block's own text says, what the heading over it
says, and how much of it the page's JSON-LD says of the page's own item; on small hand-written pages."""

from __future__ import annotations

from webreach.extract.blocks.features import NUMERIC, Block, page_blocks
from webreach.extract.blocks.wording import WORDING, Wording
from webreach.extract.kinds.page_type import PageKind
from webreach.extract.metadata import JsonLd
from webreach.extract.preparation import html_tree

PRODUCT = PageKind("product", confident=True)
ITEM = {"@type": "Product", "name": "Speckled stoneware mug", "description": "A speckled mug of stoneware."}
AROUND = [
    {"@type": "Organization", "name": "Shipping Shop Inc", "description": "We sell mugs and bowls"},
    {"@type": "Review", "name": "Great", "description": "Arrived quickly, would buy again"},
]
PAGE = """<html><body><main>
<p>Welcome to our shop: we hope you like it.</p>
<h1>Speckled stoneware mug</h1>
<p>A speckled mug of stoneware.</p>
<h2>Product details</h2><p>Holds twelve ounces of coffee: a mug for every morning.</p>
<h2>Shipping &amp; Returns</h2><p>Standard U.S. shipping is free on orders over $65. Returns within 30 days.</p>
<h2>Customer reviews</h2><p>Rated 4.8 out of 5 stars by 120 verified buyers.</p>
<h2>You may also like</h2><p>The matching saucer, in three glazes.</p>
<p>Add to cart</p>
<p>Sign up for our newsletter</p>
<p>© 2026 Shipping Shop Inc. All rights reserved. Privacy policy.</p>
<p>Arrived quickly, would buy again</p>
</main></body></html>"""


def blocks(page: str = PAGE, json_ld: JsonLd | None = None) -> dict[str, Block]:
    tree = html_tree.parse(page, url="https://shop.example/mug")
    declared = [ITEM, *AROUND] if json_ld is None else json_ld
    return {block.text: block for block in page_blocks(tree, PRODUCT, declared)}


def said(block: Block) -> dict[str, float]:
    """The block's wording features that are not zero."""
    at = NUMERIC.index(WORDING[0])
    return {name: value for name, value in zip(WORDING, block.numbers[at:], strict=True) if value}


def test_every_block_carries_the_wording_features_last() -> None:
    assert NUMERIC[-len(WORDING) :] == WORDING
    assert all(len(block.numbers) == len(NUMERIC) for block in blocks().values())


def test_a_blocks_own_text_says_shipping_reviews_buying_accounts_and_legal_terms() -> None:
    page = blocks()
    shipping = said(page["Standard U.S. shipping is free on orders over $65. Returns within 30 days."])
    assert shipping["says_shipping"] == 1.0 and shipping["states_price"] == 1.0
    assert said(page["Rated 4.8 out of 5 stars by 120 verified buyers."])["says_reviews"] == 1.0
    assert said(page["The matching saucer, in three glazes."]).get("says_related") is None
    assert said(page["You may also like"])["says_related"] == 1.0
    assert said(page["Add to cart"])["says_buying"] == 1.0
    assert said(page["Sign up for our newsletter"])["says_account"] == 1.0
    legal = said(page["© 2026 Shipping Shop Inc. All rights reserved. Privacy policy."])
    assert legal["says_legal"] == 1.0 and "says_shipping" in legal  # "Shipping" in the shop's name: it says it
    description = said(page["A speckled mug of stoneware."])
    assert not any(name.startswith("says_") for name in description) and "states_price" not in description


def test_we_and_you_are_shares_of_the_blocks_words() -> None:
    welcome = said(blocks()["Welcome to our shop: we hope you like it."])
    assert welcome["we_share"] == 2 / 9 and welcome["you_share"] == 1 / 9


def test_a_block_is_read_under_the_heading_before_it() -> None:
    page = blocks()
    assert said(page["Holds twelve ounces of coffee: a mug for every morning."])["section_describes"] == 1.0
    under_shipping = said(page["Standard U.S. shipping is free on orders over $65. Returns within 30 days."])
    assert under_shipping["section_shipping"] == 1.0 and "section_reviews" not in under_shipping
    assert said(page["Rated 4.8 out of 5 stars by 120 verified buyers."])["section_reviews"] == 1.0
    assert said(page["The matching saucer, in three glazes."])["section_related"] == 1.0
    assert said(page["Add to cart"])["section_related"] == 1.0  # no heading since: still that section
    assert said(page["A speckled mug of stoneware."])["section_names_item"] == 1.0  # under the item's own name
    before_any = said(page["Welcome to our shop: we hope you like it."])
    assert not any(name.startswith("section_") for name in before_any)


def test_only_the_pages_own_item_in_json_ld_counts() -> None:
    page = blocks()
    assert said(page["Speckled stoneware mug"])["item_name_share"] == 1.0
    assert said(page["A speckled mug of stoneware."])["item_description_share"] == 1.0
    review = said(page["Arrived quickly, would buy again"])  # a review's and the organisation's words: not the item's
    assert "item_description_share" not in review and "item_name_share" not in review
    details = said(page["Holds twelve ounces of coffee: a mug for every morning."])
    assert details["item_description_share"] == 3 / 10


def test_a_page_without_json_ld_has_no_item_and_a_list_of_names_is_read() -> None:
    page = blocks(json_ld=[])
    assert not any(name.startswith("item_") for name in said(page["Speckled stoneware mug"]))
    assert "section_names_item" not in said(page["A speckled mug of stoneware."])
    listed = Wording([{"@type": ["Product", "Thing"], "name": ["Speckled mug", 7], "headline": None}])
    assert listed.names == {"speckled", "mug"} and listed.descriptions == set()
