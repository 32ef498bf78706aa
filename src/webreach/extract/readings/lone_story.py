"""A story page's one story element, to be read alone when trafilatura's precise reading kept a fraction of it.

    whole_story(tree, page, kept, read) -> Story | None
    (read(document, recall): a document's reading by trafilatura, balanced or for recall)

A page that holds one story marks it: `itemprop="articleBody"` (schema.org microdata), else a single `<article>`.
trafilatura's precision mode sometimes keeps a part of it: Consumer Reports' maintenance checklist read as its
first 171 of 900 words, Harvard's Healthy Eating Plate as its introduction, a guide whose sections sit in
alternating panels as one of them. Read alone, with nothing around it to compare against, the story element gives
trafilatura no sidebar, menu or footer to mistake it for, and its balanced reading keeps the whole story.

cascade.py reads it so only on the precise path (sure articles, and pages with a sign of one), only when the
element holds wanted_words (STORY_GAIN times the words already kept, and STORY_ADDED more at least) and its
reading keeps as many. A page of several `<article>` elements is a feed, not a story, and is left alone. Read
alone, a story also gains its headline and standfirst, which precise readings leave out: on AEB a Wall Street
Journal teaser of 67 words read right would have become 106 (0.9708 -> 0.9697), hence STORY_ADDED.

Where no element holds it, the page may declare the story in JSON-LD: an Article's `articleBody`, which
publishers give search engines whole. whole_story takes it, as plain paragraphs (entities decoded, tags and
blank lines dropped), under the same wanted_words: Elle Decor's guide read as its first 442 of 1,550 words (check
half 0.38 -> 0.99), a Medicare blog's smartphone basics (tune half 0.55 -> 0.98); no other page of either half
moves, and no AEB page (tune half 0.8772 -> 0.8778, check half 0.8594 -> 0.8602).

Measured on WCXB dev (bench/extraction.py --wcxb), the element's reading taken on 5 tune and 3 check pages: tune
half 0.8752 -> 0.8772 (Consumer Reports 0.30 -> 0.98, Harvard 0.48 -> 0.92, a legal-forms index 0.72 -> 0.86, a
woodworking blog 0.78 -> 0.90), check half 0.8571 -> 0.8594 (sfist's movers guide 0.10 -> 0.96, Houstonia's
restaurants 0.26 -> 0.99, a sewing blog 0.74 -> 0.99); no page lost; AEB unchanged. STORY_GAIN 1.5 was the best
on the tune half of 1.5 and 2 for either bound (2: +0.0016). Pages with two `<article>` elements would have
gained two check pages (+0.0009) and no tune page: not taken. When the element's balanced reading misses the
story too, its reading for recall is taken if it holds RECALL_GAIN times the words kept as well: LegalZoom's guide
to forming an LLC in New York, read as 629 of its 3,391 words, balanced, page and element alike (tune half 0.30 ->
0.97, 0.8778 -> 0.8788; no check-half or AEB page moves).
"""

from __future__ import annotations

from collections.abc import Callable
from copy import deepcopy
from typing import NamedTuple

from lxml import etree, html

from webreach.extract.extracted import WORD, content_words
from webreach.extract.metadata import declared_text, script_json_ld
from webreach.extract.tree import Element

# the attribute, not every element with a predicate: libxml2 answers that several times faster
STORY_BODY = etree.XPath("//@itemprop[.='articleBody']/..")
DECLARED_BODY = "articleBody"  # as written in markup, microdata's attribute value and JSON-LD's key alike
STORY_TAG = "<article"  # an upper-case tag is missed: rare, and then the page is read as before
DECLARED = etree.XPath("//script[@type='application/ld+json'][contains(., 'articleBody')]")
STORY_GAIN = 1.5
STORY_ADDED = 100  # words: a whole story's precise reading gains its headline and standfirst read alone (~40)
ROUGHLY = 0.8  # spaces undercount words where blocks meet without one
# a reading for recall of a story element replaces a precise reading holding 1/RECALL_GAIN of its words or less:
# read for recall, a Houston Chronicle story on AEB took its related links (261 -> 454 words, F1 0.985 -> 0.718)
RECALL_GAIN = 2.0


