"""Thread posts from microdata (extract/readings/posts.py): authors, and the opening post a page declares in JSON-LD."""

from __future__ import annotations

import json

from webreach.extract.cascade import extract
from webreach.extract.preparation import html_tree
from webreach.extract.readings.posts import render_thread, thread_posts

OPENING = "Hey all, I just got a 50 gallon tank for free and I am planning a fish only tank with a canister filter."


def xenforo_post(author: str, words: str, *, marked: bool = True) -> str:
    """A XenForo 2 post: the author item states the profile URL before the name; the opening post's body carries
    no itemprop="text" (its text is in the thread's JSON-LD)."""
    body = f"<div itemprop='text'>{words}</div>" if marked else f"<div>{words}</div>"
    return (
        "<article class='message' itemscope itemtype='https://schema.org/Comment'>"
        "<div itemprop='author' itemscope itemtype='https://schema.org/Person'>"
        f"<meta itemprop='url' content='https://forums.example/members/{author.lower()}.1/'>"
        f"<h4><a itemprop='name'>{author}</a></h4></div>{body}</article>"
    )


def xenforo_thread(ld: dict[str, object] | None) -> bytes:
    replies = "".join(
        xenforo_post(name, f"{name} says: a 50 gallon tank is a little small for a flame angel, go for it.")
        for name in ("Reefing102", "Dbroncos", "Griss")
    )
    script = f"<script type='application/ld+json'>{json.dumps(ld)}</script>" if ld else ""
    return (
        f"<html><head><title>New tank thoughts | Reef Central</title>{script}</head><body>"
        f"{xenforo_post('Bagabaga', OPENING, marked=False)}{replies}</body></html>"
    ).encode()


THREAD_LD = {
    "@context": "https://schema.org",
    "@type": "WebPage",
    "mainEntity": {
        "@type": "DiscussionForumPosting",
        "headline": "New tank thoughts",
        "author": {"@type": "Person", "name": "Bagabaga", "url": "https://forums.example/members/bagabaga.328777/"},
        "text": OPENING,
    },
}
URL = "https://forums.example/threads/new-tank-thoughts.32375893/"


def test_an_author_line_is_the_name_not_the_profile_url() -> None:
    posts = thread_posts(html_tree.parse(xenforo_thread(None).decode()))
    assert [post.author for post in posts] == ["Reefing102", "Dbroncos", "Griss"]


def test_an_author_line_says_when_the_post_was_written_as_the_page_shows_it() -> None:
    dated = xenforo_thread(None).replace(
        b"<h4><a itemprop='name'>Dbroncos</a></h4></div>",
        b"<h4><a itemprop='name'>Dbroncos</a></h4></div>"
        b"<time itemprop='datePublished' datetime='2024-03-06T11:53:36+0000'>Mar 6, 2024</time>",
    )
    relative = dated.replace(b"Mar 6, 2024</time>", b"2 years ago</time>")
    posts = thread_posts(html_tree.parse(dated.decode()))
    assert [post.date for post in posts] == ["", "Mar 6, 2024", ""]
    assert "Dbroncos · Mar 6, 2024\n\nDbroncos says:" in render_thread(posts, "text")
    assert "**Dbroncos** · Mar 6, 2024" in render_thread(posts, "markdown")
    assert [post.date for post in thread_posts(html_tree.parse(relative.decode()))] == ["", "", ""]


def test_a_comments_date_is_not_its_answers() -> None:
    answer = (
        "<div itemscope itemtype='https://schema.org/Answer'><div itemprop='text'>Use a backup, RAID is not one."
        "</div><div itemscope itemtype='https://schema.org/Comment'><span itemprop='text'>Agreed.</span>"
        "<time itemprop='dateCreated'>May 2, 2009</time></div></div>"
    )
    question = "<div itemscope itemtype='https://schema.org/Question'><div itemprop='text'>Why not RAID?</div></div>"
    posts = thread_posts(html_tree.parse(f"<html><body>{question}{answer}</body></html>"))
    assert [post.date for post in posts] == ["", ""]


def test_the_opening_post_declared_in_json_ld_comes_first() -> None:
    read = extract(xenforo_thread(THREAD_LD), content_type="text/html", url=URL, format="text")
    assert read.extractor == "microdata-posts"
    assert read.text.startswith(f"Bagabaga\n\n{OPENING}")
    assert read.text.count("a 50 gallon tank for free") == 1
    markdown = extract(xenforo_thread(THREAD_LD), content_type="text/html", url=URL, format="markdown").text
    assert markdown.startswith(f"**Bagabaga**\n\n{OPENING}")


