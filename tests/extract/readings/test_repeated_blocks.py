"""The repeated-block rescue: the largest tag-and-class family, its outermost members, and when it replaces
trafilatura's text (it must hold several times the words and nearly all of those trafilatura kept)."""

from __future__ import annotations

from webreach.extract.preparation import html_tree
from webreach.extract.readings.repeated_blocks import FORUM_RESCUE, MAX_WORDS, RESCUE_GAIN, repeated_blocks, rescue_text

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


SENTENCE = "The discussion engine could offer its own layout for each type of thread people start. "


def flarum_thread(posts: int) -> str:
    """A thread as Flarum serves it to readers without scripts: every post inside <noscript>, each long."""
    items = "".join(
        f'<li><article class="Post"><h3 class="PostUser-name">member{number}</h3><div class="Post-body">'
        f"<p>Post {number} opens.</p>{f'<p>{SENTENCE * 6}</p>' * 10}</div></article></li>"
        for number in range(posts)
    )
    return f"<html><body><div id='app'></div><noscript><ul>{items}</ul></noscript></body></html>"


def test_a_thread_read_as_its_long_opening_post_takes_every_post() -> None:
    tree = html_tree.parse(flarum_thread(4), url=URL)
    opening = html_tree.visible_text(repeated_blocks(tree)[0])
    assert len(opening.split()) > MAX_WORDS
    # the general rule trusts a long reading and wants six times its words; a forum's posts are its content
    assert rescue_text(tree, opening, "text", URL) == ""
    thread = rescue_text(tree, opening, "text", URL, FORUM_RESCUE)
    assert all(f"member{number}" in thread and f"Post {number} opens." in thread for number in range(4))


def test_a_reading_of_half_the_thread_is_kept_at_the_forum_gain() -> None:
    tree = html_tree.parse(flarum_thread(4), url=URL)
    half = "\n".join(html_tree.visible_text(post) for post in repeated_blocks(tree)[:2])
    assert rescue_text(tree, half, "text", URL, FORUM_RESCUE) == ""  # the posts hold 2x its words, not 3x


def test_the_templates_controls_are_left_out_and_the_authors_kept() -> None:
    # every comment ends with old Reddit's standalone action links; one rider wrote two of the five replies
    actions = "<ul class='buttons'><li><a href='/p/{0}'>permalink</a></li><li><a href='/s/{0}'>save</a></li></ul>"
    authors = ["rider0", "rider1", "rider0", "rider3", "rider4"]
    replies = "".join(
        f"<div class='entry'><p class='tagline'><a href='/u/{who}'>{who}</a></p><div class='md'><p>Reply {number}: "
        f"I would pick a coil fork for rough trails, <a href='/wiki/forks'>the fork guide</a> says why.</p></div>"
        f"{actions.format(number)}</div>"
        for number, who in enumerate(authors)
    )
    tree = html_tree.parse(f"<html><body><div class='sitetable'>{replies}</div></body></html>", url=URL)
    text = rescue_text(tree, "Reply 0: I would pick a coil fork", "text", URL)
    assert all(f"Reply {number}:" in text for number in range(5))
    assert "permalink" not in text and "save" not in text
    assert text.count("rider0") == 2 and "rider4" in text
    assert text.count("the fork guide") == 5  # a link inside a sentence is the sentence's
