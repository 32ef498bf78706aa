"""Content sniffing: which reader a body goes to, from its bytes, Content-Type and URL."""

from __future__ import annotations

import pytest

from webreach.extract.sniff import parse_content_type, sniff

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 32
HTML = b"<!DOCTYPE html><html><head><title>t</title></head><body><p>hi</p></body></html>"


@pytest.mark.parametrize(
    ("body", "content_type", "url", "kind", "media"),
    [
        (HTML, "text/html; charset=utf-8", "", "html", "text/html"),
        (HTML, None, "", "html", "text/html"),
        (HTML, "application/octet-stream", "", "html", "text/html"),
        (b"\n\n  <div><p>fragment</p></div>", None, "", "html", "text/html"),
        (
            b"<?xml version='1.0'?><html xmlns='http://www.w3.org/1999/xhtml'><body/></html>",
            "application/xml",
            "",
            "html",
            "application/xml",
        ),
        (b"<?xml version='1.0'?><rss version='2.0'><channel/></rss>", None, "", "xml", "application/xml"),
        (
            b"<?xml version='1.0'?><rss version='2.0'><channel/></rss>",
            "application/rss+xml",
            "",
            "xml",
            "application/rss+xml",
        ),
        (b"<feed xmlns='http://www.w3.org/2005/Atom'></feed>", None, "", "xml", "application/xml"),
        (b'{"a": 1}', "application/json", "", "json", "application/json"),
        (b'{"a": 1}', "application/ld+json", "", "json", "application/ld+json"),
        (b"[1, 2, 3]", None, "", "json", "application/json"),
        (b"plain words", "text/plain", "", "text", "text/plain"),
        (b"# Title\n\nbody", "text/markdown", "", "text", "text/markdown"),
        (b"console.log(1)", "application/javascript", "", "text", "application/javascript"),
        (b"a,b\n1,2", None, "https://x.example/data.csv", "text", "text/plain"),
        (b"key: value", None, "https://x.example/feed.rss", "xml", "application/xml"),
        (b"key: value", None, "file:///data/feed.rss.gz", "xml", "application/xml"),  # decompressed by extract_file
        (b"key: value", None, "file:///data/notes.gz", "text", "text/plain"),
        (b"%PDF-1.7\n...", "application/pdf", "", "pdf", "application/pdf"),
        (b"%PDF-1.4\n...", "application/octet-stream", "", "pdf", "application/pdf"),
        (b"%PDF-1.4\n...", "text/html", "", "pdf", "application/pdf"),  # magic beats a wrong header
        (b"\r\n\r\n%PDF-1.4\n...", None, "", "pdf", "application/pdf"),
        (b"GARBAGE%PDF-1.4\n...", "application/pdf", "", "pdf", "application/pdf"),  # junk before the header
        (b"<html><body><p>%PDF-1.4 starts every PDF</p></body></html>", "text/html", "", "html", "text/html"),
        (PNG, "image/png", "", "binary", "image/png"),
        (PNG, "text/html", "", "binary", "image/png"),
        (b"GIF89a" + b"\x00" * 10, None, "", "binary", "image/gif"),
        (b"\xff\xd8\xff\xe0" + b"\x00" * 10, None, "", "binary", "image/jpeg"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", None, "", "binary", "image/webp"),
        (b"\x00\x00\x00\x1cftypisom" + b"\x00" * 8, None, "", "binary", "video/mp4"),
        (b"\x00\x00\x00\x1cftypavif" + b"\x00" * 8, None, "", "binary", "image/avif"),
        (b"PK\x03\x04" + b"\x00" * 20, "application/zip", "", "binary", "application/zip"),
        (b"\x1f\x8b\x08\x00" + b"\x00" * 10, None, "", "binary", "application/gzip"),
        (b"\x7fELF\x02\x01\x01", None, "", "binary", "application/x-executable"),
        (b"<svg xmlns='http://www.w3.org/2000/svg'/>", "image/svg+xml", "", "binary", "image/svg+xml"),
        (b"any bytes", "video/mp4", "", "binary", "video/mp4"),
        (b"\x00\x01\x02\x03\x04\x05binary\x00\x00", None, "", "binary", "application/octet-stream"),
        (b"\x00\x01\x02\x03binary", "application/x-custom", "", "binary", "application/x-custom"),
        (b"#!/bin/sh\necho hi\n", "application/x-custom", "", "text", "text/plain"),
        (b"BMW drivers say the new model is quieter.", "text/plain", "", "text", "text/plain"),  # weak magic
        (b"BM\x36\x00\x00\x00\x00\x00", None, "", "binary", "image/bmp"),
        ("\ufeff<html><body>hi</body></html>".encode("utf-16-le"), None, "", "html", "text/html"),
        (b"\xef\xbb\xbf<!doctype html><p>hi", None, "", "html", "text/html"),
    ],
)
def test_sniff_decides_the_reader(body: bytes, content_type: str | None, url: str, kind: str, media: str) -> None:
    sniffed = sniff(body, content_type, url)
    assert (sniffed.kind, sniffed.media_type) == (kind, media)


def test_utf16_without_bom_is_binary_to_a_sniffer() -> None:
    # NUL bytes everywhere: without a BOM or a header nothing says this is text
    assert sniff("hello".encode("utf-16-le"), None).kind == "binary"


def test_utf16_with_a_declared_type_is_trusted() -> None:
    assert sniff("hello".encode("utf-16-le"), "text/plain; charset=utf-16le").kind == "text"


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("text/html; charset=UTF-8", ("text/html", "UTF-8")),
        ('Text/HTML;Charset="gbk"', ("text/html", "gbk")),
        ("text/html; boundary=x; charset='latin1' ", ("text/html", "latin1")),
        ("text/html; charset=", ("text/html", None)),
        ("text/plain", ("text/plain", None)),
        ("", ("", None)),
        (None, ("", None)),
    ],
)
def test_parse_content_type(header: str | None, expected: tuple[str, str | None]) -> None:
    assert parse_content_type(header) == expected


def test_the_header_charset_is_carried_for_the_decoder() -> None:
    assert sniff(HTML, "text/html; charset=Shift_JIS").charset == "Shift_JIS"
