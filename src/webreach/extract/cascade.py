"""From a fetched body to readable content: the one entry point the readers call.

    extract(body, *, content_type, url, format="markdown", options=ExtractOptions()) -> Extracted

`body` is the decoded-transfer body (Content-Encoding already undone by the transport), `content_type` the
response header (None if absent), `url` the final URL (resolves relative links, hints the type by extension).
`format` is one of markdown | text | html (the cleaned main-content HTML) | json (metadata plus content).
Extracted carries text, content_type, format, title, author, date, language, canonical_url, sitename and the
extractor that produced it. The call is pure: no network, no files, no global state. It raises the FetchErrors
of webreach.errors, with `url` attached:
- UnsupportedContentError (unsupported_content) for images, media, archives and other binaries,
- PageBlockedError (kind captcha | blocked) for CAPTCHA, challenge and access-denied pages,
- NeedsBrowserError (needs_browser) for JavaScript-only shells and for frames whose scripts fill the content area
  (a reading of a few words beside an empty app root),
- ExtractionError (extraction_failed) when a page, PDF or document holds no readable text.

Which reader: sniff.py decides (PDF, HTML, JSON, XML, text or binary); charset.py decodes; pdf.py and
passthrough.py handle the non-HTML kinds. HTML is parsed once (html_tree.py, which also lays out whitespace as a
browser would, so pretty-printed sources do not leak line breaks and indentation into paragraphs) and goes
through this cascade, each stage engaging only when the one before it under-delivered:
0. page_type.py names the page's kind (article, forum, product, listing, collection, documentation, service)
   from what it declares (JSON-LD, microdata, URL routes, markup); the kind picks stage 1's profile (profiles.py)
   and becomes Extracted.page_type when the classifier is sure. Products, listings, collections, docs and service
   pages are read balanced, forums for recall with comments (their replies are the content; a thread whose
   microdata lists its posts is read post by post, posts.py); article-like pages take the precision path below;
   a page the classifier is unsure of is read balanced unless something marks it as an article.
   docs/page-kinds.md has the per-kind measurements on WCXB (bench/extraction.py --wcxb).
   A sure product page (with no sign of an article) loses its customer reviews first (product_reviews.py).
1. trafilatura in precision mode, fast (no second-opinion extractors), comments left out. On the article
   extraction benchmark (bench/extraction.py) this is the most accurate single setting and one of the fastest. It
   reads without the elements it deletes unread (navigation, footers, icons: set_aside.py), the same text sooner.
   Before anything is returned, a short result (under walls.STRONG_TEXT chars) has the page checked for bot
   walls: a long result cannot come from a wall, so long pages never pay for the check.
2. trafilatura balanced, with its whole internal cascade (readability and jusText comparison, baseline rescue,
   recall escalation), when stage 1 gave less than `min_chars` - precision mode sometimes keeps only a
   boilerplate paragraph. A page that short is first checked for being a JavaScript shell. The stage-2 text
   replaces stage 1's only when it is `fallback_gain` times longer, so a genuinely short page keeps its
   precise extraction. When the balanced text is short too, the one with comments kept is taken if it is another,
   longer text: trafilatura's comment filter had taken the content (balanced_reading). A precise reading that is
   not short but left out the page's sections (it says under a tenth of at least six h2/h3 titles and holds under
   30% of the visible text: a "best of" list read as its introduction) is weighed against the balanced one the
   same way (WCXB tune half 0.8685 -> 0.8698, check half 0.8440 -> 0.8479, articles 0.931 -> 0.935 there; AEB
   unchanged; 0.27 ms a median precise page for the check, a balanced run on 1% of pages).
2a. The precise path again: the page's one story element read alone, balanced (else for recall), when it and its
   reading hold far more words than the precise reading kept; else the story the page declares in JSON-LD
   (lone_story.py; WCXB tune half 0.8752 -> 0.8788, check half 0.8571 -> 0.8602, AEB unchanged).
2b. The page's largest family of repeated blocks (same tag and class: posts, feed entries, sections;
   repeated_blocks.py), when it holds several times the words trafilatura kept and nearly all of them: trafilatura
   sometimes keeps one post's vote bar or one section of a page built of many. Product pages skip it; a forum
   thread takes it at a lower gain whatever trafilatura's length (a thread read as its opening post).
2c. Listings, collections, service pages and unsure pages without article evidence: the page's main region
   (<main>, else <body>, without navigation, headers, footers and named menus or cookie boxes; main_region.py)
   when it holds 1.2 to 4 times the words kept so far: their content is every section and every grid.
   Documentation takes it at 1.05 to 1.5 times: the page less its sidebars, when trafilatura left out a section.
   Any page not surely an article whose reading is still under 100 words takes the main region when that holds
   2 to 50 times more: trafilatura missed the page (a catalogue it read as a cookie notice). An unsure page takes
   it at 0.25 to 0.9 times too: trafilatura kept menus and footers around it (its last resort is the whole page).
2d. Product pages: the name, price and description the shop declares in JSON-LD, where the text does not say
   them (product_facts.py).
2e. Every reading but documentation's and an article's: a paragraph it says more than once is kept the first
   time only (a copy per screen size, a quoted post; not table rows, list items or code; repeated_lines.py).
2f. Every reading: the headings (h2-h6) of the sections it holds, put back over them where trafilatura recovered a
   section's paragraphs without its heading or dropped the heading in precision mode (section_headings.py).
2g. The learned block scorer (blocks/, gradient-boosted trees trained on WCXB dev's tune half) edits text and
   markdown readings of the kinds of page blocks/edits.json names: lines it judges boilerplate left out, blocks
   next to the reading it judges content put back. The kinds are those where it gains on the tuning half, scored
   out of fold (bench/block_scorer.py gate writes the file; docs/decisions.md has the tables); elsewhere the
   rules' reading stands.
3. The page's visible text, when trafilatura returns nothing at all. A page whose reading is still a few words
   beside an empty app root (#root, #__next ...), menus around a line saying only "Loading...", or only the labels
   of the site's menus, is an empty frame (walls.py): its content comes with scripts, and NeedsBrowserError says
   so rather than returning its search box's label (WCXB's check half: three shop item pages whose truth is
   empty, products 0.600 -> 0.645; no other page of either half, nor of AEB, moves).
Metadata (title, author, date, language, sitename, canonical URL) is what the page declares, read by
metadata.py: trafilatura's extract_metadata would cost more than the extraction itself (see there).
trafilatura is imported here and nowhere else.
"""

