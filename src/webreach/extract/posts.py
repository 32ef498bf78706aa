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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webreach.extract import html_tree
from webreach.extract.element_markdown import to_markdown
from webreach.extract.extracted import PARAGRAPH_BREAK, paragraphs_html
from webreach.models import ReadFormat

MIN_POSTS = 2
MIN_SHARE = 0.4  # tune half: 0.4 scored 0.881, 0.6 0.857, 0.8 0.856 on the forum pages that have the markup
POST_ITEMS = ("Comment", "Answer", "Question", "DiscussionForumPosting", "SocialMediaPosting")
# on a Q&A page the question and its answers are the content; the Comment items under them are side remarks
QA_ITEMS = frozenset({"Question", "Answer"})
POST_BODIES = "//*[@itemprop='text' or @itemprop='articleBody']"
AUTHOR_NAMES = (
    ".//*[@itemprop='author']//*[@itemprop='name']/text() | .//*[@itemprop='author'][not(*)]/text()"
    " | .//*[@itemprop='author']//@content | .//*[@itemprop='author']/@content"
)


@dataclass(frozen=True)
class Post:
    """One post: who wrote it (empty when the markup does not say) and its text."""

    author: str
    text: str
    body: Any  # the post's element, rendered again for markdown


def thread_posts(tree: Any) -> list[Post]:
    """The posts the page's microdata declares, in page order; [] when it declares fewer than MIN_POSTS."""
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
        text = _stated_text(body, title) if body.tag == "meta" else html_tree.visible_text(body)
        if text:
            posts.append(Post(_author(_post_item(body)), text, body))
    return posts if len(posts) >= MIN_POSTS else []


def _stated_text(meta: Any, title: str) -> str:
    """The text a <meta> body states in its content, or "" when the page's title holds it."""
    text = html_tree.tidy(str(meta.get("content") or ""))
    return "" if " ".join(text.split()) in title else text


def _post_item(body: Any) -> Any:
    """The item `body` belongs to (its nearest ancestor with an itemtype), or None."""
    return next((parent for parent in body.iterancestors() if parent.get("itemtype") is not None), None)


def _item_type(body: Any) -> str:
    """The schema.org type of the item `body` belongs to ("" when none)."""
    item = _post_item(body)
    return "" if item is None else str(item.get("itemtype")).rstrip("/").rsplit("/", 1)[-1]


def _author(item: Any) -> str:
    names = [" ".join(str(name).split()) for name in item.xpath(AUTHOR_NAMES)]
    return next((name for name in names if name), "")


def render_thread(posts: list[Post], format: ReadFormat, base_url: str = "") -> str:
    """The posts one after another, each opened by its author line (bold in markdown)."""
    parts = []
    for post in posts:
        markdown = format == "markdown"
        author = f"**{post.author}**" if post.author and markdown else post.author
        shown = markdown and post.body.tag != "meta"  # a stated body has no markup to render
        text = to_markdown(post.body, base_url) if shown else post.text
        parts.append(f"{author}{PARAGRAPH_BREAK}{text}" if author else text)
    text = PARAGRAPH_BREAK.join(parts)
    return paragraphs_html(text) if format == "html" else text


def worth_keeping(thread: str, extracted: str) -> bool:
    """Whether the posts are the page's content rather than a side widget (see the module docstring)."""
    return len(thread.split()) >= MIN_SHARE * len(extracted.split())
