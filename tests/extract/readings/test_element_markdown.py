"""Posts and grid cards keep their structure in markdown: headings, lists, code, links, bold and tables."""

from __future__ import annotations

from webreach.extract.preparation import html_tree
from webreach.extract.readings.element_markdown import to_markdown

POST = """<html><body><div id="post"><h2>Setting   it up</h2><p>Run <code>make</code>, then read
<a href="/docs/install">the <b>install</b> guide</a>.</p><ul><li>one</li><li>two</li></ul>
<pre>def main():
    return 1</pre><table><tr><th>flag</th><th>meaning</th></tr><tr><td>-v</td><td>verbose | loud</td></tr></table>
<script>ignored()</script><a href="javascript:void(0)">Reply</a></div></body></html>"""


def test_post_markdown_is_faithful() -> None:
    tree = html_tree.parse(POST, url="https://forum.example/t/x/1")
    markdown = to_markdown(tree.get_element_by_id("post"), "https://forum.example/t/x/1")
    assert markdown.startswith("## Setting it up\n\n")
    assert "Run `make`, then read [the **install** guide](https://forum.example/docs/install)." in markdown
    assert "- one\n- two" in markdown
    assert "```\ndef main():\n    return 1\n```" in markdown  # indentation inside code survives
    assert "| flag | meaning |\n|---|---|\n| -v | verbose \\| loud |" in markdown
    assert "ignored" not in markdown
    assert markdown.endswith("Reply")  # a script link keeps its text, not its target