from __future__ import annotations

import logging
from contextlib import nullcontext
from dataclasses import dataclass, replace

import trafilatura
from trafilatura.settings import MANUALLY_CLEANED

from webreach.errors import ExtractionError, UnsupportedContentError
from webreach.extract import charset, walls
from webreach.extract.blocks.scorer import Edits, pruned_reading
from webreach.extract.extracted import Extracted, as_json, content_words, paragraphs_html, word_bag
from webreach.extract.fixes.product_facts import product_facts, with_facts
from webreach.extract.fixes.repeated_lines import drop_repeated_lines
from webreach.extract.fixes.section_headings import restore_headings, sections_left_out
from webreach.extract.kinds.page_type import PageKind, classify
from webreach.extract.kinds.profiles import BALANCED, BALANCED_WITH_COMMENTS, PRECISE, RECALL, Profile, profile_for
from webreach.extract.last_resort import typed_errors
from webreach.extract.metadata import JsonLd, page_json_ld, read_metadata
from webreach.extract.passthrough import read_json, read_text, read_xml
from webreach.extract.pdf import DEFAULT_MAX_PAGES, read_pdf
from webreach.extract.preparation import html_tree
from webreach.extract.preparation.product_reviews import remove_reviews
from webreach.extract.preparation.set_aside import set_aside
from webreach.extract.readings.card_grid import grid_text
from webreach.extract.readings.lone_story import whole_story
from webreach.extract.readings.main_region import widen
from webreach.extract.readings.posts import render_thread, thread_posts, worth_keeping
from webreach.extract.readings.repeated_blocks import Rescue, rescue_text
from webreach.extract.sniff import sniff
from webreach.extract.tree import Element
from webreach.models import ReadFormat

__all__ = ["ExtractOptions", "Extracted", "extract", "extract_html"]

LOGGER = logging.getLogger(__name__)
TRAFILATURA_FORMATS: dict[ReadFormat, str] = {"markdown": "markdown", "text": "txt", "html": "html", "json": "markdown"}
EMPTY_HINT = html_tree.EMPTY_HINT


