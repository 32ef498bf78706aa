"""The one code-fence rule both the passage cutter and the section-heading fix use (extract/markdown_fences.py)."""

from __future__ import annotations

from webreach.extract import markdown_fences, passages
from webreach.extract.fixes import section_headings


def test_a_fence_closes_only_with_its_own_character_and_at_least_its_length() -> None:
    lines = ["intro", "````python", "```", "~~~", "code", "````", "after", "   ~~~", "x", "~~~~", "    ```", "tail"]
    assert markdown_fences.code_lines(lines) == [
        False, False, True, True, True, False, False, False, True, False, False, False,
    ]  # fmt: skip


def test_the_passage_cutter_and_the_heading_fix_see_the_same_code() -> None:
    document = "# Top\n\n````\n```\n# not a heading\n````\n\n## Real\n\ntext\n"
    headings = [p.headings for p in passages.cut(document) if "text" in p.text]
    assert headings == [("Top", "Real")]  # the "# not a heading" line inside the fence never became a heading
    lines = document.splitlines()
    assert section_headings._code_lines(lines, "markdown") == markdown_fences.code_lines(lines)
    assert section_headings._code_lines(lines, "markdown")[4] is True
