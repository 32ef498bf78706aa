"""The author details phpBB puts beside every post, taken out of a parsed page: they describe the poster, not the
thread.

    has_post_profiles(markup) -> bool        remove_post_profile_details(tree) -> None

phpBB's templates (prosilver and the styles built on it) open each post with a `<dl class="postprofile">`: the
author's name and avatar in its `<dt>`, then a `<dd>` each for rank, post count, join date, location, operating
system and contact links. A thread of twenty posts repeats those lines twenty times, and trafilatura reads them as
the thread's text (forums.virtualbox.org: "Posts: 1725", "Joined: 14. Sep 2019, 16:51", "Location: United Kingdom"
under every reply). The `<dd>` details go; the `<dt>`, which names who wrote the post, stays. WCXB dev forums, tune
half 0.8188 -> 0.8202 (VirtualBox's forum 0.76 -> 0.83), check half 0.7988 -> 0.7997 (the Raspberry Pi forum
0.75 -> 0.79, Bogleheads and NationStates +0.01 each); no other page moves. Other forum software's author
panels were measured and left: XenForo's `message-userExtras` moved one tune page by +0.005 and cost the check
half 0.05 (docs/decisions.md).
"""

from __future__ import annotations

from lxml import etree

from webreach.extract.tree import Element

MARKUP_HINT = b"postprofile"
DETAILS = etree.XPath("//dl[contains(concat(' ', normalize-space(@class), ' '), ' postprofile ')]/dd")


def has_post_profiles(markup: bytes) -> bool:
    """Whether the page's UTF-8 `markup` may hold phpBB post profiles (then remove_post_profile_details)."""
    return MARKUP_HINT in markup


def remove_post_profile_details(tree: Element) -> None:
    """Remove every phpBB post profile's details (its `<dd>` elements), in place, their tails kept."""
    for detail in DETAILS(tree):
        detail.drop_tree()
