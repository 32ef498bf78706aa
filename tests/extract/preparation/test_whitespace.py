"""Pretty-printed HTML reads like the page a browser shows: source line breaks and indentation inside running
text collapse to single spaces, while blocks, <br>, lists, tables and code keep their structure."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from webreach.extract.cascade import extract
from webreach.extract.preparation.html_tree import parse, visible_text

URL = "https://notes.example/tides"

# written the way Prettier formats HTML: every inline run wrapped and indented, closing brackets moved
PRETTY = """<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>
      Tide tables for
      the harbour
    </title>
  </head>
  <body>
    <nav><a href="/">Home</a> <a href="/about">About</a></nav>
    <main>
      <article>
        <h1>
          Reading the
          tide tables
        </h1>
        <p>
          The <strong>harbour
            master</strong> publishes the
          <a href="/tides/2024"
            >tide
            tables</a
          >
          every month, and the
          <em>high-water
            times</em> are given in local time.
        </p>
        <p>
          Two readings a day:<br />
          morning and
          evening.
        </p>
        <h2>What the columns mean</h2>
        <ul>
          <li>
            <strong>Time</strong>: when the
            water turns
          </li>
          <li>
            <strong>Height</strong>: metres above
            chart datum
          </li>
        </ul>
        <table>
          <tr>
            <th>Day</th>
            <th>High
              water</th>
          </tr>
          <tr>
            <td>Monday</td>
            <td>06:12 and
              18:40</td>
          </tr>
        </table>
        <pre><code>high = table.lookup("Monday")
if high:
    print(high.time)</code></pre>
        <p>
          Call <code>lookup()</code> once per
          day; the&nbsp;&nbsp;values are cached by the
          harbour office until midnight, so a second call in the same day returns at once.
        </p>
        <blockquote>
          <p>
            Never trust a tide table from
            another port.
          </p>
        </blockquote>
      </article>
    </main>
  </body>
