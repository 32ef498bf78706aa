"""Every post of a forum thread or Q&A page, with its author line, from the schema.org microdata the page declares.

Forum software (XenForo, vBulletin, Discourse, NodeBB, Stack Exchange ...) marks each post as a Comment, Answer,
Question or DiscussionForumPosting item whose body is `itemprop="text"` (or articleBody) and whose author is
`itemprop="author"`. trafilatura reads a thread as an article and keeps the opening post and a few replies at
best; the markup names every post. On WCXB's tune half, forum pages with such markup scored word F1 0.76 with
trafilatura (comments kept) and 0.88 with these posts (bench/extraction.py --wcxb).

The caller still extracts with trafilatura and keeps the posts only when they hold at least MIN_SHARE of
trafilatura's words: review widgets and article comment sections use the same markup, and there the posts are
a small part of the page, not its content.

A post's body may be a `<meta itemprop="text" content="...">`, microdata's way to give a value the markup does not
show as such: Nairaland states its opening post that way (the shown copy carries no itemprop), and NodeBB its topic's
title. The content is read as the post's text unless the page's <title> holds it (a headline, not a post). On the
WCXB tune half a Nairaland thread 0.83 -> 0.96 and three NodeBB threads are unchanged; no check-half page has one.

XenForo 2 marks every reply's body but not the opening post's: the thread's JSON-LD states it, as the text of the
DiscussionForumPosting that is the page's main entity. That post is put first (with the declared author) unless a
post the markup shows already opens with its words (Discourse marks both). And an author line is the author's name,
never another property's content: XenForo states the profile URL first, and it was read as the author. WCXB dev
forums, tune / check half: 0.8049 / 0.7877 -> 0.8098 / 0.7930 with the names, 0.8127 / 0.7960 with the opening
posts too (a Reef Central thread 0.84 -> 0.98, an ALS forum thread 0.77 -> 0.99).

Invision Community marks no post at all, and states the page's thread in JSON-LD: the DiscussionForumPosting's text
and a Comment item (author, text) per reply. When the markup marks no posts, those are the thread. Forums, tune /
check half 0.8127 / 0.7960 -> 0.8188 / 0.7988 (Linus Tech Tips 0.61 -> 0.75, the Leica forum 0.88 -> 0.98, Cruise
Critic 0.68 -> 0.76; Kerbal Space Program's 0.82 -> 0.83, its replies quote earlier posts that are read once);
no page fell. A thread whose opening post is stated in JSON-LD and quoted at the start of the first reply loses
0.015 (head-fi): the quote is no copy of the post, and the post is read.

An author line says when the post was written too, as the post shows it ("Bagabaga · Mar 6, 2024"): an agent
weighing replies needs their age. Only a shown date that names a year: a relative one ("14 years, 10 months ago",
Stack Exchange) was true the day the page was saved, and an ISO date from the markup's attributes is not what a
reader sees (WCXB's truths hold the shown dates on some forums and none on others). Forums, tune / check half
0.8217 / 0.8000 -> 0.8221 / 0.8072: 23 Discourse and XenForo threads up 0.005-0.04 each, and on the check half a
student forum whose posts now outweigh trafilatura's reading, 0.58 -> 0.94; 13 threads whose truth leaves the
dates out down 0.01-0.05.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

from lxml import etree

from webreach.extract.extracted import PARAGRAPH_BREAK, paragraphs_html
from webreach.extract.metadata import JsonLd, json_ld_person, json_ld_types, page_json_ld
from webreach.extract.preparation import html_tree
from webreach.extract.readings.element_markdown import to_markdown
from webreach.extract.tree import Element
from webreach.models import ReadFormat

MIN_POSTS = 2
MIN_SHARE = 0.4  # tune half: 0.4 scored 0.881, 0.6 0.857, 0.8 0.856 on the forum pages that have the markup
POST_ITEMS = ("Comment", "Answer", "Question", "DiscussionForumPosting", "SocialMediaPosting")
# on a Q&A page the question and its answers are the content; the Comment items under them are side remarks
QA_ITEMS = frozenset({"Question", "Answer"})
POST_BODIES = "//*[@itemprop='text' or @itemprop='articleBody']"
# an author's name: an item's name (shown, or stated in a meta), the author element's own text or content, the
# first in page order (a post's author comes before its comments'); never another property's content (XenForo
# states the profile URL before the name)
AUTHOR_NAMES = (
    ".//*[@itemprop='author']//*[@itemprop='name']/text() | .//*[@itemprop='author']//*[@itemprop='name']/@content"
    " | .//*[@itemprop='author'][not(*)]/text() | .//*[@itemprop='author']/@content"
)
# when a post was written, as its item shows it: the date element that belongs to the post's own item (not to a
# comment under it), read only when it names a year ("Jul 9, 2022", not "14 years, 10 months ago", which was true
# when the page was saved)
POST_DATES = etree.XPath(
    ".//*[@itemprop='datePublished' or @itemprop='dateCreated'][count(ancestor::*[@itemtype]) = $depth]"
)
ITEM_DEPTH = etree.XPath("count(ancestor-or-self::*[@itemtype])")  # the items an element sits in, itself included
YEAR = re.compile(r"\b(?:19|20)\d\d\b")
OPENING_WORDS = 12  # the words of a declared opening post looked for in the posts the markup shows
LINE_TAG = re.compile(r"<(?:br|/?p|/?div|/?li)\b[^>]*>", re.IGNORECASE)  # a tag that ends a line, in a stated text
TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class Post:
    """One post: who wrote it (empty when the markup does not say) and its text."""

    author: str
    text: str
    body: Element | None  # the post's element, rendered again for markdown; None for a post stated, not shown
    opening: bool = False  # the thread's opening post, as the page's JSON-LD declares it
    date: str = ""  # when it was written, as the page shows it ("" when it does not)


def thread_posts(tree: Element, json_ld: JsonLd | None = None) -> list[Post]:
    """The posts of the thread, in page order: those the microdata marks, the opening post first when only the
    JSON-LD states it; the posts the JSON-LD declares when the markup marks none. [] when fewer than MIN_POSTS.
    `json_ld` is the page's page_json_ld when the caller has read it already."""
    posts = marked_posts(tree)
    declared = declared_posts(page_json_ld(tree) if json_ld is None else json_ld)
    if not posts:
        posts = declared
    elif declared and declared[0].opening and not _shown_already(declared[0].text, posts[0]):
        posts.insert(0, declared[0])
    return posts if len(posts) >= MIN_POSTS else []


