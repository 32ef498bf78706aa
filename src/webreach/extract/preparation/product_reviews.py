"""A product page's customer reviews, taken out of the parsed page: they are what buyers said, not the product.

    remove_reviews(tree) -> int

Shops put their reviews in elements their templates name for them: Amazon's `cm_cr-review_list`, Steam's
`review_ctn`, WooCommerce's `woocommerce-Tabs-panel--reviews`, REI's and Bazaarvoice's `...-reviews` blocks, and
mark single reviews with microdata's `itemprop="review"`. trafilatura reads them as the page's text (an Amazon
item page: 235 words of product, then 800 of reviews), and WCXB's truths leave them out. Such an element goes when
it holds REVIEW_TEXT characters or more and under MAX_SHARE of the page's text; a rating summary ("4.6 out of 5
stars (44,754)", "Reviews (29)") is shorter and stays, and so does a wrapper that is most of the page.

Only pages the classifier is sure are products, with no sign of an article, lose them (cascade.py): a review
article, a forum or a service's testimonials are content (a pest-control service that declares a Product and
og:type article lost its customers' stories, 0.39 on the tune half, before the second condition).

Measured on WCXB dev (bench/extraction.py --wcxb): whole tune half 0.8732 -> 0.8752, check half 0.8540 -> 0.8571.
Products, tune half 0.6703 -> 0.6974: REI 0.33 -> 0.88, Amazon, four Steam pages; Steam's War Thunder -0.14, its
press quotes sit in `game_area_reviews`. Check half 0.6426 -> 0.6798: Thomann 0.06 -> 0.94, Gymshark, Amazon, four
Steam pages; an Etsy item -0.24, whose details column is named `wider-review-col`; a yoga-mat shop's home page, a
collection, -0.08. REVIEW_TEXT was flat from 300 to 1,000 on the tune half (150 took rating summaries: 0.6931).
Also tried there: recommendation blocks (`related`, `upsell`, `also-bought`, `recently-viewed` ...), 0.6917;
camelCase names (`userReviews`), equal on tune and 0.6748 on check; every page not sure to be an article, products
0.6906 and services 0.8357 -> 0.8308.
"""

from __future__ import annotations

import re

from lxml import etree

from webreach.extract.preparation import tags
from webreach.extract.tree import Element

# a class or id token "review" or "reviews", alone or between dashes and underscores ("cm_cr-review_list")
REVIEW_NAME = re.compile(r"(?:^|[\s_-])reviews?(?:$|[\s_-])", re.IGNORECASE)
CANDIDATES = etree.XPath(
    "//*[@itemprop='review' or contains(@class, 'eview') or contains(@id, 'eview')"
    " or contains(@class, 'EVIEW') or contains(@id, 'EVIEW')]"
)
REVIEW_TEXT = 300  # characters
MAX_SHARE = 0.5
KEPT = ("html", "body", "main")


def remove_reviews(tree: Element) -> int:
    """Remove the review blocks of a product page's `tree`, in place (tails kept); how many went."""
    named = [element for element in CANDIDATES(tree) if element.tag not in KEPT and names_reviews(element)]
    if not named:
        return 0
    page_text = len(tags.body_of(tree).text_content())
    removed = 0
    for element in named:
        if in_document(element) and REVIEW_TEXT <= len(element.text_content()) < MAX_SHARE * page_text:
            element.drop_tree()
            removed += 1
    return removed


def names_reviews(element: Element) -> bool:
    """Whether `element` is named a review block by its class, id or microdata."""
    if (element.get("itemprop") or "").strip().lower() == "review":
        return True
    return REVIEW_NAME.search(f"{element.get('class') or ''} {element.get('id') or ''}") is not None


def in_document(element: Element) -> bool:
    """Whether `element` is still under the page's `<body>` (not inside a block already removed)."""
    return any(ancestor.tag == "body" for ancestor in element.iterancestors())
