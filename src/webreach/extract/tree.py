"""lxml where it enters: the one name every parsed page's elements are typed with.

lxml ships no type information, so mypy reads its objects as Any (pyproject's ignore_missing_imports); naming them
here says what each `tree` and `element` is and leaves one place to point at real stubs (types-lxml) later.
"""

from __future__ import annotations

from typing import TypeAlias

from lxml import html

# an element of a parsed HTML page: html_tree.parse's root and any node under it
Element: TypeAlias = html.HtmlElement
