"""The CLI's table: text from the web is printed as written, never read as rich markup."""

from __future__ import annotations

import pytest

from webreach.frontends import _render
from webreach.models import Hit, SearchMeta, SearchResponse


def test_markup_in_web_text_is_shown_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    hit = Hit(
        rank=1, title="[bold red]not bold[/] and [/bold]", url="https://a.example/[x]", snippet="a [link=x]b[/link]",
        source="[dim]site", engine="bing",
    )  # fmt: skip
    _render.search_table(SearchResponse(query="q", results=(hit,), meta=SearchMeta(mode="auto")), {hit.url: 7})
    printed = " ".join(capsys.readouterr().out.split())
    for text in ("[bold red]not bold[/] and [/bold]", "a [link=x]b[/link]", "[dim]site"):
        assert " ".join(text.split()) in printed
    assert "[x]" in printed and "7" in printed
