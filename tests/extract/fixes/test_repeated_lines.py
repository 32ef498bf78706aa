"""A paragraph a reading says twice is kept once; rows, list items, code and short labels repeat as they are."""

from __future__ import annotations

from webreach.extract.cascade import extract
from webreach.extract.fixes.repeated_lines import drop_repeated_lines
from webreach.extract.preparation import html_tree

HERO = "Flow from idea to outcome in seconds with one shared canvas"
FIGURES = "Over 250,000 companies plan their launches on it every week"


def dropped(text: str, format: str = "text", page: str = "<p>nothing</p>") -> str:
    tree = html_tree.parse(f"<html><body>{page}</body></html>")
    return drop_repeated_lines(tree, text, format)  # type: ignore[arg-type]


def test_a_copy_per_screen_size_is_read_once() -> None:
    text = f"{HERO}\n{FIGURES}\nAsk us\n{HERO}\n{FIGURES}\nAsk us"
    assert dropped(text) == f"{HERO}\n{FIGURES}\nAsk us\nAsk us"  # "Ask us" is a label: under three words


def test_case_and_spacing_do_not_make_a_line_new() -> None:
    assert dropped(f"{HERO}\n  {HERO.upper()}  ") == HERO


def test_table_rows_list_items_and_code_repeat() -> None:
    text = (
        "| Unlimited boards | Yes | Yes |\n| Unlimited boards | Yes | Yes |\n"
        "- free for the whole team\n- free for the whole team\n1. open the settings page\n1. open the settings page"
    )
    assert dropped(text) == text
    code = "for item in items:\n    total += item.price\nfor item in items:\n    total += item.price"
    page = f"<pre>{code}</pre>"
    assert dropped(code, page=page) == code  # text has no fences: the page's <pre> says these are code
    fenced = f"```\n{code}\n```"
    assert dropped(fenced, "markdown") == fenced


def test_html_drops_only_repeated_one_line_paragraphs() -> None:
    html = f"<html>\n<body>\n<p>{HERO}</p>\n<li>{FIGURES}</li>\n<p>{HERO}</p>\n<li>{FIGURES}</li>\n</body>\n</html>"
    assert (
        dropped(html, "html")
        == f"<html>\n<body>\n<p>{HERO}</p>\n<li>{FIGURES}</li>\n<li>{FIGURES}</li>\n</body>\n</html>"
    )


REPLY = "<div class='post'><div class='author'>{name}</div><blockquote>{quote}</blockquote><p>{text}</p></div>"
FIRST = "The flickering green light on the board is annoying in a bedroom at night, can it be turned off?"


def thread() -> bytes:
    answer = "Yes, set the activity trigger to none in the config file and reboot the board once."
    thanks = "That worked for me as well, the room is finally dark, thank you both for the help."
    posts = (
        REPLY.format(name="ann", quote="", text=FIRST)
        + REPLY.format(name="bob", quote=FIRST, text=answer)
        + REPLY.format(name="cid", quote=FIRST, text=thanks)
    )
    return (
        "<html><head><title>Turning off the LEDs</title></head><body><main>"
        f"<h1>Turning off the LEDs</h1>{posts}</main></body></html>"
    ).encode()


def test_a_thread_reads_a_quoted_post_once() -> None:
    text = extract(thread(), content_type="text/html", url="https://forum.example/t/leds/361697", format="text").text
    assert text.count(FIRST) == 1
    assert "activity trigger" in text and "finally dark" in text


def test_documentation_keeps_every_line() -> None:
    note = "Do not include credentials in production apps; read them from the environment instead."
    tabs = "".join(
        f"<div class='tab'><h3>{language}</h3><p>{note}</p><pre>run {language}</pre></div>"
        for language in ("Node", "Python")
    )
    page = (
        "<html><head><title>Quickstart</title></head><body><nav><a href='/docs'>Docs</a></nav><main>"
        f"<h1>Send a message</h1><p>{FIRST}</p>{tabs}<pre>one more block</pre></main></body></html>"
    ).encode()
    result = extract(page, content_type="text/html", url="https://docs.example.com/docs/quickstart", format="text")
    assert result.page_type == "documentation"
    assert result.text.count(note) == 2


def test_equal_short_lines_of_two_products_both_stay() -> None:
    specs = "Battery life up to 10 hours\nWeighs 1.2 kg with battery"
    text = f"Model A\n{specs}\nModel B\n{specs}"
    assert dropped(text) == text
    reply = "Same problem here, sadly."
    assert dropped(f"{HERO}\n{reply}\n{FIGURES}\n{reply}") == f"{HERO}\n{reply}\n{FIGURES}\n{reply}"


def test_a_line_said_twice_in_a_row_is_read_once() -> None:
    cards = "Dark Roast Coffee\n\nDark Roast Coffee\n$19.99\nSold out\nSold out\nBlueberry Coffee\n$19.99\nSold out"
    assert dropped(cards) == "Dark Roast Coffee\n\n$19.99\nSold out\nBlueberry Coffee\n$19.99\nSold out"
    # a row, a list item, a line of code or a one-word line said twice in a row is meant
    kept = "| Yes | Yes |\n| Yes | Yes |\n- one more time\n- one more time\nYes\nYes"
    assert dropped(kept) == kept
    code = "total += price\ntotal += price"
    assert dropped(code, page=f"<pre>{code}</pre>") == code


def test_a_short_line_inside_a_copied_block_goes_with_it() -> None:
    label = "Read the customer story"
    text = f"{HERO}\n{label}\n\n{FIGURES}\n{HERO}\n{label}\n\n{FIGURES}"
    assert dropped(text) == f"{HERO}\n{label}\n\n{FIGURES}"


def test_code_written_with_br_and_list_items_without_markers_repeat() -> None:
    code = "total = total + item.price * item.quantity + shipping"
    page = f"<pre>for item in items:<br>{code}<br>for item in more:<br>{code}</pre>"
    text = f"for item in items:\n{code}\nfor item in more:\n{code}"
    assert dropped(text, page=page) == text
    item = "Free parking for all visitors of the museum every day"
    listed = f"<ul><li>{item}</li></ul><p>Opening hours</p><ul><li>{item}</li></ul>"
    assert dropped(f"{item}\nOpening hours\n{item}", page=listed) == f"{item}\nOpening hours\n{item}"
    bullets = f"• {HERO}\n• {HERO}\na) {FIGURES}\na) {FIGURES}"
    assert dropped(bullets) == bullets


def test_markdown_fences_close_as_commonmark_says_and_indented_code_repeats() -> None:
    code = "print('the report for every customer in the list')"
    fenced = f"````\n{code}\n```\n{code}\n````"
    assert dropped(fenced, "markdown") == fenced
    indented = f"Run:\n\n    {code}\n\nAgain:\n\n    {code}"
    assert dropped(indented, "markdown") == indented


def test_a_dropped_markdown_paragraph_leaves_no_run_of_blank_lines() -> None:
    markdown = f"{HERO}\n\n{FIGURES}\n\n{HERO}\n\nThe end of the page is here."
    assert dropped(markdown, "markdown") == f"{HERO}\n\n{FIGURES}\n\nThe end of the page is here."
