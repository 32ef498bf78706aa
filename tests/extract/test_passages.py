"""Passages are cut on a document's structure: real pages of every kind, never mid-sentence, tables and code whole
or cut at rows and lines, each with its heading path; the same document always gives the same passages.

The pages are real captures from ../shared/data/extraction (WCXB dev: an article, documentation with code and
with tables, a forum thread, a product page; AEB: the one CJK page, which is Japanese: the data holds no Chinese
article), extracted to markdown as the reader would. Without the data directory the tests skip.
"""

from __future__ import annotations

import gzip
import itertools
import json
import re
from pathlib import Path

import pytest

from webreach.extract.cascade import extract
from webreach.extract.passages import PASSAGE_CHARS, SENTENCE_END, Passage, cut

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "extraction"
# WCXB dev page ids by kind (metadata.json's page_type)
PAGES = {
    "article": "0001",
    "documentation-code": "0662",  # Flask's quickstart: prose, fenced code, a table
    "article-table": "0037",  # a comparison with a long table
    "forum": "0506",
    "product": "0580",
}
CJK_PAGE = "85439e26c41c75901820d01a13e8cea7836abb58635ea3986f71a163ab0311d3"  # AEB, Japanese
SENTENCE_DONE = re.compile(r"([.!?;:。！？；…]|[.!?。！？][\"')\]”’」』）]*)$")


def markdown(kind: str) -> str:
    root = DATA / "wcxb-dev"
    if not root.is_dir():
        pytest.skip(f"WCXB dev split not found at {root}")
    domain = json.loads((root / "metadata.json").read_text(encoding="utf-8"))["files"][PAGES[kind]]["domain"]
    body = gzip.decompress((root / "html" / f"{PAGES[kind]}.html.gz").read_bytes())
    return extract(body, content_type="text/html", url=f"https://{domain}/", format="markdown").text


def cjk_markdown() -> str:
    root = DATA / "aeb"
    if not root.is_dir():
        pytest.skip(f"AEB not found at {root}")
    url = json.loads((root / "ground-truth.json").read_text(encoding="utf-8"))[CJK_PAGE]["url"]
    body = gzip.decompress((root / "html" / f"{CJK_PAGE}.html.gz").read_bytes())
    return extract(body, content_type="text/html", url=url, format="markdown").text


def flat(text: str) -> str:
    return " ".join(text.split())


def check_invariants(document: str, passages: list[Passage], max_chars: int = PASSAGE_CHARS) -> None:
    assert [p.index for p in passages] == list(range(1, len(passages) + 1))
    assert cut(document, max_chars) == passages, "cutting must be deterministic"
    for passage in passages:
        assert passage.text.strip(), passage
        source = document[passage.start : passage.end]
        if passage.kind in ("text", "list"):
            # joined neighbours differ only in the blank lines between them
            assert flat(passage.text) == flat(source)
        elif passage.kind == "code":  # fenced (after its introduction, when it has one)
            assert re.search(r"^(```|~~~)", passage.text, re.M) and passage.text.rstrip().endswith(("```", "~~~"))
        else:  # a table's rows (after its introduction, when it has one)
            rows = passage.text.split("\n\n", 1)[-1] if not passage.text.startswith("|") else passage.text
            assert all(line.lstrip().startswith("|") for line in rows.splitlines()), passage.text
    for before, after in itertools.pairwise(passages):
        assert before.end <= after.start, "passages follow page order without overlapping"
        if before.block == after.block and before.kind == "text":  # one paragraph cut in two: between sentences
            assert SENTENCE_DONE.search(before.text.rstrip()), before.text[-80:]
    # every line of content (headings aside) lies in some passage
    covered = [False] * len(document)
    for passage in passages:
        covered[passage.start : passage.end] = [True] * (passage.end - passage.start)
    offset = 0
    for line in document.splitlines(keepends=True):
        if line.strip() and not line.startswith("#"):
            assert covered[offset + len(line) - len(line.lstrip())], line
        offset += len(line)


