"""routing.merge: canonical URLs (what counts as the same page) and the fused ranking of several engines."""

from __future__ import annotations

import pytest

from webreach.models import Hit
from webreach.routing import canonical_url, merge
from webreach.routing.merge import RRF_K


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://example.com/a", "example.com/a"),
        ("http://example.com/a", "example.com/a"),
        ("HTTPS://WWW.Example.COM/a", "example.com/a"),
        ("https://www.example.com/a/", "example.com/a"),
        ("https://example.com/", "example.com"),
        ("https://example.com", "example.com"),
        ("https://example.com/a#section-2", "example.com/a"),
        ("https://example.com:443/a", "example.com/a"),
        ("http://example.com:80/a", "example.com/a"),
        ("https://example.com:8443/a", "example.com:8443/a"),
        ("https://user:pw@example.com/a", "example.com/a"),
        ("https://example.com./a", "example.com/a"),
        ("https://example.com/Path/Case", "example.com/Path/Case"),
        ("https://example.com/a?b=2&a=1", "example.com/a?a=1&b=2"),
        ("https://example.com/a?utm_source=x&utm_Medium=y&id=7", "example.com/a?id=7"),
        ("https://example.com/a?gclid=1&fbclid=2&msclkid=3&yclid=4", "example.com/a"),
        ("https://example.com/a?mc_cid=1&mc_eid=2&ref=hn&ref_src=twsrc&spm=a2c.1", "example.com/a"),
        ("https://example.com/a?srsltid=AfmBOo&q=x", "example.com/a?q=x"),
        ("https://example.com/search?q=a+b", "example.com/search?q=a%20b"),
        ("https://example.com/search?q=a%20b", "example.com/search?q=a%20b"),
        ("https://example.com/wiki/%E4%B8%AD%E6%96%87", "example.com/wiki/%E4%B8%AD%E6%96%87"),
        ("https://example.com/wiki/中文", "example.com/wiki/%E4%B8%AD%E6%96%87"),
        ("https://example.com/a%2fb", "example.com/a/b"),
        ("https://example.com/a?flag", "example.com/a?flag="),
        ("https://www2.example.com/a", "www2.example.com/a"),
        ("https://wwwexample.com/a", "wwwexample.com/a"),
        ("https://[2001:DB8::1]:8080/a", "[2001:db8::1]:8080/a"),
        ("  https://example.com/a  ", "example.com/a"),
        ("not a url", "not a url"),
        ("https://example.com:99999/a", "https://example.com:99999/a"),
    ],
)
def test_canonical_url(url: str, expected: str) -> None:
    assert canonical_url(url) == expected


def test_http_and_https_variants_share_one_key() -> None:
    variants = [
        "https://www.python.org/downloads/?utm_campaign=x",
        "http://python.org/downloads#latest",
        "https://PYTHON.org/downloads",
    ]
    assert len({canonical_url(u) for u in variants}) == 1


def hit(engine: str, rank: int, url: str, **fields: str) -> Hit:
    return Hit(rank=rank, title=fields.pop("title", f"{engine} {rank}"), url=url, engine=engine, **fields)  # type: ignore[arg-type]


def test_merge_dedupes_and_keeps_the_best_fields() -> None:
    merged = merge(
        {
            "bing": [hit("bing", 1, "http://example.com/a", title="", snippet="short")],
            "mojeek": [
                hit("mojeek", 1, "https://www.example.com/a/", title="Example A", snippet="a much longer snippet"),
            ],
            "brave": [hit("brave", 3, "https://example.com/a#x", date="2024-05-01", source="Example")],
        },
        {},
    )

    (only,) = merged
    assert only.url == "https://www.example.com/a/"  # the first engine's page, but https preferred
    assert only.title == "Example A"
    assert only.snippet == "a much longer snippet"
    assert (only.date, only.source) == ("2024-05-01", "Example")
    assert only.engine == "bing"
    assert only.engines == ("bing", "mojeek", "brave")
    assert only.rank == 1
    assert only.score == pytest.approx(2 / (RRF_K + 1) + 1 / (RRF_K + 3))


def test_merge_ranks_by_fused_score_and_renumbers() -> None:
    merged = merge(
        {
            "bing": [hit("bing", 1, "https://a.example/"), hit("bing", 2, "https://b.example/")],
            "mojeek": [hit("mojeek", 1, "https://b.example/"), hit("mojeek", 2, "https://c.example/")],
        },
        {"bing": "bing", "mojeek": "mojeek"},
    )

    ranked = [(h.rank, h.url) for h in merged]
    assert ranked == [(1, "https://b.example/"), (2, "https://a.example/"), (3, "https://c.example/")]
    assert merged[0].engines == ("bing", "mojeek")
    assert merged[0].score is not None and merged[1].score is not None
    assert merged[0].score > merged[1].score


def test_shared_index_counts_once_with_its_best_rank() -> None:
    merged = merge(
        {
            "duckduckgo": [hit("duckduckgo", 3, "https://a.example/")],
            "yahoo": [hit("yahoo", 1, "https://a.example/")],
        },
        {"duckduckgo": "bing", "yahoo": "bing"},
    )

    assert merged[0].score == pytest.approx(1 / (RRF_K + 1))
    assert merged[0].engines == ("duckduckgo", "yahoo")


def test_ties_break_by_best_original_rank_then_engine_order() -> None:
    # one index each and the same ranks, so equal scores: engine order decides
    merged = merge(
        {
            "bing": [hit("bing", 2, "https://b1.example/"), hit("bing", 1, "https://b0.example/")],
            "mojeek": [hit("mojeek", 1, "https://m0.example/")],
        },
        {},
    )

    assert [h.url for h in merged] == ["https://b0.example/", "https://m0.example/", "https://b1.example/"]


def test_same_page_twice_from_one_engine_counts_once() -> None:
    merged = merge({"bing": [hit("bing", 1, "https://a.example/"), hit("bing", 4, "http://a.example")]}, {})

    (only,) = merged
    assert only.engines == ("bing",)
    assert only.score == pytest.approx(1 / (RRF_K + 1))


def test_merge_of_nothing_is_empty() -> None:
    assert merge({}, {}) == ()
    assert merge({"bing": []}, {}) == ()
