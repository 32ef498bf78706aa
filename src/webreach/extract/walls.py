"""Recognising pages that are not the content: bot walls (CAPTCHA, challenge, access denied) and JavaScript shells.

Every marker lives in the tables below. A wall is a short page, so each marker only counts while the page's
visible text stays under its `max_text`: an article *about* CAPTCHAs or a normal page that merely loads
Cloudflare's or reCAPTCHA's scripts is long, and is read as content.
- strong markers only ever appear on interstitials (Cloudflare's `cf_chl_opt`, DataDome's captcha-delivery.com,
  PerimeterX's press-and-hold, Akamai's edgesuite reference page, the search engines' own walls);
- weak ones (a reCAPTCHA/hCaptcha/Turnstile widget, "verify you are human") also sit on login and contact forms,
  so they need a page with almost nothing else on it.
A JavaScript shell is a page whose visible text is next to nothing while it carries an app root (#root, #app,
#__next...), an "enable JavaScript" notice, text only inside <noscript>, or nothing but scripts. An empty frame is
its larger cousin: a site's header, menus and footer around an empty app root its scripts fill, so the reading is
a few words ("I'm shopping for...") however much furniture the page shows, a catalogue's menus and sort control
around a line that says "Loading...", where its items will go, or nothing but the labels of the site's menus.
refuse_wall and refuse_shell turn what is found into the typed errors a read answers with (PageBlockedError,
NeedsBrowserError), each with a hint saying what to try instead; short_visible_text is the text they look at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice

from lxml import etree

from webreach.errors import READ_WITH_BROWSER, READ_WITH_JINA, BlockKind, NeedsBrowserError, PageBlockedError, hint
from webreach.extract.extracted import WORD, seen_text
from webreach.extract.preparation import html_tree, tags
from webreach.extract.readings.card_grid import in_furniture
from webreach.extract.tree import Element

WALL_HINT = hint(
    "The site put a bot check in front of the page; try {} or {}, or another source.",
    READ_WITH_BROWSER,
    READ_WITH_JINA,
)
SHELL_HINT = hint("Read it again with {} (or {}), which render JavaScript.", READ_WITH_BROWSER, READ_WITH_JINA)
STRONG_TEXT = 3000  # chars of visible text; the real interstitials seen run from 30 to ~1,100
WEAK_TEXT = 800
SHELL_TEXT = 200  # a shell shows less than this outside <noscript>
BARE_TEXT = 40  # below this, scripts alone make a shell
EMPTY_ROOT_TEXT = 25  # an app root holding less than this ("Loading…") counts as empty
FRAME_READING = 10  # words: a reading this short beside an empty app root is an empty frame,
FRAME_CHARS = 60  # if it is this short in letters too: a CJK sentence is one "word" between punctuation marks
FRAME_MENU = 50  # words: a reading this short with a line saying only "Loading..." is a frame its scripts fill
# "Loading", "Loading…", "- Loading...": a line of the reading, and the whole text of an element that is not a
# heading (a section titled "Loading" is content); [^\w\n], not \W, so a run of symbol-only lines is read once
LOADING = re.compile(r"^[^\w\n]*loading[^\w\n]*$", re.IGNORECASE | re.MULTILINE)
LOADING_LABELS = etree.XPath(
    "//body//*[not(self::h1 or self::h2 or self::h3 or self::h4 or self::h5 or self::h6 or self::title)]"
    "[string-length(normalize-space()) < 20][contains(translate(normalize-space(), 'LOADING', 'loading'), 'loading')]"
)
# share of a short reading's words in lines that are each a whole link or button label: a reading this much menu
# is the site's frame (a clinic's home page read as its 15 menu entries, a forum shell read as its header links);
# a catalogue read as product links is long, and the few short readings of real pages on WCXB and AEB stay under
# 0.75
MENU_SHARE = 0.9
MENU_MARKS = "#*->|`_[ \t"  # markdown's marks around a line's words: heading, list, quote, table, emphasis, link
# a script start tag, its attributes (bounded: a page of unclosed "<script" tags is scanned once), its ">"
SCRIPT_TAG = re.compile(r"<script\b([^>]{0,1000})(>?)", re.IGNORECASE)
SCRIPT_SOURCE = re.compile(r"\bsrc\s*=", re.IGNORECASE)
APP_SCRIPT_CHARS = 200  # an inline script this long (blanks aside) is an app's code, not a tag manager's line
SERVED = "//main | //article | //*[@role='main']"  # a server-rendered content element: holding text, no frame


@dataclass(frozen=True)
class Marker:
    """One sign of a wall: literal needles, where to look for them, what they mean, how short the page must be.

    `source` needles are matched case-sensitively in the raw HTML (ids, class names, script URLs keep their
    case); `text` needles are lowercase and matched in the lowercased visible text and title.
    """

    name: str
    kind: BlockKind
    source: tuple[str, ...] = ()
    text: tuple[str, ...] = ()
    max_text: int = STRONG_TEXT


MARKERS: tuple[Marker, ...] = (
    # "Just a moment..." alone is also a spinner's caption; the challenge script's names are not
    Marker(
        "cloudflare challenge",
        "captcha",
        ("cf_chl_opt", "cf-challenge", "/cdn-cgi/challenge-platform/h/"),
        ("checking if the site connection is secure",),
    ),
    Marker("cloudflare block", "blocked", text=("you have been blocked", "used cloudflare to restrict access")),
    Marker("challenge form", "captcha", ('id="challenge-form"', "id='challenge-form'", "id=challenge-form")),
    Marker("ddos-guard", "captcha", ("check.ddos-guard.net",), ("ddos-guard",)),
    Marker("datadome", "captcha", ("captcha-delivery.com",)),
    Marker("perimeterx", "captcha", ("px-captcha", "_pxCaptcha"), ("press & hold",)),
    Marker("aws waf", "captcha", ("AwsWafIntegration", "awsWafCookieDomainList", "gokuProps")),
    Marker("imperva", "blocked", ("_Incapsula_Resource",), ("incapsula incident id",)),
    Marker("akamai", "blocked", ("errors.edgesuite.net",)),
    Marker("sucuri", "blocked", ("sucuri_cloudproxy",), ("sucuri website firewall",)),
    Marker("google unusual traffic", "captcha", text=("unusual traffic from your computer network",)),
    Marker("bing challenge", "captcha", text=("please solve the challenge below",)),
    Marker("duckduckgo anomaly", "captcha", ("anomaly-modal",), ("made by a human",)),
    Marker("baidu verification", "captcha", ("wappass.baidu.com",), ("百度安全验证",)),
    Marker("sogou antispider", "captcha", ("antispider",)),
    Marker("verification page", "captcha", text=("安全验证", "人机验证", "滑动验证", "请完成验证"), max_text=WEAK_TEXT),
    Marker(
        "captcha widget",
        "captcha",
        ("g-recaptcha", "recaptcha/api.js", "recaptcha/enterprise.js", "h-captcha", "cf-turnstile"),
        max_text=WEAK_TEXT,
    ),
    Marker(
        "human check",
        "captcha",
        text=(
            "verify you are human",
            "verifying you are human",
            "verify that you are human",
            "are you a robot",
            "not a robot",
            "checking your browser",
            "complete the security check",
            "enable javascript and cookies",
        ),
        max_text=WEAK_TEXT,
    ),
)

APP_ROOTS = (
    "//*[@id='root' or @id='app' or @id='__next' or @id='__nuxt' or @id='___gatsby' or @id='svelte'"
    " or @id='q-app' or @id='main-app' or @ng-version or @ng-app or @data-reactroot]|//app-root"
)
JS_NOTICE = re.compile(
    r"(?:enable|turn on|activate|requires?|need) (?:your )?javascript|javascript (?:is )?(?:required|disabled)"
    r"|javascript must be enabled",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Wall:
    """A recognised wall: the marker's name and whether it is a CAPTCHA or a plain refusal."""

    name: str
    kind: BlockKind


