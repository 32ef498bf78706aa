"""PDF to text: page markers, document information, encrypted, damaged and image-only files."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader, PdfWriter

from extract.hostile_pdf import bomb_pdf
from webreach.errors import ExtractionError, ResponseTooLargeError
from webreach.extract.cascade import extract
from webreach.extract.pdf import read_pdf
from webreach.testing.pdfs import text_pdf

URL = "https://notes.example/tide-tables.pdf"


def build_pdf(pages: list[str], *, title: str = "Tide tables", author: str = "Ana Ruiz") -> bytes:
    """A minimal, valid PDF written by hand: one Helvetica text line per page and an info dictionary."""
    return text_pdf(pages, title=title, author=author, created="D:20240305100000Z")


def encrypt(pdf: bytes, user_password: str) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf)))
    writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_pages_are_joined_with_markers() -> None:
    result = read_pdf(build_pdf(["High water at ten", "Low water at four", "Spring tides"]))
    assert result.text == ("High water at ten\n\n--- page 2 ---\n\nLow water at four\n\n--- page 3 ---\n\nSpring tides")
    assert (result.pages, result.title, result.author, result.date) == (3, "Tide tables", "Ana Ruiz", "2024-03-05")


def test_extract_reads_a_pdf_whatever_the_header_says() -> None:
    for content_type in ("application/pdf", "application/octet-stream", None):
        result = extract(build_pdf(["High water at ten"]), content_type=content_type, url=URL, format="markdown")
        assert (result.text, result.title, result.extractor) == ("High water at ten", "Tide tables", "pypdf")
        assert result.content_type == "application/pdf"


def test_pdf_in_html_and_json_formats() -> None:
    html = extract(build_pdf(["A < B"]), content_type="application/pdf", url=URL, format="html").text
    assert "<h1>Tide tables</h1>" in html and "<p>A &lt; B</p>" in html
    document = extract(build_pdf(["A < B"]), content_type="application/pdf", url=URL, format="json").text
    assert '"content": "A < B"' in document and '"author": "Ana Ruiz"' in document


def test_page_cap_says_what_was_left_out() -> None:
    result = read_pdf(build_pdf([f"Page {n}" for n in range(1, 6)]), max_pages=2)
    assert result.text.endswith("Page 2\n\n[3 more pages not extracted: the 2 page budget was reached]")


def test_empty_user_password_is_opened() -> None:
    result = read_pdf(encrypt(build_pdf(["Readable despite encryption"]), user_password=""))
    assert result.text == "Readable despite encryption"


def test_password_protected_pdf_is_a_typed_error() -> None:
    with pytest.raises(ExtractionError) as caught:
        extract(encrypt(build_pdf(["Secret"]), user_password="secret"), content_type="application/pdf", url=URL)
    assert (caught.value.code, caught.value.url) == ("extraction_failed", URL)
    assert "password" in caught.value.message


@pytest.mark.parametrize(
    "body",
    [b"%PDF-1.4\nthis is not really a pdf", b"%PDF-1.7\n" + bytes(range(256)) * 8, b"%PDF-"],
)
def test_broken_pdf_is_a_typed_error(body: bytes) -> None:
    with pytest.raises(ExtractionError) as caught:
        extract(body, content_type="application/pdf", url=URL)
    assert "damaged" in caught.value.message or "no text" in caught.value.message


def test_pdf_without_a_text_layer_is_a_typed_error() -> None:
    with pytest.raises(ExtractionError) as caught:
        read_pdf(build_pdf(["", ""]))
    assert "no text layer" in caught.value.message


def test_truncated_pdf_is_a_typed_error() -> None:
    pdf = build_pdf(["High water at ten"])
    with pytest.raises(ExtractionError):
        read_pdf(pdf[: len(pdf) // 3])


def test_text_budget_stops_extraction_and_says_so() -> None:
    result = read_pdf(build_pdf(["A" * 30, "B" * 30, "C" * 30]), max_chars=40)
    assert result.text == "A" * 30 + "\n\n--- page 2 ---\n\n" + "B" * 10 + (
        "\n\n[1 more pages not extracted: the 40 character budget was reached]"
    )


def test_time_budget_stops_after_the_first_page() -> None:
    result = read_pdf(build_pdf(["High water", "Low water"]), seconds=0)
    assert result.text == "High water\n\n[1 more pages not extracted: the time budget ran out]"


def test_a_page_inflating_past_the_stream_budget_is_refused_by_size() -> None:
    with pytest.raises(ResponseTooLargeError) as caught:
        read_pdf(bomb_pdf(pages=2, inflated=4 * 1024 * 1024), max_stream_bytes=1024 * 1024, url=URL)
    assert caught.value.code == "too_large" and caught.value.url == URL
    small = read_pdf(bomb_pdf(inflated=64 * 1024), max_stream_bytes=1024 * 1024)
    assert small.text == "still here"