</html>
"""

# the same document with no formatting whitespace at all
COMPACT = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tide tables for the harbour</title></head>'
    '<body><nav><a href="/">Home</a> <a href="/about">About</a></nav><main><article>'
    "<h1>Reading the tide tables</h1>"
    '<p>The <strong>harbour master</strong> publishes the <a href="/tides/2024">tide tables</a> every month, '
    "and the <em>high-water times</em> are given in local time.</p>"
    "<p>Two readings a day:<br>morning and evening.</p>"
    "<h2>What the columns mean</h2>"
    "<ul><li><strong>Time</strong>: when the water turns</li>"
    "<li><strong>Height</strong>: metres above chart datum</li></ul>"
    "<table><tr><th>Day</th><th>High water</th></tr><tr><td>Monday</td><td>06:12 and 18:40</td></tr></table>"
    '<pre><code>high = table.lookup("Monday")\nif high:\n    print(high.time)</code></pre>'
    "<p>Call <code>lookup()</code> once per day; the&nbsp;&nbsp;values are cached by the harbour office until "
    "midnight, so a second call in the same day returns at once.</p>"
    "<blockquote><p>Never trust a tide table from another port.</p></blockquote>"
    "</article></main></body></html>"
)
CODE = 'high = table.lookup("Monday")\nif high:\n    print(high.time)'


def read(page: str, format: str) -> str:
    return extract(page.encode(), content_type="text/html", url=URL, format=format).text  # type: ignore[arg-type]


def test_markdown_of_a_pretty_printed_page_has_no_source_line_breaks() -> None:
    markdown = read(PRETTY, "markdown")
    assert markdown.startswith("# Reading the tide tables\n\n")
    assert (
        "\n\nThe **harbour master** publishes the [tide tables](https://notes.example/tides/2024) every month, "
        "and the *high-water times* are given in local time.\n\n"
    ) in markdown
    assert "\n- **Time**: when the water turns\n- **Height**: metres above chart datum\n" in markdown
    assert "| Day | High water |" in markdown and "| Monday | 06:12 and 18:40 |" in markdown
    assert f"```\n{CODE}\n```" in markdown
    assert "Call `lookup()` once per day; the\u00a0\u00a0values are cached by the harbour office" in markdown
    assert "Never trust a tide table from another port." in markdown


def test_text_of_a_pretty_printed_page_is_one_clean_line_per_block() -> None:
    lines = read(PRETTY, "text").split("\n")
    assert lines[:2] == [
        "Reading the tide tables",
        "The harbour master publishes the tide tables every month, and the high-water times are given in local time.",
    ]
    assert lines[5:7] == ["- Time: when the water turns", "- Height: metres above chart datum"]
    assert CODE in "\n".join(lines)  # the code keeps its line breaks and indentation
    prose = [line for line in lines if line not in CODE.split("\n") and not line.startswith("|")]
    assert all(line == line.strip() and "  " not in line for line in prose)


def test_a_line_break_stays_a_line_break() -> None:
    text = read(PRETTY, "text").split("\n")
    assert text[2:4] == ["Two readings a day:", "morning and evening."]


@pytest.mark.parametrize("format", ["markdown", "text"])
def test_pretty_printed_and_compact_sources_read_the_same(format: str) -> None:
    assert read(PRETTY, format) == read(COMPACT, format)


def test_html_paragraphs_hold_one_run_of_text() -> None:
    html = read(PRETTY, "html")
    assert "<p>Two readings a day:<br/>morning and evening.</p>" in html
    assert (
        '<p>The harbour master publishes the <a href="https://notes.example/tides/2024">tide tables</a> every' in html
    )
    assert f"<pre>{CODE}</pre>" in html


def test_whitespace_that_is_content_is_kept() -> None:
    page = (
        "<html><body><p>Tabs\tand\n   breaks</p>"
        '<div style="white-space: pre-line">line one\nline two</div>'
        "<textarea>a\n  b</textarea><pre> x\n   y</pre><p>no\u00a0\u00a0break</p>"
        '<script type="application/ld+json">{"a":\n  1}</script></body></html>'
    )
    tree = parse(page)
    assert tree.findtext(".//p") == "Tabs and breaks"
    assert tree.findtext(".//div") == "line one\nline two"
    assert tree.findtext(".//textarea") == "a\n  b"
    assert tree.findtext(".//pre") == " x\n   y"
    assert tree.findtext(".//script") == '{"a":\n  1}'
    assert "no\u00a0\u00a0break" in [p.text for p in tree.iter("p")]
    assert visible_text(tree).split("\n\n")[0] == "Tabs and breaks"


def test_spaces_between_inline_elements_survive() -> None:
    tree = parse("<p>\n  <b>one</b>\n  <i>two</i>\n  three\n</p>")
    assert "".join(tree.find(".//p").itertext()) == "one two three"


def test_a_real_pretty_printed_result_page_reads_in_whole_lines(shared_data: Path) -> None:
    body = (shared_data / "serp" / "mojeek" / "wsmcp__mojeek.html").read_bytes()
    markdown = extract(body, content_type="text/html", url="https://www.mojeek.com/search?q=javascript+tutorial").text
    assert (
        "The Modern **JavaScript Tutorial** ... Main course contains 2 parts which cover **JavaScript** as a "
        "programming language and working with a browser."
    ) in markdown
    assert not any(line != line.strip() for line in markdown.split("\n"))


def test_the_text_after_a_kept_subtree_is_laid_out_again() -> None:
    page = (
        "<html><body><div><p>one\n  two</p>"
        "<pre><b>keep\n   this</b>\n   as <i>is</i>  </pre>"
        "<div style='white-space: pre-wrap'><span>and\n  this</span>\n  <em>too</em></div>\n  tail\n  words\n"
        "<p>\n  three\n  four\n</p></div></body></html>"
    )
    tree = parse(page)
    assert "".join(tree.find(".//pre").itertext()) == "keep\n   this\n   as is  "
    assert "".join(tree.find(".//div/div").itertext()) == "and\n  this\n  too"
    assert [p.text for p in tree.iter("p")] == ["one two", "three four"]
    assert tree.find(".//div/div").tail == "tail words"


SHIKI_STEPS = (
    "<html><body><main><article><h1>Installation</h1>"
    "<p>Start by creating a new project if you do not have one set up already, the usual way.</p>"
    '<pre class="shiki"><code><span class="line"><span style="color:red">npm</span><span> create vite@latest'
    ' my-project</span></span><span class="line"><span>cd</span><span> my-project</span></span>'
    '<span class="line"><span>npm run dev</span></span></code></pre>'
    "<p>Then run your build process and start using the utility classes in your templates.</p>"
    "</article></main></body></html>"
)


@pytest.mark.parametrize("format", ["markdown", "text"])
def test_highlighted_code_lines_stay_lines(format: str) -> None:
    # Shiki puts each line in a span that CSS shows as a block, with no line break in the source
    read = extract(SHIKI_STEPS.encode(), content_type="text/html", url=URL, format=format)
    assert "npm create vite@latest my-project\ncd my-project\nnpm run dev" in read.text


@pytest.mark.parametrize(
    ("code", "lines"),
    [
        # Hugo's Chroma writes the line break inside the line's span
        (
            '<span class="line"><span class="cl">package main\n</span></span><span class="line"><span class="cl">\n'
            '</span></span><span class="line"><span class="cl">import "fmt"\n</span></span>',
            'package main\n\nimport "fmt"\n',
        ),
        # others write it between the spans, or after the element wrapping each one
        (
            '<span class="line-wrap"><span class="line">a = 1</span></span>\n'
            '<span class="line-wrap"><span class="line">b = 2</span></span>\n<span class="line">c = 3</span>',
            "a = 1\nb = 2\nc = 3",
        ),
    ],
)
def test_code_lines_already_broken_are_not_broken_again(code: str, lines: str) -> None:
    pre = next(parse(f"<html><body><pre><code>{code}</code></pre></body></html>").iter("pre"))
    assert "".join(pre.itertext()) == lines


def test_the_visible_text_keeps_blocks_rows_and_breaks_apart_and_leaves_hidden_subtrees_out() -> None:
    markup = (
        "<html><body><h2>Prices</h2><p>Mugs<br>Bowls <span hidden>old <b>price</b><div>ignored</div></span>"
        "from $4</p><table><tr><td>red</td><td>blue</td></tr></table><div class='menu'><a>Home</a></div>"
        "<svg><text>icon</text></svg>last words</body></html>"
    )
    tree = parse(markup)
    assert visible_text(tree) == "Prices\n\nMugs\nBowls\n\nfrom $4\n\nred blue\n\nHome\n\nlast words"
    without_menu = visible_text(tree, skip=lambda element: element.get("class") == "menu")
    assert "Home" not in without_menu and without_menu.endswith("red blue\n\nlast words")
    assert visible_text(tree, max_chars=8) == "Prices\n\nMugs"  # the walk stops once it holds that many
    # an element's own tail is the reader's too when the walk starts at it
    assert visible_text(tree.find(".//span")).split() == ["from", "$4"]


@pytest.mark.parametrize(
    ("hidden", "seen"),
    [
        ("<b>price</b>", "Bowlsfrom $4"),  # nothing of it: the words on either side meet
        ("old<br>price", "Bowls\nfrom $4"),  # its <br> still ends the line
        ("<i>a</i><br><br>b", "Bowls\n\nfrom $4"),
        ("<table><tr><td>a</td><td>b</td></tr></table>", "Bowls\n\nfrom $4"),
    ],
)
def test_a_hidden_subtree_adds_only_its_breaks(hidden: str, seen: str) -> None:
    tree = parse(f"<html><body><p>Bowls<span hidden>{hidden}</span>from $4</p></body></html>")
    assert visible_text(tree) == seen


def test_a_hidden_cell_still_adds_its_space() -> None:
    tree = parse("<html><body><p>Bowls<span hidden></span>from $4</p></body></html>")
    etree.SubElement(tree.find(".//span"), "td").text = "a"  # the parser puts a cell only in a row; code may not
    assert visible_text(tree) == "Bowls from $4"
