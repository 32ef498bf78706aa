"""The page's largest family of repeated blocks: the elements that share one tag and class, wherever they sit.

A thread's posts, a feed's entries and a catalogue's items are rendered by one template, so they share a tag and a
class even when they are not siblings (old Reddit nests replies in replies; some boards wrap each post in its own
table). When trafilatura keeps a small part of such a page (a vote bar, a heading, a cookie notice) the family
holding the most words is a better reading: the cascade takes it when it holds RESCUE_GAIN times more words than
trafilatura's text and MIN_COVER of them (the blocks extend what trafilatura found: a story's comment section,
which does not hold the story, never replaces it). Product pages never take it: their repeated blocks are
recommendations. A forum thread takes its posts at FORUM_GAIN, however long trafilatura's text: there the posts
are the content, and trafilatura keeping the opening post alone is the failure being mended.

A family counts when it has MIN_BLOCKS or more outermost members (a member nested in another of the same family is
part of it), a median of MIN_BLOCK_WORDS words or more, and sits outside navigation, headers, footers and consent
boxes (card_grid.py's furniture). One pass over the tree.

The blocks are read less their template's controls: a link or button of at most CONTROL_WORDS words, standing alone
in its parent, whose tag, class and text recur in TEMPLATE_SHARE of the blocks or more (old Reddit's "permalink
embed save report reply" under every comment). An author's name recurs only in the posts that author wrote. WCXB dev
forums, tune / check: 0.8202 / 0.7997 -> 0.8215 / 0.7998 (old Reddit 0.72 -> 0.78, MyBB's community forum 0.860 ->
0.865); no other page moves.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass

from webreach.extract.extracted import content_words, word_bag
from webreach.extract.preparation import html_tree, tags
from webreach.extract.readings.card_grid import FURNITURE_TAGS, in_furniture, render_cards, word_count
from webreach.extract.tree import Element
from webreach.models import ReadFormat

MIN_BLOCKS = 3
MIN_BLOCK_WORDS = 8
RESCUE_GAIN = 6.0  # tune half: 4 also rescued two articles, but took three AEB stories with their neighbours
MAX_WORDS = 800  # trafilatura texts longer than this were never rescued on the tune half: skip the tree pass
MIN_COVER = 0.9  # share of trafilatura's words the blocks must hold: they extend what it found, not replace it
# tune half: a Flarum thread read as its opening post (1,060 of 4,169 words) 0.40 -> 1.00, forums 0.782 -> 0.795;
# 3 and 4 the same, at 2 two threads took their posts' signatures and user cards, at 6 nothing moved; the check
# half had no such thread (unchanged)
FORUM_GAIN = 3.0
CONTROL_TAGS = ("a", "button")
CONTROL_WORDS = 3
TEMPLATE_SHARE = 0.8


@dataclass(frozen=True)
class Rescue:
    """When the blocks replace trafilatura's text: they hold `gain` times its words, and it is at most
    `max_words` long (None: any length)."""

    gain: float = RESCUE_GAIN
    max_words: int | None = MAX_WORDS
    # a page whose visible text is under `gain` times the reading cannot hold such a family: a cheap bound before
    # the tree pass, but forums may keep their posts in <noscript>, which that size leaves out (a Flarum thread)
    bound_by_visible_size: bool = True


PAGE_RESCUE = Rescue()
FORUM_RESCUE = Rescue(FORUM_GAIN, max_words=None, bound_by_visible_size=False)


def repeated_blocks(tree: Element) -> list[Element]:
    """The outermost members of the tag-and-class family with the most words ([] when no family qualifies)."""
    families: dict[tuple[str, str], list[Element]] = defaultdict(list)
    for element in tags.body_of(tree).iter():
        tag = element.tag
        if isinstance(tag, str) and (name := element.get("class")):
            families[(tag, name)].append(element)
    best: list[Element] = []
    best_words = 0
    for (tag, _), members in families.items():
        if len(members) < MIN_BLOCKS or tag in tags.HIDDEN_TAGS or tag in FURNITURE_TAGS:
            continue
        family = set(members)
        outer = [member for member in members if not any(up in family for up in member.iterancestors())]
        if len(outer) < MIN_BLOCKS:
            continue
        counts = [word_count(member) for member in outer]
        if statistics.median(counts) < MIN_BLOCK_WORDS or sum(counts) <= best_words or in_furniture(outer[0]):
            continue
        best, best_words = outer, sum(counts)
    return best


def rescue_text(
    tree: Element, extracted: str, format: ReadFormat, base_url: str = "", rule: Rescue = PAGE_RESCUE
) -> str:
    """The repeated blocks' text when they hold `rule.gain` times the words of `extracted` (trafilatura's text)
    and MIN_COVER of those words, else ""."""
    # cheap bounds first: a long extraction is trusted, and a page with too little text cannot hold such a family
    seen = content_words(extracted, up_to=rule.max_words)
    if seen == 0 or (rule.max_words is not None and seen > rule.max_words):
        return ""
    found = word_bag(extracted)  # the same decision for every format
    words = sum(found.values())
    if rule.bound_by_visible_size and html_tree.text_size(tree) < rule.gain * len(" ".join(found.elements())):
        return ""
    blocks = repeated_blocks(tree)
    if sum(word_count(block) for block in blocks) <= rule.gain * words:
        return ""
    held = word_bag(" ".join(html_tree.visible_text(block) for block in blocks))
    if sum(held.values()) <= rule.gain * words or sum((held & found).values()) < MIN_COVER * words:
        return ""
    controls = template_controls(blocks)
    return render_cards(
        blocks, format, base_url, skip=(lambda element: _control(element) in controls) if controls else None
    )


def template_controls(blocks: list[Element]) -> set[tuple[str, str, str]]:
    """The (tag, class, text) of the short links and buttons that recur in TEMPLATE_SHARE of `blocks` (not list items:
    a spec line each card repeats is content)."""
    recurrences: dict[tuple[str, str, str], int] = defaultdict(int)
    for block in blocks:
        for control in {key for element in block.iter(*CONTROL_TAGS) if (key := _control(element))}:
            recurrences[control] += 1
    enough = max(MIN_BLOCKS, TEMPLATE_SHARE * len(blocks))
    return {control for control, count in recurrences.items() if count >= enough}


def _control(element: Element) -> tuple[str, str, str] | None:
    """An element's (tag, class, text) when it may be a template's control (a short link or button)."""
    if element.tag not in CONTROL_TAGS or (parent := element.getparent()) is None:
        return None
    text = " ".join(element.text_content().split())
    if not text or len(text.split()) > CONTROL_WORDS or " ".join(parent.text_content().split()) != text:
        return None  # a link inside a sentence is the sentence's, however often the posts repeat it
    return element.tag, element.get("class") or "", text
