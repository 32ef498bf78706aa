"""Headings put back over the sections a reading kept: trafilatura drops many of them.

    restore_headings(tree, text, format) -> text

trafilatura keeps the paragraphs it recovers from outside its main frame but not their headings (its recovery pass
looks for paragraphs, code, quotes and tables only), and in precision mode it deletes headings by link density and
at the end of a frame. A service page read that way is a run of paragraphs without the titles of its sections, a
catalogue a run of descriptions without the names of its items. Here a heading (h2-h6) whose words the reading does
not say is put back before the line its section's first words open: the text that follows it in the page, up to the
next heading of its level or above (an h2 over an h3 over a paragraph takes the paragraph; a heading followed by
another of its level has no section and stays out), never past the navigation, sidebar, footer or form that holds
it. h1 is the page's title, which the metadata carries and trafilatura leaves out of a story (the article
benchmark's truth leaves it out too). Lines are compared as a reader sees them (markdown's link targets and escapes,
html's tags and entities aside); a heading never goes inside a code block, nor between a list's or a table's rows.
Measured (WCXB dev, word F1 of format=text, against the same cascade without this stage): tune half 0.8678 ->
0.8700, check half 0.8412 -> 0.8437 (services 0.827 -> 0.833 and 0.815 -> 0.822, listings 0.751 -> 0.757 and 0.674
-> 0.684, documentation 0.926 -> 0.928 on the check half), the article benchmark 0.9705 -> 0.9707; 0.46 ms a median
page. Each heading costs a look-up of its title in the reading and a few of its section's first word, so a catalogue
of thousands of items stays about linear; past MAX_HEADINGS, or past what SEARCH_BUDGET allows for the reading's
length (a 2 MB reading with a thousand headings took a second), a page's later headings are left as the reading has
them.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_left
from collections.abc import Iterator
from itertools import islice

from webreach.extract import markdown_fences
from webreach.extract.preparation import html_tree, tags
from webreach.extract.tree import Element
from webreach.models import ReadFormat

SECTION_HEADINGS = ("h2", "h3", "h4", "h5", "h6")
HEADING_TAGS = frozenset(("h1", *SECTION_HEADINGS))
SECTION_ENDS = frozenset(("nav", "aside", "footer", "form"))  # a heading's section never runs out of these
OPENING_CHARS = 40  # how much of a section's text must be read before its opening is compared
MIN_OPENING = 12  # characters of words a line or an opening needs to be matched at all (a short line is ambiguous)
MAX_PIECES = 2000  # text nodes and headings looked at after one heading before giving up on its section
MAX_HEADINGS = 1000  # headings examined on one page, in document order
MAX_CANDIDATES = 64  # lines opening alike, looked at for one section
# a reading that does not say this share of the page's section titles (and at least LEFT_OUT_MIN of them) and
# holds under LEFT_OUT_TEXT_SHARE of its visible text left the sections out (sections_left_out; tune half)
LEFT_OUT_SHARE = 0.9
LEFT_OUT_MIN = 6
LEFT_OUT_TEXT_SHARE = 0.3
SEARCH_BUDGET = 40_000_000  # characters of reading searched for titles on one page (about 20 ms of str.find)
NOT_WORDS = re.compile(r"[\W_]+")
LINK_TARGET = re.compile(r"\]\([^)]*\)")
MARKDOWN_ESCAPE = re.compile(r"\\(.)")
MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")
HTML_TAG = re.compile(r"<[^>]*>")
PRE_OPEN = re.compile(r"<pre[\s>]")
FIRST_WORD = re.compile(r"[^\W_]+")
HTML_ROW = re.compile(r"\s*<(?:li|tr|td|th|dd|dt|tbody|thead|tfoot|row|cell)[\s>]")


def restore_headings(tree: Element, text: str, format: ReadFormat, search_budget: int = SEARCH_BUDGET) -> str:
    """`text` (in `format`) with the headings of the sections it holds put back where their sections begin; only as
    many headings as may each search the whole reading within `search_budget` characters."""
    if not text.strip():
        return text
    titled = [
        (heading, title) for heading in islice(tree.iter(*SECTION_HEADINGS), MAX_HEADINGS) if (title := _shown(heading))
    ]
    if not titled:
        return text
    reading = Reading(text, format)
    titled = titled[: _searches(search_budget, reading.seen)]
    placed: dict[int, list[tuple[int, str]]] = {}  # per line of the reading, the headings over it
    put_back: set[str] = set()
    after = 0
    for heading, title in titled:
        words = _words(title)
        if not words or words in put_back or reading.says(title):
            continue
        level = int(heading.tag[1])
        for line in reading.section_lines(_words(_opening(heading)), after):
            over = placed.setdefault(line, [])
            if reading.heads(line, words):  # the reading has it, in its own spelling (an escape, a link)
                break
            if not over or level > over[-1][0]:  # two sections cannot open one line; a deeper one goes below
                over.append((level, _heading_line(heading.tag, title, format, reading.lines[line])))
                put_back.add(words)
                after = line
                break
    if not any(placed.values()):
        return text
    out: list[str] = []
    for number, line_text in enumerate(reading.lines):
        out.extend(heading_line for _, heading_line in placed.get(number, ()))
        out.append(line_text)
    return "\n".join(out)


def sections_left_out(tree: Element, text: str, format: ReadFormat, search_budget: int = SEARCH_BUDGET) -> bool:
    """Whether `text` left out the page's sections: it says the titles of under a tenth of the page's h2 and h3
    headings (those outside navigation, sidebars, footers and forms; at least LEFT_OUT_MIN go unsaid) and holds under
    LEFT_OUT_TEXT_SHARE of the page's visible text. A "best of" list read in precision mode keeps its introduction
    and drops every entry; a story whose headings precision mode dropped still holds most of the page (cascade
    stage 2)."""
    headings = list(islice(tree.iter("h2", "h3"), MAX_HEADINGS))
    if len(headings) < LEFT_OUT_MIN:
        return False
    seen = _as_read(text, format).lower()
    counted = left_out = 0
    for heading in headings[: _searches(search_budget, seen)]:
        title = _shown(heading)
        if len(title) < 4 or any(above.tag in SECTION_ENDS for above in heading.iterancestors()):
            continue
        counted += 1
        left_out += not says(seen, title)
        if counted - left_out > (1 - LEFT_OUT_SHARE) * len(headings):  # said too many already, whatever follows
            return False
    if left_out < LEFT_OUT_MIN or left_out < LEFT_OUT_SHARE * counted:
        return False
    return len(seen) < LEFT_OUT_TEXT_SHARE * html_tree.text_size(tree)


def says(seen: str, title: str) -> bool:
    """Whether `seen` (a reading as read, lower-cased) says `title` word for word (not inside a longer word)."""
    needle = title.lower()
    start = seen.find(needle)
    for _ in range(MAX_CANDIDATES):
        if start < 0:
            return False
        end = start + len(needle)
        if not (start and seen[start - 1].isalnum()) and not (end < len(seen) and seen[end].isalnum()):
            return True
        start = seen.find(needle, start + 1)
    return False


class Reading:
    """The lines of a reading, found by the first word a reader sees on them; a line's words are worked out only
    when a section may open it (0.5 ms a median WCXB page for the whole stage, where normalising every line and
    indexing every word cost 0.9 ms)."""

    def __init__(self, text: str, format: ReadFormat) -> None:
        self.lines = text.split("\n")
        self.format = format
        self.seen = _as_read(text, format).lower()  # for headings said word for word
        self.by_first_word: dict[str, list[int]] = {}
        for number, line in enumerate(self.lines):
            if first := FIRST_WORD.search(_as_read(line, format) if format == "html" else line):
                self.by_first_word.setdefault(first[0].lower(), []).append(number)
        self.in_code = _code_lines(self.lines, format)
        self.words: dict[int, str] = {}

    def says(self, title: str) -> bool:
        """Whether the reading says `title` word for word somewhere (not inside a longer word)."""
        return says(self.seen, title)

    def heads(self, number: int, words: str) -> bool:
        """Whether the line before line `number` (blank lines aside) says `words` and nothing else."""
        above = number - 1
        while above >= 0 and not self.lines[above].strip():
            above -= 1
        return above >= 0 and self._words_of(above) == words

    def section_lines(self, opening: str, after: int) -> list[int]:
        """The lines a section whose first words are `opening` may open, best first: lines that start with them, or
        whose words are their start (a short first paragraph), those at or after `after` first (the page's order),
        each as the line a heading goes before (_placeable); [] if no line does."""
        if len(opening) < MIN_OPENING:
            return []
        candidates = self.by_first_word.get(opening.split(" ", 1)[0], [])
        start = bisect_left(candidates, after)
        found = []
        for number in candidates[start : start + MAX_CANDIDATES] + candidates[: min(start, MAX_CANDIDATES)]:
            if _opens(self._words_of(number), opening) and (line := self._placeable(number)) is not None:
                found.append(line)
        return found

    def _words_of(self, number: int) -> str:
        if number not in self.words:
            self.words[number] = _words(_as_read(self.lines[number], self.format))
        return self.words[number]

    def _placeable(self, number: int) -> int | None:
        """The line a heading over line `number` goes before: the line itself, the fence or container it opens in
        markdown or html, or None inside a code block, a paragraph of several lines or between rows."""
        if self.in_code[number]:  # only the first line of a block, under a fence or a bare <pre>: over that
            opener = number - 1
            return opener if opener >= 0 and not self.in_code[opener] and not self._words_of(opener) else None
        if self.format != "html":
            return number
        if not self.lines[number].lstrip().startswith("<"):  # the second line of a paragraph
            return None
        while HTML_ROW.match(self.lines[number]):  # a first row or cell: the heading goes over its container
            if number == 0 or _indent(self.lines[number - 1]) >= _indent(self.lines[number]):
                return None
            number -= 1
        return number


def _opens(line: str, opening: str) -> bool:
    """Whether a line whose words are `line` opens a section whose first words are `opening`: it starts with them,
    or it is their start, word for word and long enough not to be a chance match."""
    if line.startswith(opening):
        return True
    return len(line) >= MIN_OPENING and opening.startswith(line) and opening[len(line) : len(line) + 1] in ("", " ")


def _code_lines(lines: list[str], format: ReadFormat) -> list[bool]:
    """Per line, whether it is inside a markdown ``` or ~~~ block or an html <pre> (the line that opens one is
    not); text marks no code."""
    if format == "markdown":
        return markdown_fences.code_lines(lines)
    inside, found = 0, []
    for line in lines:
        found.append(inside > 0)
        if format == "html":
            inside = max(0, inside + len(PRE_OPEN.findall(line)) - line.count("</pre>"))
    return found


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _searches(search_budget: int, seen: str) -> int:
    """How many titles may each search the whole of `seen` within `search_budget` characters (at least one)."""
    return max(1, search_budget // max(1, len(seen)))


def _as_read(line: str, format: ReadFormat) -> str:
    """A line of the reading as a reader sees it: markdown without link targets and escapes, html without tags and
    entities; text as it is."""
    if format == "markdown":
        return MARKDOWN_ESCAPE.sub(r"\1", LINK_TARGET.sub(" ", line))
    if format == "html":
        return html.unescape(HTML_TAG.sub(" ", line))
    return line


def _opening(heading: Element) -> str:
    """The first OPENING_CHARS characters of text after `heading`, before the next heading of its level or above;
    deeper headings are passed over (their sections are part of this one)."""
    level = int(heading.tag[1])
    pieces: list[str] = []
    size = 0
    for number, piece in enumerate(_after(heading)):
        if number >= MAX_PIECES:
            return ""
        if isinstance(piece, int):
            if piece <= level:
                break
        elif piece.strip():
            pieces.append(piece)
            size += len(piece.strip())
            if size >= OPENING_CHARS:
                break
    return " ".join(pieces)[: OPENING_CHARS * 2]


def _after(element: Element) -> Iterator[str | int]:
    """What follows `element` in document order, up to the end of the navigation, sidebar, footer or form that
    holds it, or of the page's banner (a <header> in the body; a section's own <header> only holds its title): text,
    and a heading's level in place of the heading."""
    node = element
    while node is not None:
        if node.tail:
            yield node.tail
        sibling = node.getnext()
        while sibling is not None:
            yield from _inside(sibling)
            if sibling.tail:
                yield sibling.tail
            sibling = sibling.getnext()
        node = node.getparent()
        if node is not None and (node.tag in SECTION_ENDS or _banner(node)):
            return


def _banner(element: Element) -> bool:
    """Whether `element` is the page's banner: a <header> straight in the body."""
    parent = element.getparent()
    return bool(element.tag == "header" and parent is not None and parent.tag == "body")


def _inside(element: Element) -> Iterator[str | int]:
    """The text inside `element` in document order (a heading as its level), without recursion: pages nest deep."""
    stack: list[Element | str] = [element]  # elements, and the tails to yield after them
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
            continue
        tag = item.tag
        if not isinstance(tag, str) or tag in tags.HIDDEN_TAGS:
            continue
        if tag in HEADING_TAGS:
            yield int(tag[1])
            continue
        if item.text:
            yield item.text
        for child in reversed(item):
            if child.tail:
                stack.append(child.tail)
            stack.append(child)


def _shown(heading: Element) -> str:
    """The heading's text as a reader sees it (a heading may carry a <style> or an icon's <svg>), collapsed."""
    if not len(heading):
        return " ".join((heading.text or "").split())
    pieces = [heading.text or ""]
    for child in heading:
        pieces.extend(piece for piece in _inside(child) if isinstance(piece, str))
        pieces.append(child.tail or "")
    return " ".join(" ".join(pieces).split())


def _heading_line(tag: str, title: str, format: ReadFormat, before: str) -> str:
    """The heading as a line of `format`, indented as the line it goes before in html."""
    if format == "markdown":
        escaped = MARKDOWN_SPECIAL.sub(r"\\\1", title)
        return f"{'#' * int(tag[1])} {escaped}\n"
    if format == "html":
        return f"{before[: _indent(before)]}<{tag}>{html.escape(title)}</{tag}>"
    return title


def _words(text: str) -> str:
    """`text` as its lower-cased words, one space apart."""
    return NOT_WORDS.sub(" ", text.lower()).strip()
