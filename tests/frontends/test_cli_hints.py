"""Next steps in each door's own syntax: the same structured hint reads as tool calls for agents, as options here."""

from __future__ import annotations

from webreach.errors import (
    AllEnginesFailedError,
    Arg,
    BlockedError,
    Call,
    NeedsBrowserError,
    RenderedEmptyError,
    SuspendedError,
    ThrottledError,
    UnreachableError,
    tool_syntax,
)
from webreach.frontends._cli_hints import cli_syntax, error_text
from webreach.models import Page
from webreach.tools import page_text


def test_each_step_reads_in_each_syntax() -> None:
    steps = [Arg("reader", "browser"), Arg("engine", "auto"), Call("web_fetch", (("ref", 1), ("start", 588)))]
    assert [tool_syntax(s) for s in steps] == ["reader='browser'", "engine='auto'", "web_fetch(ref=1, start=588)"]
    assert [cli_syntax(s) for s in steps] == [
        "`--reader browser`",
        "`-e auto`",
        "`webreach fetch --ref 1 --start 588`",
    ]


def test_errors_carry_steps_not_syntax() -> None:
    error = NeedsBrowserError("The page is a JavaScript shell.", url="https://app.example/")
    assert "reader='browser'" in str(error) and "reader='browser'" in error.to_dict()["message"]
    cli = error.describe(cli_syntax)
    assert "`--reader browser`" in cli and "reader='" not in cli
    assert "`-e auto`" in BlockedError("captcha", kind="captcha", engine="bing").describe(cli_syntax)


def test_the_cli_gets_the_next_window_in_its_own_syntax() -> None:
    window = Page(
        url="https://example.org/long", final_url="https://example.org/long", status=200, content_type="text/html",
        content="Some text.", start=100, total_chars=5000, next_start=110,
    )  # fmt: skip
    assert page_text(window, ref=3, syntax=cli_syntax).splitlines()[-1] == (
        "More: continue with `webreach fetch --ref 3 --start 110`."
    )
    by_url = page_text(window, syntax=cli_syntax).splitlines()[-1]
    assert by_url == "More: continue with `webreach fetch https://example.org/long --start 110`."


def test_all_engines_failed_prints_every_engines_reason() -> None:
    errors = [
        UnreachableError("could not resolve html.duckduckgo.com", cause="dns", engine="duckduckgo"),
        BlockedError("a CAPTCHA page", kind="captcha", engine="bing"),
        ThrottledError("paced; next slot in 8 s", engine="mojeek", retry_after=8),
        SuspendedError("circuit breaker open after captcha", engine="google", retry_after=600),
    ]
    text = error_text(AllEnginesFailedError("no engine returned results", errors=errors))
    first, *lines = text.splitlines()
    assert first.startswith("error [all_engines_failed]: no engine returned results.")
    assert "looks offline" not in first, "one engine was reached and answered with a wall"
    assert lines == [
        "  duckduckgo: unreachable: could not resolve html.duckduckgo.com",
        "  bing: captcha: a CAPTCHA page",
        "  mojeek: throttled: paced; next slot in 8 s",
        "  google: suspended: circuit breaker open after captcha",
    ]


def test_a_page_the_browser_rendered_empty_does_not_send_you_to_the_browser() -> None:
    error = RenderedEmptyError("The browser rendered https://app.example/ and it holds no text", url="x")
    assert error.code == "rendered_empty"
    assert "browser" not in error.hint and "`--reader jina`" in error.describe(cli_syntax)
