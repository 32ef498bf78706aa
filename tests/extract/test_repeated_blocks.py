"""The repeated-block rescue: the largest tag-and-class family, its outermost members, and when it replaces
trafilatura's text (it must hold several times the words and nearly all of those trafilatura kept)."""

from __future__ import annotations

from webreach.extract import html_tree
from webreach.extract.repeated_blocks import RESCUE_GAIN, repeated_blocks, rescue_text

URL = "https://board.example/r/bikes/comments/42/which_fork/"
REPLY = (
    '<div class="thing"><div class="entry"><p class="tagline"><a href="/u/{0}">{0}</a> {1} points</p>'
    '<div class="md"><p>{2} I would pick a <strong>coil</strong> fork for rough trails, and read '
    '<a href="/wiki/forks">the fork guide</a> before buying one.</p>'
    '<ul><li>travel: 120 mm</li><li>weight: under 2 kg</li></ul></div></div><div class="child">{3}</div></div>'
)


def thread(replies: int) -> str:
    """A thread whose replies nest inside each other, as old Reddit renders them."""
    inner = ""
    for number in reversed(range(replies)):
        inner = REPLY.format(f"rider{number}", number * 3, f"Reply {number}:", inner)
    return (
        "<html><body><nav class='menu'><a href='/'>Home</a> <a href='/r/bikes'>Bikes</a></nav>"
        f"<div class='sitetable'>{inner}</div><footer>About us</footer></body></html>"
    )


def test_the_family_is_its_outermost_members() -> None:
    tree = html_tree.parse(thread(5), url=URL)
    blocks = repeated_blocks(tree)
    # every "thing" nests in the first one, so that family is one block; the "entry" family holds the posts
    # (their "md" bodies hold fewer words: no author line)
    assert [block.get("class") for block in blocks] == ["entry"] * 5


def test_a_short_extraction_inside_the_blocks_is_rescued_in_faithful_markdown() -> None:
    tree = html_tree.parse(thread(8), url=URL)
    markdown = rescue_text(tree, "Reply 0: I would pick a coil fork", "markdown", URL)
    assert "[the fork guide](https://board.example/wiki/forks)" in markdown  # links survive, made absolute
    assert "**coil**" in markdown
    assert "- travel: 120 mm\n- weight: under 2 kg" in markdown
    assert all(f"Reply {number}:" in markdown for number in range(8))
    assert "About us" not in markdown and "Home" not in markdown
    text = rescue_text(tree, "Reply 0: I would pick a coil fork", "text", URL)
    assert "](" not in text and "**" not in text and "Reply 7:" in text


def test_no_rescue_when_the_blocks_do_not_hold_what_trafilatura_kept() -> None:
    tree = html_tree.parse(thread(8), url=URL)
    # a story trafilatura found elsewhere on the page: the comment family must not replace it
    assert rescue_text(tree, "The council approved the new cycle lanes on Tuesday evening", "text", URL) == ""


def test_no_rescue_when_the_blocks_add_little() -> None:
    tree = html_tree.parse(thread(8), url=URL)
    everything = html_tree.visible_text(tree)
    assert len(everything.split()) < RESCUE_GAIN * len(everything.split())
    assert rescue_text(tree, everything, "text", URL) == ""
