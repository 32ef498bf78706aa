"""The compact rendering of a page read for a question: anchors, heading paths, and the read-more line."""

from __future__ import annotations

from webreach.models import Page, PagePassage
from webreach.tools.render import page_json, page_text


def page(indexes: list[int], total: int, **fields: object) -> Page:
    passages = [PagePassage(index=i, headings=["Guide", f"Part {i}"], text=f"Text {i}.") for i in indexes]
    values: dict[str, object] = {
        "url": "https://example.org/guide", "final_url": "https://example.org/guide", "status": 200,
        "content_type": "text/html", "content": "\n\n".join(p.text for p in passages), "total_chars": 500,
        "tokens": 30, "total_tokens": 300, "passages": passages, "total_passages": total, "question": "what?",
        **fields,
    }  # fmt: skip
    return Page.model_validate(values)


def test_passages_are_labelled_and_the_left_out_line_says_how_to_read_on() -> None:
    text = page_text(page([2, 3, 7], 9), ref=4)
    assert "Passages 2-3, 7 of 9 (30 of 300 tokens, markdown)." in text
    assert "[4§2] Guide > Part 2\nText 2." in text and "[4§7] Guide > Part 7\nText 7." in text
    assert text.endswith(
        "Left out: 6 of 9 passages (about 270 tokens). Read more: one passage with web_fetch(ref=4, passage=8), "
        "on from it with web_fetch(ref=4, passage=8, max_tokens=1000), or the whole page in windows with "
        "web_fetch(ref=4)."
    )


def test_a_page_read_by_url_gets_url_anchors_and_a_last_passage_points_back_to_the_first_missing() -> None:
    text = page_text(page([1, 9], 9))
    assert "[§9] Guide > Part 9" in text
    assert 'web_fetch(url="https://example.org/guide", passage=2)' in text


def test_nothing_left_out_and_json_anchors() -> None:
    whole = page([1, 2], 2)
    assert page_text(whole, ref=1).endswith("Nothing left out: these are all the page's passages.")
    body = page_json(whole, ref=1)
    assert [p["anchor"] for p in body["passages"]] == ["[1§1]", "[1§2]"]
    assert body["more"].startswith("Nothing left out")


def trim(shown: Page) -> list[PagePassage]:
    return [p.model_copy(update={"text": f"… {p.text} …", "trimmed": True}) for p in shown.passages or []]


def test_trimmed_passages_are_named_with_the_call_that_reads_one_whole() -> None:
    shown = page([2, 5], 5)
    some = shown.model_copy(update={"passages": [(shown.passages or [])[0], trim(shown)[1]]})
    text = page_text(some, ref=4)
    assert "[4§5] Guide > Part 5\n… Text 5. …" in text
    assert text.endswith(
        "or the whole page in windows with web_fetch(ref=4). Passage 5 is trimmed to its best sentences "
        "(… marks a cut): web_fetch(ref=4, passage=5) reads one whole."
    )
    body = page_json(some, ref=4)
    assert [p.get("trimmed") for p in body["passages"]] == [None, True]  # said only when true
    every = page([1, 2], 2)
    assert page_text(every.model_copy(update={"passages": trim(every)}), ref=4).endswith(
        "Passages 1-2 are trimmed to their best sentences (… marks a cut): web_fetch(ref=4, passage=1) reads one whole."
    )