@dataclass(frozen=True)
class ExtractOptions:
    """The cascade's tuning; the defaults are the ones bench/extraction.py measured best."""

    min_chars: int = 600  # stage 1 shorter than this engages stage 2 (about 100 words)
    fallback_gain: float = 2.0  # stage 2 must be this many times longer to replace stage 1
    fallback: bool = True  # stage 2; without it the cascade is precision-only (faster, sometimes much shorter)
    links: bool = True  # keep links in markdown and html (never in text)
    tables: bool = True
    pdf_max_pages: int = DEFAULT_MAX_PAGES
    pdf_seconds: float | None = None  # no PDF page is started after this (worker.py sets it from the deadline)
    page_types: bool = True  # read each confidently classified kind of page with its profile (page_type.py)
    block_scorer: bool = True  # stage 2g: the learned block scorer edits readings where block_edits names the kind
    block_edits: Edits | None = None  # which kinds, at which thresholds (None: the shipped ones, edits.json)


@dataclass(frozen=True)
class PageReading:
    """One HTML page being read: what every stage of the cascade reads from, built once by prepare()."""

    tree: Element  # the parsed, prepared page (preparation/html_tree.py)
    page: str  # the decoded markup it was parsed from
    url: str
    format: ReadFormat  # markdown | text | html (json reads as markdown)
    options: ExtractOptions
    kind: PageKind
    settings: Profile  # the kind's profile (kinds/profiles.py), fast on an overweight page
    json_ld: JsonLd  # the page's JSON-LD, read once


# a reading under SHORT_WORDS words of a page not surely an article gives way to the main region holding SHORT_GAINS
# times its words (tune half 0.857 -> 0.859: collections 0.707 -> 0.722, listings 0.669 -> 0.690; best of 60-200
# words and 1.5-3x; sure articles are left out, a short story stays short: AEB 0.9705 -> 0.9604 with them)
SHORT_WORDS = 100
SHORT_GAINS = ((2.0, 50.0),)
# a short balanced reading gives way to the reading with comments kept when that holds under this share of its
# words: trafilatura's comment filter took the content, not a comment section under it (balanced_reading)
COMMENT_FILTER_SHARE = 0.5


@typed_errors  # anything untyped that still escapes below becomes an ExtractionError (last_resort.py)
def extract(
    body: bytes,
    *,
    content_type: str | None,
    url: str,
    format: ReadFormat = "markdown",
    options: ExtractOptions | None = None,
) -> Extracted:
    """Readable content of `body` in `format`; see the module docstring for the errors it raises."""
    options = options or ExtractOptions()
    sniffed = sniff(body, content_type, url)
    if sniffed.kind == "binary":
        raise UnsupportedContentError(
            f"Cannot extract text from {html_tree.page_name(url)}: "
            f"it is {sniffed.media_type} content ({len(body):,} bytes).",
            content_type=sniffed.media_type,
            size=len(body),
            url=url or None,
        )
    # json wraps the markdown rendering (plus structured data where the body has it)
    inner: ReadFormat = "markdown" if format == "json" else format
    if sniffed.kind == "pdf":
        pdf = read_pdf(body, max_pages=options.pdf_max_pages, seconds=options.pdf_seconds, url=url or None)
        text = paragraphs_html(pdf.text, pdf.title) if inner == "html" else pdf.text
        result = Extracted(
            text, sniffed.media_type, inner, pdf.title, pdf.author, pdf.date, extractor="pypdf", truncated=pdf.truncated
        )
    else:
        decoded = charset.decode(body, sniffed.charset, markup=sniffed.kind in ("html", "xml"))
        if sniffed.kind == "html":
            result = extract_html(decoded.text, url=url, format=inner, content_type=sniffed.media_type, options=options)
        elif sniffed.kind == "json":
            result = read_json(decoded.text, sniffed.media_type, inner)
        elif sniffed.kind == "xml":
            result = read_xml(decoded.text, sniffed.media_type, inner)
        else:
            result = read_text(decoded.text, sniffed.media_type, inner)
    return as_json(result, url) if format == "json" else result


