"""The card grid: every card of a listing's main grid, never a menu and never the page's own regions."""

from __future__ import annotations

from webreach.extract.preparation.html_tree import parse
from webreach.extract.readings.card_grid import grid_items, grid_text

CARDS = "".join(
    f'<div class="card"><a href="/p/{n}">Trail shoe {n}</a><p>Light mesh upper, grippy sole, {n}0 dollars.</p></div>'
    for n in range(1, 6)
)
MENU = "".join(f'<li class="item"><a href="/c/{n}">Shoes for walking and running {n}</a></li>' for n in range(8))


def test_every_card_of_the_grid_is_read_in_order() -> None:
    tree = parse(f'<html><body><nav><ul>{MENU}</ul></nav><main><div class="grid">{CARDS}</div></main></body></html>')
    text = grid_text(tree, "text")
    assert [line.split()[2] for line in text.split("\n\n") if line.startswith("Trail")] == ["1", "2", "3", "4", "5"]
    assert "walking" not in text


def test_a_pages_regions_are_not_a_grid() -> None:
    story = " ".join(["The harbour opens at dawn and the boats go out with the tide."] * 20)
    tree = parse(
        '<html><body><div><a href="#main">Skip to main content</a></div>'
        '<div><a href="/search">Search this site for more</a></div>'
        f'<div><a href="/">Home</a><p>{story}</p></div><div><a href="/x">Close the overlay</a></div></body></html>'
    )
    assert grid_items(tree) == []
