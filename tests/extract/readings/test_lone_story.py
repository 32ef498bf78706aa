"""A story page's one story element, read alone when the precise reading kept a fraction of it."""

from __future__ import annotations

from webreach.extract.cascade import ExtractOptions, prepare, story_stage
from webreach.extract.preparation.html_tree import parse
from webreach.extract.readings.lone_story import Story, declared_story, lone_story, wanted_words, whole_story

PARAGRAPHS = "".join(
    f"<h2>Step {n}</h2><p>Check the tyre pressure and the oil level every month, and write down what you find in "
    f"the log so the next service has a record of step {n}.</p>"
    for n in range(1, 9)
)
STORY = f"<article><h1>Your car maintenance checklist</h1>{PARAGRAPHS}</article>"
URL = "https://cars.example/list"
KEPT = "Check the tyre pressure and the oil level every month."


def page(body: str) -> str:
    return f"<html><body><nav><a href='/'>Home</a></nav>{body}<footer>Contact us</footer></body></html>"


def test_a_story_read_in_part_is_read_whole_from_its_element() -> None:
    markup = page(STORY)
    text, extractor = story_stage(prepare(markup, URL, "text", ExtractOptions()), KEPT, "trafilatura")
    assert extractor == "trafilatura-story"
    assert all(f"step {n}." in text for n in range(1, 9)) and "Contact us" not in text


def test_a_reading_near_the_whole_story_stays() -> None:
    markup = page(STORY)
    tree = parse(markup)
    whole = tree.find(".//article").text_content()
    assert story_stage(prepare(markup, URL, "text", ExtractOptions()), whole, "trafilatura") == (
        whole,
        "trafilatura",
    )
    assert wanted_words(10) == 110 and wanted_words(400) == 600  # a headline and standfirst are not a missed story


def test_a_story_its_balanced_reading_misses_too_is_read_for_recall() -> None:
    markup = page(STORY)
    tree = parse(markup)
    whole = tree.find(".//article").text_content()
    asked: list[bool] = []

    def read(document: object, recall: bool) -> str:
        asked.append(recall)
        return whole if recall else KEPT

    assert whole_story(tree, markup, KEPT, read) == Story(whole, declared=False)
    assert asked == [False, True]


def test_a_reading_for_recall_must_hold_twice_the_words_kept() -> None:
    markup = page(f"<article>{PARAGRAPHS * 4}</article>")  # 32 paragraphs, about 900 words
    tree = parse(markup)
    kept = " ".join(["word"] * 200)
    for words, taken in ((360, False), (420, True)):  # both over wanted_words(200) = 300, one under twice 200
        reading = " ".join(["story"] * words)
        story = whole_story(tree, markup, kept, lambda document, recall, reading=reading: reading if recall else kept)
        assert (story is not None) is taken


def test_a_feed_of_articles_has_no_lone_story_and_article_body_wins() -> None:
    assert lone_story(parse(page(STORY + STORY))) is None
    tree = parse(page(f"<article><div itemprop='articleBody'>{PARAGRAPHS}</div><p>Share</p></article>{STORY}"))
    story = lone_story(tree)
    assert story is not None and story.get("itemprop") == "articleBody"


def test_a_declared_story_replaces_a_reading_of_part_of_it() -> None:
    body = "\\n \\n".join(
        f"Step {n}: check the tyre pressure and the oil level, and log it &amp; date it." for n in range(30)
    )
    script = f'<script type="application/ld+json">{{"@type": "Article", "articleBody": "<p>{body}</p>"}}</script>'
    markup = page(f"{script}<div><p>{KEPT}</p></div>")
    tree = parse(markup)
    assert lone_story(tree) is None
    text, extractor = story_stage(prepare(markup, URL, "text", ExtractOptions()), KEPT, "trafilatura")
    assert extractor == "json-ld-story"
    assert text.split("\n\n")[29] == "Step 29: check the tyre pressure and the oil level, and log it & date it."
    assert declared_story(tree, text) is None  # the whole story kept: nothing to replace
    invalid = page('<script type="application/ld+json">{"articleBody": </script>')
    assert declared_story(parse(invalid), KEPT) is None
