"""The learned block scorer: its features read what they say, its shipped weights load and rank boilerplate under
content, and pruning leaves out only the lines that are low-scored blocks."""

from __future__ import annotations

import json

import pytest

from webreach.extract.blocks import scorer as scorer_module
from webreach.extract.blocks.features import NUMERIC, TOKEN_BUCKETS, page_blocks
from webreach.extract.blocks.scorer import WEIGHTS, BlockScorer, prune_lines, pruned_reading
from webreach.extract.cascade import ExtractOptions, extract
from webreach.extract.kinds.page_type import PageKind
from webreach.extract.preparation import html_tree

DESCRIPTION = (
    "This stoneware mug holds twelve ounces of coffee, keeps it warm for longer than thin porcelain does, and goes "
    "into the dishwasher and the microwave without a second thought."
)
PAGE = f"""<html><head><script type="application/ld+json">
{{"@type": "Product", "name": "Speckled mug", "description": "{DESCRIPTION}"}}</script></head><body>
<header><nav class="menu"><ul><li><a href="/">Home</a></li><li><a href="/shop">Shop</a></li>
<li><a href="/about">About us</a></li></ul></nav></header>
<main><h1>Speckled <b>stoneware</b> mug</h1><p>{DESCRIPTION}</p><p hidden>A hidden note</p>
<div class="price">$24.00 <span>free shipping</span></div></main>
<footer><p><a href="/terms">Terms</a> <a href="/privacy">Privacy</a></p></footer>
<script>var tracking = "no words of mine";</script></body></html>"""
PRODUCT = PageKind("product", confident=True)


def blocks_of(page: str = PAGE) -> list:  # type: ignore[type-arg]
    tree = html_tree.parse(page, url="https://shop.example/mug")
    return page_blocks(tree, PRODUCT, [{"@type": "Product", "description": DESCRIPTION}])


def feature(block: object, name: str) -> float:
    return block.numbers[NUMERIC.index(name)]  # type: ignore[attr-defined]


def test_blocks_are_the_visible_text_in_order_with_their_inline_children() -> None:
    keys = [block.key for block in blocks_of()]
    assert keys == ["home", "shop", "about us", "speckled stoneware mug", DESCRIPTION.lower().replace(",", "")
                    .replace(".", ""), "24 00 free shipping", "terms privacy"]  # fmt: skip
    assert all(len(block.numbers) == len(NUMERIC) for block in blocks_of())


def test_features_say_where_a_block_sits_and_what_it_is() -> None:
    home, *_, heading, description, price, legal = blocks_of()
    assert feature(home, "link_share") == 1.0 and feature(description, "link_share") == 0.0
    assert feature(home, "in_furniture") == 1.0 and feature(description, "in_furniture") == 0.0
    assert feature(description, "in_region") == 1.0 and feature(legal, "in_region") == 0.0
    assert feature(heading, "tag_2") == 1.0 and feature(description, "after_heading") == 1.0
    assert feature(description, "json_ld_share") == 1.0 and feature(legal, "json_ld_share") == 0.0
    assert feature(home, "log_same_siblings") > 0  # one of three menu items
    assert feature(price, "kind_product") == 1.0 and feature(price, "json_ld_product") == 1.0
    assert all(0 <= bucket < TOKEN_BUCKETS for block in blocks_of() for bucket in block.tokens)


def test_the_shipped_weights_load_and_rank_a_menu_under_the_product_description() -> None:
    model = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    assert model["numeric"] == list(NUMERIC) and len(model["coef"]) == len(NUMERIC) + TOKEN_BUCKETS
    blocks = blocks_of()
    chances = BlockScorer.load().probabilities(blocks)
    by_key = dict(zip((block.key for block in blocks), chances, strict=True))
    assert by_key["home"] < 0.5 < by_key[DESCRIPTION.lower().replace(",", "").replace(".", "")]
    assert by_key["terms privacy"] < by_key["speckled stoneware mug"]
    assert BlockScorer.load().probabilities([]) == []


def test_pruning_drops_only_low_scored_blocks_and_keeps_unmatched_lines() -> None:
    blocks = blocks_of()
    chances = [0.01 if block.key in ("home", "terms privacy") else 0.9 for block in blocks]
    reading = "Home\n\nSpeckled stoneware mug\n\n[Terms](/terms) [Privacy](/privacy)\n\nA line of no block\n\nHome"
    assert prune_lines(reading, blocks, chances, 0.1) == "Speckled stoneware mug\n\nA line of no block"
    assert prune_lines(reading, blocks, chances, 0.005) == reading


def test_weights_trained_on_other_features_are_refused(tmp_path: pytest.TempPathFactory) -> None:
    stale = tmp_path / "weights.json"  # type: ignore[operator]
    stale.write_text(json.dumps({"numeric": ["words"], "buckets": 8, "mean": [0], "std": [1], "coef": [0], "bias": 0}))
    with pytest.raises(ValueError, match="retrain"):
        scorer_module._load(stale)


def test_damaged_weights_leave_the_reading_as_the_rules_made_it(tmp_path: pytest.TempPathFactory) -> None:
    damaged = tmp_path / "weights.json"  # type: ignore[operator]
    damaged.write_text("{not json")
    tree = html_tree.parse(PAGE, url="https://shop.example/mug")
    reading = "Home\n\nSpeckled stoneware mug"
    assert pruned_reading(tree, PRODUCT, [], reading, "text", weights=damaged) == reading


def test_the_cascade_prunes_a_sure_product_reading_and_leaves_articles_alone() -> None:
    menu = "".join(f"<li><a href='/c/{n}'>Category number {n} of the shop</a></li>" for n in range(12))
    page = PAGE.replace('<li><a href="/about">About us</a></li>', menu)
    tree = html_tree.parse(page, url="https://shop.example/mug")
    reading = "\n\n".join([f"Category number {n} of the shop" for n in range(12)] + [DESCRIPTION])
    pruned = pruned_reading(tree, PRODUCT, [], reading, "text")
    assert DESCRIPTION in pruned and "Category number 3" not in pruned
    article = PageKind("article", confident=True)
    assert pruned_reading(tree, article, [], reading, "text") == reading  # the rules keep articles
    assert pruned_reading(tree, PRODUCT, [], reading, "html") == reading  # markup is never pruned
    options = ExtractOptions(block_scorer=False)
    kept = extract(page.encode(), content_type="text/html", url="https://shop.example/mug", options=options)
    scored = extract(page.encode(), content_type="text/html", url="https://shop.example/mug")
    assert scored.page_type == "product" and DESCRIPTION in scored.text and scored.text != kept.text