def marked_posts(tree: Element) -> list[Post]:
    """The posts the page's microdata marks, in page order."""
    items = [(body, _item_type(body)) for body in tree.xpath(POST_BODIES)]
    items = [(body, kind) for body, kind in items if kind in POST_ITEMS]
    if any(kind in QA_ITEMS for _, kind in items):
        items = [(body, kind) for body, kind in items if kind in QA_ITEMS]
    bodies = [body for body, _ in items]
    chosen = set(bodies)
    # a quoted post nested in another's body is part of that body, not a post of its own
    outermost = [body for body in bodies if not any(parent in chosen for parent in body.iterancestors())]
    posts = []
    title = html_tree.title_tag(tree) or ""
    for body in outermost:
        stated = body.tag == "meta"  # a value the markup states, not shows: no element to render
        text = _stated_text(body, title) if stated else html_tree.visible_text(body)
        item = _post_item(body)
        posts.append(Post(_author(item), text, None if stated else body, date=_shown_date(item)))
    return [post for post in posts if post.text]


def declared_posts(json_ld: JsonLd) -> list[Post]:
    """The thread a page's JSON-LD objects declare: the first DiscussionForumPosting (a node of its own or the
    page's main entity) with a text or Comment items, as its opening post and its comments, each with its author."""
    for node in json_ld:
        for thread in (node, *_entities(node.get("mainEntity"))):
            if "DiscussionForumPosting" not in json_ld_types(thread):
                continue
            opening = [_declared_post(thread, opening=True)]
            comments = [_declared_post(item) for item in _entities(thread.get("comment"))]
            if posts := [post for post in opening + comments if post.text]:
                return posts
    return []


def _declared_post(item: dict[str, Any], opening: bool = False) -> Post:
    """A JSON-LD post's author and text, as a reader would see the text: Invision escapes its entities ("B&amp;H"),
    and a tag some site leaves in is dropped (one that ends a line ends it)."""
    text = item.get("text")
    said = html_tree.tidy(html.unescape(TAG.sub("", LINE_TAG.sub("\n", text)))) if isinstance(text, str) else ""
    return Post(json_ld_person(item.get("author")) or "", said, None, opening=opening)


def _entities(value: Any) -> list[dict[str, Any]]:
    values = value if isinstance(value, list) else [value]
    return [entity for entity in values if isinstance(entity, dict)]


def _shown_already(text: str, first: Post) -> bool:
    """Whether the thread's first shown post opens with the first words of `text` (a reply that opens by quoting
    the opening post is no copy of it: on WCXB dev no page shows the opening post and states it too)."""
    return " ".join(first.text.split()).startswith(" ".join(text.split()[:OPENING_WORDS]))


def _stated_text(meta: Element, title: str) -> str:
    """The text a <meta> body states in its content, or "" when the page's title holds it."""
    text = html_tree.tidy(str(meta.get("content") or ""))
    return "" if " ".join(text.split()) in title else text


def _post_item(body: Element) -> Element | None:
    """The item `body` belongs to (its nearest ancestor with an itemtype), or None."""
    return next((parent for parent in body.iterancestors() if parent.get("itemtype") is not None), None)


def _item_type(body: Element) -> str:
    """The schema.org type of the item `body` belongs to ("" when none)."""
    item = _post_item(body)
    return "" if item is None else str(item.get("itemtype")).rstrip("/").rsplit("/", 1)[-1]


def _author(item: Any) -> str:
    names = [" ".join(str(name).split()) for name in item.xpath(AUTHOR_NAMES)]
    return next((name for name in names if name), "")


def _shown_date(item: Any) -> str:
    """The date the post `item` shows for itself, when it names a year; "" otherwise (see POST_DATES)."""
    for element in POST_DATES(item, depth=ITEM_DEPTH(item)):  # the item's own dates, not those of items in it
        if YEAR.search(shown := " ".join(element.text_content().split())):
            return shown
    return ""


def render_thread(posts: list[Post], format: ReadFormat, base_url: str = "") -> str:
    """The posts one after another, each opened by its author line: the author (bold in markdown) and the date."""
    parts = []
    for post in posts:
        markdown = format == "markdown"
        author = f"**{post.author}**" if post.author and markdown else post.author
        author = " · ".join(part for part in (author, post.date) if part)
        shown = markdown and post.body is not None  # a stated post has no markup to render
        text = to_markdown(post.body, base_url) if shown else post.text
        parts.append(f"{author}{PARAGRAPH_BREAK}{text}" if author else text)
    text = PARAGRAPH_BREAK.join(parts)
    return paragraphs_html(text) if format == "html" else text


def worth_keeping(thread: str, extracted: str) -> bool:
    """Whether the posts are the page's content rather than a side widget (see the module docstring)."""
    return len(thread.split()) >= MIN_SHARE * len(extracted.split())