def extract_html(
    page: str,
    *,
    url: str,
    format: ReadFormat = "markdown",
    content_type: str = "text/html",
    options: ExtractOptions | None = None,
) -> Extracted:
    """The main content of an HTML page (already decoded) through the numbered cascade above."""
    reading = prepare(page, url, format, options or ExtractOptions())
    tree = reading.tree
    # 1. trafilatura with the kind's profile (precision mode for articles); forum posts or a card grid may win
    text, extractor = first_stage(reading)
    visible = walls.short_visible_text(tree) if len(text) < walls.STRONG_TEXT else None
    if visible is not None:
        walls.refuse_wall(page, tree, visible, url)
    short = len(text) < reading.options.min_chars or not text.strip()
    if short and visible is not None and (reason := walls.find_js_shell(page, tree, visible)):
        walls.refuse_shell(reason, url)
    if reading.options.fallback and reading.settings == PRECISE:
        # 2. trafilatura balanced, with its own fallbacks (a kind's profile already is at least balanced)
        text, extractor = second_stage(reading, text, extractor, short=short)
        text, extractor = story_stage(reading, text, extractor)
    if reading.options.page_types:
        text, extractor = kind_stages(reading, text, extractor)
    if short and (reason := walls.find_empty_frame(tree, text)):
        walls.refuse_shell(reason, url)
    if reading.settings.once:
        # 2e. a paragraph said twice (a copy per screen size, a quoted post) read once (repeated_lines.py)
        text = drop_repeated_lines(tree, text, format)
    # 2f. the headings of the sections the reading kept, which trafilatura drops and a main region may leave out
    # with the <header> around them (section_headings.py)
    text = restore_headings(tree, text, format)
    if reading.options.block_scorer:
        # 2g. the learned block scorer's edits, on the kinds of page where they measurably help (blocks/scorer.py)
        text = pruned_reading(tree, reading.kind, reading.json_ld, text, format, edits=reading.options.block_edits)
    if not text.strip():
        # 3. whatever a reader would see
        visible = visible if visible is not None else html_tree.visible_text(tree)
        if not visible:
            raise ExtractionError(f"No readable text on {html_tree.page_name(url)}.", url=url or None, hint=EMPTY_HINT)
        text, extractor = paragraphs_html(visible) if format == "html" else visible, "visible-text"
    meta = read_metadata(tree, url, reading.json_ld)
    page_type = reading.kind.name if reading.kind.confident else None
    return Extracted(text, content_type, format, extractor=extractor, page_type=page_type, **vars(meta))


def prepare(page: str, url: str, format: ReadFormat, options: ExtractOptions) -> PageReading:
    """The page parsed once, its JSON-LD read once, its kind named and its profile chosen: every stage's context."""
    tree = html_tree.parse(page, url=url or None)
    json_ld = page_json_ld(tree)  # read once: the page's kind, a thread's posts, a product's facts, the metadata
    kind = classify(tree, url, json_ld) if options.page_types else PageKind("article", confident=False)
    settings = profile_for(kind) if options.page_types else PRECISE  # without kinds: the article cascade alone
    if kind.confident and kind.name == "product" and not kind.article_evidence:
        remove_reviews(tree)  # what buyers said is not the product (product_reviews.py)
    if html_tree.lighten(tree, page):  # a page of more elements than any real one: read in trafilatura's fast mode
        settings = replace(settings, fast=True)
    return PageReading(tree, page, url, format, options, kind, settings, json_ld)


def first_stage(reading: PageReading) -> tuple[str, str]:
    """Stage 1's text and extractor name: trafilatura with the reading's profile, or a forum's posts when its markup
    (or its JSON-LD) lists them and they are the page's content (posts.py)."""
    tree, url, format, kind, settings = reading.tree, reading.url, reading.format, reading.kind, reading.settings
    text = run_trafilatura(reading, settings)
    if settings == PRECISE:
        return text, "trafilatura"
    if kind.name == "forum" and (found := thread_posts(tree, reading.json_ld)):
        thread = render_thread(found, format, url)
        if worth_keeping(thread, text):
            return thread, "microdata-posts"
    if settings.grid and (cards := grid_text(tree, format, url)) and content_words(cards) > content_words(text):
        return (paragraphs_html(cards) if format == "html" else cards), "card-grid"
    return text, f"trafilatura-{kind.name}" if kind.confident else "trafilatura-balanced"


def kind_stages(reading: PageReading, text: str, extractor: str) -> tuple[str, str]:
    """Stages 2b-2d, which page kinds brought: the repeated blocks, the main region, a product's declared facts
    (from the page's JSON-LD)."""
    tree, url, format, settings = reading.tree, reading.url, reading.format, reading.settings
    if settings.rescue is not None and extractor != "microdata-posts":
        text, extractor = rescue_stage(reading, text, extractor, settings.rescue)
    bands = settings.widen + (settings.shrink if extractor.startswith("trafilatura") else ())
    if bands and text.strip() and (region := widen(tree, text, format, url, bands)):
        # 2c. listings, catalogues and marketing pages: every section of the main region (main_region.py)
        text, extractor = region, "main-region"
    elif short_reading(reading.kind, text) and (region := widen(tree, text, format, url, SHORT_GAINS)):
        # 2c'. any page but a sure article read in a few words: trafilatura missed it, the main region has it
        text, extractor = region, "main-region"
    if reading.kind.name == "product" and text.strip():
        # 2d. what the shop declares about the product and the page does not show (product_facts.py)
        text = with_facts(text, product_facts(reading.json_ld), format)
    return text, extractor