@pytest.mark.parametrize("kind", sorted(PAGES))
def test_real_pages_are_cut_on_their_structure(kind: str) -> None:
    document = markdown(kind)
    passages = cut(document)
    assert len(passages) >= 3
    check_invariants(document, passages)
    # a passage is longer than the target only when one sentence, row or line is
    for passage in passages:
        if len(passage.text) > PASSAGE_CHARS + 100 and passage.kind == "text":
            assert len(SENTENCE_END.findall(passage.text.rstrip())) <= 1 or passage.text.count("\n") == 0


def test_code_keeps_its_heading_and_its_introduction() -> None:
    passages = cut(markdown("documentation-code"))
    first_code = next(p for p in passages if p.kind == "code")
    assert first_code.headings == ("A Minimal Application",)
    # "looks something like this:" stays with the code it introduces
    assert first_code.text.startswith("A minimal Flask application looks something like this:")
    assert "from flask import Flask" in first_code.text
    # headings nest: a level-3 heading under its level-2 one
    assert any(len(p.headings) == 2 for p in passages)


def test_a_long_table_is_cut_between_rows_and_every_piece_keeps_the_header() -> None:
    passages = cut(markdown("article-table"))
    tables = [p for p in passages if p.kind == "table"]
    pieces_of_one = [p for p in tables if sum(q.block == p.block for q in tables) > 1]
    assert pieces_of_one, "the comparison table is longer than one passage"

    def rows(piece: Passage) -> list[str]:  # the first piece may open with the sentence introducing the table
        return piece.text.split("\n\n")[-1].splitlines()

    # written without a |---| rule, the table's first row is its header, repeated in every piece
    header = rows(pieces_of_one[0])[0]
    assert header.startswith("| **Trend** |")
    for piece in pieces_of_one:
        assert rows(piece)[0] == header and len(rows(piece)) >= 2
    body = [row for piece in pieces_of_one for row in rows(piece)[1:]]
    assert len(body) == len(set(body)), "each row is in one piece only"


def test_a_cjk_page_is_cut_between_paragraphs_and_never_inside_a_sentence() -> None:
    document = cjk_markdown()
    passages = cut(document, max_chars=60)
    check_invariants(document, passages, 60)
    paragraphs = {line.strip() for line in document.split("\n\n")}
    # its paragraphs are single sentences: each passage is whole paragraphs, a long one (114 characters) alone
    for passage in passages:
        assert all(part.strip() in paragraphs for part in passage.text.split("\n\n"))
    assert any(len(p.text) > 100 for p in passages)


def test_chinese_text_is_cut_at_its_sentence_ends() -> None:
    paragraph = "北京是中国的首都，也是政治和文化中心。" * 3 + "长城位于北京北部！" + "你去过故宫吗？" * 2
    passages = cut(paragraph, max_chars=40)
    assert "".join(p.text for p in passages) == paragraph
    assert all(p.text.endswith(("。", "！", "？")) for p in passages)
    assert all(len(p.text) <= 40 for p in passages)


def test_small_documents_and_edge_cases() -> None:
    assert cut("") == []
    assert [p.text for p in cut("# Only a heading\n")] == []
    one = cut("Just one sentence without an end")
    assert [(p.index, p.text, p.headings) for p in one] == [(1, "Just one sentence without an end", ())]
    # a code block is never cut inside a line, and each piece is fenced again
    code = "```\n" + "\n".join(f"print({i})  # line {i}" for i in range(200)) + "\n```\n"
    pieces = cut(code)
    assert len(pieces) > 1
    for piece in pieces:
        lines = piece.text.splitlines()
        assert lines[0] == "```" and lines[-1] == "```"
        assert all(re.fullmatch(r"print\(\d+\)  # line \d+", line) for line in lines[1:-1])
    # an overlong sentence stays whole rather than being cut inside
    long = "word " * 400 + "end."
    assert [p.text for p in cut(long)] == [long.strip()]
