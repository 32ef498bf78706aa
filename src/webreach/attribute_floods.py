"""Attribute floods made cheap to parse: a start tag with more than MAX_TAG_ATTRIBUTES attributes keeps its first
ones and loses the rest, before lxml (the extractor) or lexbor (the engine parsers) see the markup.

Why: both parsers check each new attribute's name against the tag's earlier ones, so one tag of n distinct
attributes costs n^2: one `<div a0=x a1=x ...>` of 10,000 attributes took 0.25 s to parse in lxml and as long in
lexbor, 40,000 about 4 s, 200,000 (a 1.9 MB page) minutes, and the read's deadline passed while the parse ran on.
Attributes spread over many tags cost what their bytes cost (2,000,000 attributes on 200,000 tags, 11.7 MB:
1.8 s in lxml, 0.74 s in lexbor, linear), and so do long values (a 10 MB value: 72 ms in lxml), so only the count
per tag is capped; the body size limit and the extraction worker's time and memory budgets bound the rest.

How, in two steps:
- `FLOOD`, one `re.search` in C over the page, looks for a "<" and a letter followed by 2 x MAX_TAG_ATTRIBUTES
  characters without ">" and then MAX_TAG_ATTRIBUTES attributes, read as HTML's tokenizer reads a start tag (an
  attribute ends at whitespace, "/" or ">"; a quoted value may hold "<"; a name right after a quoted value starts
  a new attribute; a name may begin with "="), with atomic groups, so a candidate costs at most its tag's length.
  On the 1,678 WCXB dev and AEB pages it costs 0.25 ms a page at the median (p90 0.9 ms, p99 4.4 ms, the most
  on 3 MB pages of inline script), about 1% of an extraction, and finds nothing on 1,669 of them: their markup
  is returned as it is (the same object).
- Only when it finds something (9 of those pages, each in a script: `i<n;` followed by 1,000 words of code)
  `_walked` reads the page tag by tag as a tokenizer would, skipping comments and the raw text of <script> and
  <style> (which both parsers read as text), and cuts each real start tag of more than MAX_TAG_ATTRIBUTES after
  its MAX_TAG_ATTRIBUTES-th attribute, closed as it was ("/>" or ">"). About 1 us a tag in Python; those 9 pages
  come out unchanged. A tag whose attributes are kept apart by quoted values holding ">" is not seen by the first
  step; it parses slowly but within the extraction worker's deadline, which bounds any markup.
"""

from __future__ import annotations

import re

MAX_TAG_ATTRIBUTES = 1_000  # real tags carry a few dozen (136 at most on the 1,678 pages); 1,000 cost ~3 ms
_SPACE = r"[\t\n\f\r ]"
_NAME = r"[^\t\n\f\r />][^\t\n\f\r />=]*+"
_VALUE = r"(?:\"[^\"]*+\"|'[^']*+'|[^\t\n\f\r >]*+)"
_ATTRIBUTE = rf"(?>[\t\n\f\r /]*+{_NAME}(?:{_SPACE}*+={_SPACE}*+{_VALUE})?+)"
_KEPT = rf"<[A-Za-z][^\t\n\f\r />]*+(?:{_ATTRIBUTE}){{{MAX_TAG_ATTRIBUTES}}}"
FLOOD = re.compile(
    rf"<[A-Za-z](?=[^>]{{{2 * MAX_TAG_ATTRIBUTES}}})[^\t\n\f\r />]*+(?:{_ATTRIBUTE}){{{MAX_TAG_ATTRIBUTES + 1}}}"
)
KEPT = re.compile(_KEPT)  # a start tag's name and its first MAX_TAG_ATTRIBUTES attributes
ATTRIBUTE = re.compile(_ATTRIBUTE)
START_TAG = re.compile(rf"<([A-Za-z][^\t\n\f\r />]*+){_ATTRIBUTE}*+[\t\n\f\r /]*+>?")
NEXT = re.compile(r"<(?:!--|[A-Za-z])")
RAW_TEXT = {"script": re.compile(r"</script[\t\n\f\r />]", re.I), "style": re.compile(r"</style[\t\n\f\r />]", re.I)}


def tame_attributes(markup: str) -> str:
    """`markup` itself when no start tag holds more than MAX_TAG_ATTRIBUTES attributes; else a copy in which every
    such tag keeps only its first MAX_TAG_ATTRIBUTES (see the module docstring)."""
    if FLOOD.search(markup) is None:
        return markup
    return _walked(markup)


def _walked(markup: str) -> str:
    """`markup` read tag by tag, each start tag of too many attributes cut after the first MAX_TAG_ATTRIBUTES."""
    parts: list[str] = []
    copied = position = 0
    while (found := NEXT.search(markup, position)) is not None:
        start = found.start()
        if found.group() == "<!--":
            close = markup.find("-->", start + 4)
            position = len(markup) if close < 0 else close + 3
            continue
        tag = START_TAG.match(markup, start)
        assert tag is not None  # "<" and a letter always start one
        position = tag.end()
        kept = KEPT.match(markup, start) if position - start > 2 * MAX_TAG_ATTRIBUTES else None
        if kept is not None and ATTRIBUTE.match(markup, kept.end()) is not None:  # one more: a flood
            closer = "/>" if markup.endswith("/>", 0, position) else ">"
            parts += (markup[copied : kept.end()], closer)
            copied = position
        raw_end = RAW_TEXT.get(tag.group(1).lower())
        if raw_end is not None:
            close_tag = raw_end.search(markup, position)
            position = len(markup) if close_tag is None else close_tag.start()
    parts.append(markup[copied:])
    return "".join(parts) if copied else markup