def test_an_opening_post_the_markup_shows_is_not_read_twice() -> None:
    page = xenforo_thread(THREAD_LD).replace(
        f"<div>{OPENING}</div>".encode(), f"<div itemprop='text'>{OPENING}</div>".encode()
    )
    posts = thread_posts(html_tree.parse(page.decode()))
    assert [post.author for post in posts] == ["Bagabaga", "Reefing102", "Dbroncos", "Griss"]
    assert render_thread(posts, "text").count("a 50 gallon tank for free") == 1


def test_a_declaration_without_text_or_of_another_type_adds_nothing() -> None:
    untold = {**THREAD_LD, "mainEntity": {**THREAD_LD["mainEntity"], "text": "  "}}  # type: ignore[dict-item]
    article = {"@type": "NewsArticle", "text": OPENING, "author": "Bagabaga"}
    for ld in (untold, article):
        posts = thread_posts(html_tree.parse(xenforo_thread(ld).decode()))
        assert [post.author for post in posts] == ["Reefing102", "Dbroncos", "Griss"]


def test_a_posts_own_author_comes_before_its_commenters() -> None:
    # a Stack Exchange answer: its author's name stated in a meta, a comment under it with a shown name
    answer = (
        "<div itemscope itemtype='https://schema.org/Answer'><div itemprop='text'>Use a backup, RAID is not one."
        "</div><div itemprop='author' itemscope itemtype='https://schema.org/Person'>"
        "<meta itemprop='name' content='Kevin Dente'></div>"
        "<div itemscope itemtype='https://schema.org/Comment'><span itemprop='author' itemscope "
        "itemtype='https://schema.org/Person'><a itemprop='name'>jldugger</a></span></div></div>"
    )
    question = (
        "<div itemscope itemtype='https://schema.org/Question'><div itemprop='text'>Why is RAID not a backup?</div>"
        "<div itemprop='author' itemscope itemtype='https://schema.org/Person'><a itemprop='name'>Asker</a></div></div>"
    )
    posts = thread_posts(html_tree.parse(f"<html><body>{question}{answer}</body></html>"))
    assert [post.author for post in posts] == ["Asker", "Kevin Dente"]


def test_a_reply_that_quotes_the_opening_post_does_not_stand_for_it() -> None:
    quoting = xenforo_post("Phinds", f"Bagabaga said: {OPENING} No, far too small.")
    page = xenforo_thread(THREAD_LD).replace(
        b"<article class='message'", quoting.encode() + b"<article class='message'", 1
    )
    posts = thread_posts(html_tree.parse(page.decode()))
    assert [post.author for post in posts][:2] == ["Bagabaga", "Phinds"]


def invision_thread(comments: int) -> bytes:
    """An Invision Community topic: no post microdata; the JSON-LD states the topic and its comments."""
    ld = {
        "@context": "https://schema.org",
        "@type": "DiscussionForumPosting",
        "headline": "If the forum comes to an end soon.",
        "text": "A thread to express your appreciation to Moderators and Members alike.\n \n\n\tThank you all.",
        "author": {"@type": "Person", "name": "ColdJ"},
        "comment": [
            {"@type": "Comment", "author": {"@type": "Person", "name": f"member{n}"}, "text": f"Reply {n}: thanks!"}
            if n
            else {
                "@type": "Comment",
                "author": {"name": "member0"},
                "text": "Reply 0: B&amp;H has it <b>in stock</b>.<br>Ask for Sam.",
            }
            for n in range(comments)
        ],
    }
    teaser = "<div class='ipsType_richText'>A thread to express your appreciation</div>"
    return (
        f"<html><head><script type='application/ld+json'>{json.dumps(ld)}</script></head><body>"
        f"<h1>If the forum comes to an end soon.</h1>{teaser}</body></html>"
    ).encode()


def test_a_thread_declared_only_in_json_ld_is_read_post_by_post() -> None:
    posts = thread_posts(html_tree.parse(invision_thread(3).decode()))
    assert [post.author for post in posts] == ["ColdJ", "member0", "member1", "member2"]
    assert posts[0].text == "A thread to express your appreciation to Moderators and Members alike.\n\nThank you all."
    read = extract(
        invision_thread(3), content_type="text/html", url="https://forum.example/topic/225132-end/", format="text"
    )
    assert read.extractor == "microdata-posts" and "member2\n\nReply 2: thanks!" in read.text
    assert (
        "Reply 0: B&H has it in stock.\nAsk for Sam." in read.text
        and "&amp;" not in read.text
        and "<b>" not in read.text
    )


def test_an_opening_post_alone_is_no_thread() -> None:
    assert thread_posts(html_tree.parse(invision_thread(0).decode())) == []