def second_stage(reading: PageReading, text: str, extractor: str, *, short: bool) -> tuple[str, str]:
    """Stage 2: the balanced reading in place of a precise one that is short, or that left out the page's sections
    (section_headings.sections_left_out), when it is `fallback_gain` times longer."""
    if short:
        wider = balanced_reading(reading)
    elif sections_left_out(reading.tree, text, reading.format):
        wider = run_trafilatura(reading, BALANCED)
    else:
        return text, extractor
    if len(wider) > reading.options.fallback_gain * len(text.strip()):
        return wider, "trafilatura-fallback"
    return text, extractor


def story_stage(reading: PageReading, text: str, extractor: str) -> tuple[str, str]:
    """Stage 2a: the page's one story element read alone (balanced, else for recall), when it holds far more words
    than the precise reading kept and its reading keeps as many, else the story the page declares in JSON-LD when
    that does (lone_story.py); else the text and extractor as they were."""

    def read(document: Element, recall: bool) -> str:
        return run_trafilatura(reading, RECALL if recall else BALANCED, document=document)

    story = whole_story(reading.tree, reading.page, text, read)
    if story is None:
        return text, extractor
    if story.declared:
        return (paragraphs_html(story.text) if reading.format == "html" else story.text), "json-ld-story"
    return story.text, "trafilatura-story"


def balanced_reading(reading: PageReading) -> str:
    """Stage 2's text: trafilatura balanced; when that is short too, the reading with comments kept if it is longer
    and another text (it holds under COMMENT_FILTER_SHARE of the first one's words). trafilatura's comment filter
    drops any block whose class starts with "comment": a LessWrong post sits in `commentOnSelection`, a lobste.rs
    discussion is all comments. Tune half, that post 0.06 -> 0.72 (its header was read); check half, the lobste.rs
    page 0.02 -> 0.72; a short AEB story with a long comment section keeps its 77 words (the comments version
    holds them all)."""
    text = run_trafilatura(reading, BALANCED)
    if len(text) >= reading.options.min_chars:
        return text
    kept = run_trafilatura(reading, BALANCED_WITH_COMMENTS)
    if len(kept) <= reading.options.fallback_gain * len(text.strip()):
        return text
    first = word_bag(text)
    if not first:  # nothing read but the comments: they are the page
        return kept
    shared = sum((first & word_bag(kept)).values())
    return kept if shared < COMMENT_FILTER_SHARE * sum(first.values()) else text


def short_reading(kind: PageKind, text: str) -> bool:
    """Whether `text` is so short for a page not surely an article that the main region should be considered."""
    if kind.confident and kind.name == "article":
        return False
    return 0 < content_words(text, up_to=SHORT_WORDS) < SHORT_WORDS


def rescue_stage(reading: PageReading, text: str, extractor: str, rule: Rescue) -> tuple[str, str]:
    """Stage 2b: the page's repeated blocks (posts, entries, sections) when they hold far more than trafilatura
    kept and most of what it kept (repeated_blocks.py); else the text and extractor as they were."""
    rescued = rescue_text(reading.tree, text, reading.format, reading.url, rule) if text.strip() else ""
    if not rescued:
        return text, extractor
    return (paragraphs_html(rescued) if reading.format == "html" else rescued), "repeated-blocks"


def run_trafilatura(reading: PageReading, settings: Profile, *, document: Element | None = None) -> str:
    """trafilatura's extraction of `document` (the reading's tree unless given; it works on a copy) with `settings`,
    "" when it finds nothing. A precise, fast reading does without the elements trafilatura deletes unread
    (set_aside.py)."""
    tree = reading.tree if document is None else document
    format, options = reading.format, reading.options
    aside = set_aside(tree, MANUALLY_CLEANED) if settings.precision and settings.fast else nullcontext()
    try:
        with aside:
            text = trafilatura.extract(
                tree,
                url=reading.url or None,
                output_format=TRAFILATURA_FORMATS[format],
                favor_precision=settings.precision,
                favor_recall=settings.recall,
                fast=settings.fast,
                include_comments=settings.comments,
                include_tables=options.tables,
                include_links=options.links and format in ("markdown", "html", "json"),
                include_images=False,
                with_metadata=False,
            )
    except Exception:  # a trafilatura bug on one odd page must not cost the read: the next stage takes over
        LOGGER.warning("trafilatura failed on %s", reading.url, exc_info=True)
        return ""
    return text or ""