def find_wall(source: str, text: str) -> Wall | None:
    """The wall a page is, if any: `source` is its raw HTML, `text` its visible text with the title."""
    length = len(text)
    lowered = text.lower()
    for marker in MARKERS:
        if length > marker.max_text:
            continue
        if any(needle in source for needle in marker.source) or any(needle in lowered for needle in marker.text):
            return Wall(marker.name, marker.kind)
    return None


def find_js_shell(source: str, tree: Element, visible: str) -> str | None:
    """Why the page (`source` parsed as `tree`) looks like a JavaScript-only shell, or None. `visible` excludes
    <noscript> text."""
    if len(visible) >= SHELL_TEXT:
        return None
    if JS_NOTICE.search(visible):
        return "it asks for JavaScript"
    body = tags.body_of(tree)
    noscript = " ".join(" ".join(n.itertext()) for n in body.iter("noscript"))
    if JS_NOTICE.search(noscript):
        return "its <noscript> says JavaScript is required"
    if len(noscript.split()) > len(visible.split()) + 20:
        return "its text is only inside <noscript>"
    if (root := empty_app_root(tree)) is not None:
        return f"its app root <{root.tag} id={root.get('id') or '?'}> is empty"
    if len(visible) < BARE_TEXT and has_app_script(source):
        return "it has scripts and no text"
    return None