class Story(NamedTuple):
    """A whole story: its text, and whether the page declared it (plain paragraphs) or an element held it (read)."""

    text: str
    declared: bool


def whole_story(tree: Element, page: str, kept: str, read: Callable[[Element, bool], str]) -> Story | None:
    """The page's whole story when the precise reading `kept` holds a part of it: the reading (by `read`) of its
    one story element alone, else the story it declares in JSON-LD, when that holds wanted_words; else None. `page`
    is the markup `tree` was parsed from: the tree is searched only for what the markup names (both tree queries
    on every precise page took 0.25 ms a median one; the two searches of the markup take 0.07 ms, and the whole
    stage 0.17 ms)."""
    declares = DECLARED_BODY in page
    if declares or STORY_TAG in page:
        story = lone_story(tree, declares)
        if story is not None and (reading := element_story(story, kept, read)) is not None:
            return Story(reading, declared=False)
    if declares and (declared := declared_story(tree, kept)) is not None:
        return Story(declared, declared=True)
    return None


def element_story(story: Element, kept: str, read: Callable[[Element, bool], str]) -> str | None:
    """The reading of the `story` element alone, when the element and that reading hold wanted_words: the balanced
    one, else the one for recall (when it also holds RECALL_GAIN times the words kept)."""
    story_text = story.text_content()
    if not may_hold_more(story_text, kept):
        return None
    kept_words = content_words(kept)
    wanted = wanted_words(kept_words)
    if len(WORD.findall(story_text)) < wanted:
        return None
    document = alone(story)
    reading = read(document, False)
    if content_words(reading) >= wanted:
        return reading
    # the balanced reading missed it too: the reading for recall, which keeps more around the story, must hold
    # RECALL_GAIN times what was kept
    reading = read(document, True)
    return reading if content_words(reading) >= max(wanted, round(RECALL_GAIN * kept_words)) else None


def declared_story(tree: Element, kept: str) -> str | None:
    """The longest `articleBody` the page declares in JSON-LD, as paragraphs, when it holds wanted_words."""
    bodies = [
        node["articleBody"]
        for script in DECLARED(tree)
        for node in script_json_ld(script.text or "")
        if isinstance(node.get("articleBody"), str)
    ]
    if not bodies or not may_hold_more(longest := max(bodies, key=len), kept):
        return None
    lines = (" ".join(line.split()) for line in declared_text(longest).splitlines())
    story = "\n\n".join(line for line in lines if line)
    return story if content_words(story) >= wanted_words(content_words(kept)) else None


def may_hold_more(story: str, kept: str) -> bool:
    """Whether `story` may hold wanted_words for `kept`, judged by their spaces (a word each, near enough, in text
    and markdown alike): counting words is a regular expression over both, 0.5 ms of a median article's 20, and
    nearly every story holds about what its reading kept."""
    return story.count(" ") >= ROUGHLY * wanted_words(kept.count(" "))


def lone_story(tree: Element, declares: bool = True) -> Element | None:
    """The page's one story element (its articleBody, else its only `<article>`), or None; the articleBody is
    looked for only where the markup `declares` one."""
    found = STORY_BODY(tree) if declares else []
    if not found:
        for story in tree.iter("article"):
            found.append(story)
            if len(found) > 1:
                return None  # a feed
    return found[0] if len(found) == 1 else None


def wanted_words(kept: int) -> int:
    """The words the story element, and its reading alone, must hold to replace a reading of `kept` words."""
    return max(round(STORY_GAIN * kept), kept + STORY_ADDED)


def alone(element: Element) -> Element:
    """A document of a copy of `element` alone in its body."""
    document = html.document_fromstring("<html><body></body></html>")
    document.find("body").append(deepcopy(element))
    return document
