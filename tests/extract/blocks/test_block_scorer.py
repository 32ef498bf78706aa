"""The learned block scorer: its features read what they say, its trees are walked as fitted, its shipped model
loads and ranks boilerplate under content, pruning leaves out only low-scored lines and adding puts back only
high-scored blocks next to the reading."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from webreach.extract.blocks import scorer as scorer_module
from webreach.extract.blocks.features import NUMERIC, page_blocks
from webreach.extract.blocks.scorer import (
    EDITS,
    UNSURE,
    WEIGHTS,
    BlockScorer,
    Edits,
    add_lines,
    line_key,
    prune_lines,
    pruned_reading,
)
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


def blocks_of(page: str = PAGE, reading: tuple[str, ...] = ()) -> list:  # type: ignore[type-arg]
    tree = html_tree.parse(page, url="https://shop.example/mug")
    lines = [line_key(line) for line in reading]
    return page_blocks(tree, PRODUCT, [{"@type": "Product", "description": DESCRIPTION}], lines)


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


def test_context_features_read_the_block_against_the_rules_reading_and_the_main_heading() -> None:
    reading = ("Speckled stoneware mug", DESCRIPTION)
    home, shop, about, heading, description, price, legal = blocks_of(reading=reading)
    assert feature(description, "in_reading") == 1.0 and feature(price, "in_reading") == 0.0
    assert feature(description, "previous_in_reading") == 1.0 and feature(heading, "next_in_reading") == 1.0
    assert feature(price, "previous_in_reading") == 1.0 and feature(home, "previous_in_reading") == 0.0
    assert 0.8 < feature(description, "reading_share") < 1.0 and feature(price, "reading_place") == -1.0
    assert feature(heading, "reading_place") == 0.0 and feature(description, "reading_place") == 0.5
    assert feature(home, "parent_link_share") == 1.0 and feature(description, "parent_link_share") == 0.0
    assert feature(heading, "has_main_heading") == 1.0 and feature(heading, "heading_distance") == 0.0
    assert feature(home, "heading_distance") < 0 < feature(legal, "heading_distance")
    assert feature(legal, "log_words_from_heading") > feature(price, "log_words_from_heading") > 0
    assert feature(shop, "siblings_in_reading") == 0.0 and feature(about, "in_reading") == 0.0


def test_the_trees_are_walked_as_written() -> None:
    # one tree: feature 0 <= 0.5 goes to leaf 1 (-2.0), else to node 2, which asks feature 1 <= 3.0 (leaves 3, 4)
    tree = BlockScorer(
        feature=np.array([[0, 0, 1, 0, 0]]),
        threshold=np.array([[0.5, 0.0, 3.0, 0.0, 0.0]]),
        left=np.array([[1, 1, 3, 3, 4]]),
        right=np.array([[2, 1, 4, 3, 4]]),
        value=np.array([[0.0, -2.0, 0.0, 1.0, 3.0]]),
        base=0.5,
        depth=2,
    )
    rows = np.array([[0.5, 9.0], [0.7, 3.0], [0.7, 3.5]])
    assert tree.logits(rows).tolist() == [-1.5, 1.5, 3.5]


def test_the_shipped_model_loads_and_ranks_a_menu_under_the_product_description() -> None:
    model = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    assert model["numeric"] == list(NUMERIC) and WEIGHTS.stat().st_size < 200_000
    blocks = blocks_of(reading=("Home", "Speckled stoneware mug", DESCRIPTION))
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


def test_adding_puts_back_only_high_scored_blocks_that_follow_the_reading() -> None:
    blocks = blocks_of()
    chances = [0.9 if block.key in ("24 00 free shipping", "home") else 0.1 for block in blocks]
    reading = "Speckled stoneware mug\n\n" + DESCRIPTION
    added = add_lines(reading, blocks, chances, 0.8)
    assert added == reading + "\n\n$24.00 free shipping"  # "home" is high but comes before the reading
    assert add_lines(reading, blocks, chances, 0.95) == reading
    chances[-1] = 0.9  # the footer follows the added price: added after it, in the page's order
    assert add_lines(reading, blocks, chances, 0.8) == reading + "\n\n$24.00 free shipping\n\nTerms Privacy"


def test_weights_trained_on_other_features_are_refused(tmp_path: pytest.TempPathFactory) -> None:
    stale = tmp_path / "weights.json"  # type: ignore[operator]
    stale.write_text(json.dumps({"numeric": ["words"], "feature": [[0]], "threshold": [[0]], "left": [[0]]}))
    with pytest.raises(ValueError, match="retrain"):
        scorer_module._load(stale)


def test_damaged_weights_leave_the_reading_as_the_rules_made_it(tmp_path: pytest.TempPathFactory) -> None:
    damaged = tmp_path / "weights.json"  # type: ignore[operator]
    damaged.write_text("{not json")
    tree = html_tree.parse(PAGE, url="https://shop.example/mug")
    reading = "Home\n\nSpeckled stoneware mug"
    edits = Edits(prune={"product": 0.99})  # would prune every line, had the model loaded
    assert pruned_reading(tree, PRODUCT, [], reading, "text", weights=damaged, edits=edits) == reading


def test_the_scorer_edits_only_the_kinds_it_is_given_and_the_cascade_only_the_shipped_ones() -> None:
    menu = "".join(f"<li><a href='/c/{n}'>Category number {n} of the shop</a></li>" for n in range(12))
    page = PAGE.replace('<li><a href="/about">About us</a></li>', menu)
    tree = html_tree.parse(page, url="https://shop.example/mug")
    reading = "\n\n".join([f"Category number {n} of the shop" for n in range(12)] + [DESCRIPTION])
    edits = Edits(prune={"product": 0.5})
    pruned = pruned_reading(tree, PRODUCT, [], reading, "text", edits=edits)
    assert DESCRIPTION in pruned and "Category number 3" not in pruned
    article = PageKind("article", confident=True)
    assert pruned_reading(tree, article, [], reading, "text", edits=edits) == reading  # a kind not named
    assert pruned_reading(tree, PRODUCT, [], reading, "html", edits=edits) == reading  # markup is never edited
    for group, threshold in Edits.shipped().prune.items():  # the cascade's own edits: the same path, its kinds
        kind = PageKind(group, confident=group != UNSURE)
        assert Edits.shipped().thresholds(kind)[0] == threshold
        shipped = pruned_reading(tree, kind, [], reading, "text")
        assert shipped == pruned_reading(tree, kind, [], reading, "text", edits=Edits(prune={group: threshold}))
        assert shipped != reading and DESCRIPTION in shipped  # a menu line or two out, the description kept
    options = ExtractOptions(block_scorer=False)
    kept = extract(page.encode(), content_type="text/html", url="https://shop.example/mug", options=options)
    scored = extract(page.encode(), content_type="text/html", url="https://shop.example/mug")
    assert scored.page_type == "product" and DESCRIPTION in scored.text
    assert (scored.text == kept.text) == (Edits.shipped().thresholds(PRODUCT) == (None, None))


def test_the_shipped_edits_are_the_gates_choice_and_a_damaged_file_leaves_the_rules(tmp_path: Path) -> None:
    chosen = json.loads(EDITS.read_text(encoding="utf-8"))
    assert dict(Edits.shipped().prune) == chosen["prune"] and dict(Edits.shipped().add) == chosen["add"]
    assert "out of fold" in chosen["chosen_by"] and "check half never chooses" in chosen["chosen_by"]
    damaged = tmp_path / "edits.json"
    for text in ("{not json", '{"prune": {"service": "high"}, "add": {}}', '{"prune": []}'):
        damaged.write_text(text, encoding="utf-8")
        scorer_module._shipped.cache_clear()
        assert Edits.shipped(damaged) == Edits()
    scorer_module._shipped.cache_clear()