def has_app_script(source: str) -> bool:
    """Whether the markup `source` loads a script from a file or holds one of APP_SCRIPT_CHARS characters or more:
    what fills a frame. Read in the markup: the tree keeps no scripts (html_tree.drop_scripts)."""
    for tag in SCRIPT_TAG.finditer(source):
        if SCRIPT_SOURCE.search(tag.group(1)):
            return True
        if tag.group(2):
            start, stop = tag.end(), tag.end() + 4 * APP_SCRIPT_CHARS
            end = source.find("</", start, stop)
            if len("".join(source[start : end if end >= 0 else stop].split())) >= APP_SCRIPT_CHARS:
                return True
    return False


def find_empty_frame(tree: Element, reading: str) -> str | None:
    """Why the page looks like a frame whose content its scripts fill, or None: no <main> or <article> holds text,
    and either the extracted `reading` is a few words beside an empty app root (whose text, a loading label at
    most, is not what was read) or it is menus around a line that says only "Loading..."."""
    words = list(islice(WORD.finditer(seen_text(reading)), FRAME_MENU))
    if not words or len(words) >= FRAME_MENU:
        return None
    reason = _empty_root(tree, words) or _loading_line(tree, reading, words) or _menu_labels(tree, reading, words)
    if reason is None or any("".join(served.itertext()).strip() for served in tree.xpath(SERVED)):
        return None
    return reason


def _empty_root(tree: Element, words: list[re.Match[str]]) -> str | None:
    """The reason when the reading's `words` are fewer than FRAME_READING (and FRAME_CHARS letters) beside an
    empty app root whose label is not what was read."""
    if len(words) >= FRAME_READING or sum(len(word.group()) for word in words) >= FRAME_CHARS:
        return None
    root = empty_app_root(tree)
    if root is None:
        return None
    label = shown_text(root)
    if label and label in " ".join(word.group() for word in words):
        return None  # a short page rendered inside its root ("Page not found"), not a frame
    return f"its app root <{root.tag} id={root.get('id') or '?'}> is empty; the rest is {len(words)} words"


def _loading_line(tree: Element, reading: str, words: list[re.Match[str]]) -> str | None:
    """The reason when the reading (`words`, fewer than FRAME_MENU) has a line that only says "Loading" and the page
    shows it as a label, not as a heading."""
    if LOADING.search(seen_text(reading)) is None:
        return None
    if not any(LOADING.fullmatch(shown_text(label)) for label in LOADING_LABELS(tree)):
        return None
    return f"where its content goes it says only 'Loading'; the reading is {len(words)} words"


def _menu_labels(tree: Element, reading: str, words: list[re.Match[str]]) -> str | None:
    """The reason when MENU_SHARE of the reading's words (fewer than FRAME_MENU) are in lines that are each the
    whole label of a link or button in the site's menus, header or footer (a page whose content is a short list of
    links, a book's contents, is read)."""
    lines = [" ".join(line.strip(MENU_MARKS).split()) for line in seen_text(reading).splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        return None
    said = set(lines)
    # the label is compared first: the ancestor walk runs only for controls whose label the reading says
    labels = {
        label
        for control in tags.body_of(tree).iter("a", "button")
        if (label := shown_text(control)) in said and in_furniture(control)
    }
    in_labels = sum(len(WORD.findall(line)) for line in lines if line in labels)
    if in_labels < MENU_SHARE * sum(len(WORD.findall(line)) for line in lines):
        return None
    return f"the reading is only the labels of its menus, {len(words)} words"


def empty_app_root(tree: Element) -> Element | None:
    """The first app root (#root, #app, #__next ...) holding next to no text, or None."""
    for root in tree.xpath(APP_ROOTS):
        if len(shown_text(root)) < EMPTY_ROOT_TEXT:
            return root
    return None


def shown_text(element: Element) -> str:
    """The text inside `element`, its whitespace runs collapsed to single spaces."""
    return " ".join("".join(element.itertext()).split())


def refuse_shell(reason: str, url: str) -> None:
    """Raise NeedsBrowserError: the page's content is rendered by scripts (`reason` says what shows it)."""
    raise NeedsBrowserError(
        f"Nothing to read without JavaScript: {html_tree.page_name(url)} renders its content with scripts ({reason}).",
        url=url or None,
        hint=SHELL_HINT,
    )


def refuse_wall(page: str, tree: Element, visible: str, url: str) -> None:
    """Raise PageBlockedError when the page (whose `visible` text is short) is a CAPTCHA or access-denied wall."""
    wall = find_wall(page, f"{html_tree.title_tag(tree) or ''}\n{visible}")
    if wall is not None:
        raise PageBlockedError(
            f"A {wall.name} page answered instead of {html_tree.page_name(url)}.",
            kind=wall.kind,
            url=url or None,
            hint=WALL_HINT,
        )


def short_visible_text(tree: Element) -> str | None:
    """The page's visible text when it is short enough for a wall or a shell, else None (not computed)."""
    # the estimate ignores block breaks, so give it slack before trusting it to rule a page out
    if html_tree.text_size(tree) > STRONG_TEXT * 1.2 + 100:
        return None
    return html_tree.visible_text(tree)
