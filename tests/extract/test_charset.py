"""Charsets: BOM, header, meta and detection, browser label mapping, and bogus labels that must not crash."""

from __future__ import annotations

import codecs

import pytest

from webreach.extract.cascade import extract
from webreach.extract.charset import codec_for, decode, meta_charset

FRENCH = "Café – naïve “quotes” déjà vu"
CHINESE = "中文网页的编码测试：上海的天气很好。"
JAPANESE = "日本語のページです。東京は晴れ。"


def test_header_charset_windows_1252() -> None:
    decoded = decode(FRENCH.encode("cp1252"), "windows-1252", markup=False)
    assert (decoded.text, decoded.encoding, decoded.source) == (FRENCH, "cp1252", "header")


def test_latin1_label_means_windows_1252_as_in_browsers() -> None:
    # 0x93/0x94 are curly quotes in windows-1252 and C1 controls in real ISO-8859-1
    decoded = decode(b"\x93quoted\x94", "ISO-8859-1", markup=False)
    assert decoded.text == "“quoted”"


def test_gbk_from_meta_charset() -> None:
    page = f'<html><head><meta charset="gb2312"><title>测试</title></head><body><p>{CHINESE}</p></body></html>'
    decoded = decode(page.encode("gbk"), None)
    assert (decoded.source, decoded.encoding) == ("meta", "gb18030")
    assert CHINESE in decoded.text


def test_shift_jis_from_http_equiv() -> None:
    page = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"></head>'
        f"<body><p>{JAPANESE}</p></body></html>"
    )
    decoded = decode(page.encode("shift_jis"), None)
    assert decoded.source == "meta"
    assert JAPANESE in decoded.text


def test_xml_declaration_encoding() -> None:
    doc = f'<?xml version="1.0" encoding="ISO-8859-15"?><rss><title>{"Prix 5 €"}</title></rss>'
    decoded = decode(doc.encode("iso8859-15"), None)
    assert "Prix 5 €" in decoded.text


@pytest.mark.parametrize(
    ("bom", "codec"),
    [
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
        (codecs.BOM_UTF32_LE, "utf-32-le"),
    ],
)
def test_bom_wins_over_the_header(bom: bytes, codec: str) -> None:
    body = bom + "<p>déjà vu</p>".encode(codec)
    decoded = decode(body, "iso-8859-1")
    assert (decoded.text, decoded.source) == ("<p>déjà vu</p>", "bom")


def test_meta_is_ignored_when_the_header_names_a_charset() -> None:
    page = f'<meta charset="gbk"><p>{FRENCH}</p>'.encode("cp1252")
    assert FRENCH in decode(page, "windows-1252").text


@pytest.mark.parametrize("label", ["x-foobar", "utf-7", "base64", "rot13", "x-user-defined", "undefined", "", " "])
def test_bogus_header_labels_fall_through_to_the_next_source(label: str) -> None:
    decoded = decode(f"<p>{FRENCH}</p>".encode(), label)
    assert (decoded.text, decoded.encoding) == (f"<p>{FRENCH}</p>", "utf-8")


def test_bogus_meta_label_is_skipped_for_a_later_usable_one() -> None:
    page = f'<meta charset="klingon"><meta http-equiv="content-type" content="text/html; charset=gbk"><p>{CHINESE}'
    assert CHINESE in decode(page.encode("gbk"), None).text


def test_meta_utf16_in_an_ascii_document_means_utf8() -> None:
    assert meta_charset(b'<meta charset="utf-16">') == "utf-8"


def test_utf8_body_mislabelled_latin1_is_read_as_utf8() -> None:
    decoded = decode(FRENCH.encode(), "iso-8859-1", markup=False)
    assert (decoded.text, decoded.encoding) == (FRENCH, "utf-8")


def test_undeclared_non_utf8_is_detected_or_falls_back_without_failing() -> None:
    decoded = decode(("Une phrase en français, très simple. " * 20).encode("cp1252"), None, markup=False)
    assert decoded.source in ("detected", "fallback")
    assert "français" in decoded.text


def test_arbitrary_bytes_never_raise() -> None:
    noise = bytes(range(256)) * 4
    for label in (None, "utf-8", "shift_jis", "gb18030", "nonsense", "utf-16"):
        assert isinstance(decode(noise, label).text, str)


@pytest.mark.parametrize(
    ("label", "codec"),
    [
        ("UTF8", "utf-8"),
        ("latin1", "cp1252"),
        ("us-ascii", "cp1252"),
        ("GB2312", "gb18030"),
        ("GBK", "gb18030"),
        ("big5", "big5hkscs"),
        ("Shift_JIS", "cp932"),
        ("EUC-KR", "cp949"),
        ("koi8-r", "koi8-r"),
        ("windows-1251", "cp1251"),
        ('"utf-8"', "utf-8"),
        ("utf-7", None),
        ("hex", None),
        (None, None),
    ],
)
def test_codec_for_maps_labels_like_a_browser(label: str | None, codec: str | None) -> None:
    assert codec_for(label) == codec


def test_extract_reads_a_gbk_page_end_to_end() -> None:
    page = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=gbk"><title>天气</title></head>'
        f"<body><article><h1>天气预报</h1><p>{CHINESE * 3}</p></article></body></html>"
    )
    result = extract(page.encode("gbk"), content_type="text/html", url="https://x.example/", format="text")
    assert CHINESE in result.text
    assert result.title == "天气"


def test_extract_reads_a_cp1252_text_file() -> None:
    result = extract(FRENCH.encode("cp1252"), content_type="text/plain; charset=windows-1252", url="", format="text")
    assert result.text == FRENCH
