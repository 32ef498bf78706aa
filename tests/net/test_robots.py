"""robots.txt per RFC 9309: parsing and matching offline, fetch outcomes and the cache against the fake web."""

from __future__ import annotations

from dataclasses import replace

import pytest

from webreach.errors import RobotsDisallowedError
from webreach.net.robots import RobotsPolicy, RobotsTxt
from webreach.testing import FakeClock

from .harness import BUDGETS, harness

RULES = """
# comments and blank lines are ignored
Disallow: /before-any-group      # no user-agent yet: ignored

User-agent: *
Disallow: /private
Allow: /private/open
Disallow: /*.pdf$
Disallow: /search?q=
Disallow:

User-agent: OtherBot
Disallow: /

User-agent: other-crawler
User-agent: WebReach
Disallow: /no-webreach
Allow: /no-webreach/but-this
Disallow: /tie
Allow: /tie

user-agent: webreach
disallow: /merged-group
"""


@pytest.mark.parametrize(
    ("path", "allowed"),
    [
        ("/", True),
        ("/no-webreach", False),
        ("/no-webreach/deeper", False),
        ("/no-webreach/but-this", True),  # longer match wins
        ("/tie", True),  # equal length: allow wins
        ("/merged-group/x", False),  # groups for the same token are merged
        ("/private", True),  # the * group does not apply: a group names webreach
        ("/before-any-group", True),
        ("/robots.txt", True),
    ],
)
def test_our_group_applies_and_longest_match_wins(path: str, allowed: bool) -> None:
    assert RobotsTxt.parse(RULES, "webreach").allows(path) is allowed


@pytest.mark.parametrize(
    ("path", "allowed"),
    [
        ("/private", False),
        ("/private/open/page", True),
        ("/files/report.pdf", False),
        ("/files/report.pdf?download=1", True),  # $ anchors the end
        ("/search?q=webreach", False),  # the query is matched too
        ("/search", True),
        ("/public", True),
    ],
)
def test_the_star_group_applies_to_other_tokens(path: str, allowed: bool) -> None:
    assert RobotsTxt.parse(RULES, "somebot").allows(path) is allowed


def test_a_group_naming_us_without_rules_allows_everything() -> None:
    text = "User-agent: *\nDisallow: /\n\nUser-agent: webreach\nDisallow:\n"
    assert RobotsTxt.parse(text).allows("/anything")
    assert not RobotsTxt.parse(text, "otherbot").allows("/anything")


def test_wildcards_inside_patterns() -> None:
    robots = RobotsTxt.parse("User-agent: *\nDisallow: /*/edit\nDisallow: /tmp*$\n")
    assert not robots.allows("/wiki/page/edit")
    assert robots.allows("/wiki/page")
    assert not robots.allows("/tmp-file")


def test_percent_encoding_is_compared_normalized() -> None:
    robots = RobotsTxt.parse("User-agent: *\nDisallow: /caf%c3%a9\nDisallow: /%7Euser\nDisallow: /ünï\n")
    assert not robots.allows("/caf%C3%A9/menu")
    assert not robots.allows("/~user/home")
    assert not robots.allows("/%C3%BCn%C3%AF")
    robots = RobotsTxt.parse("User-agent: *\nDisallow: /a%2fb%7e\n")
    assert not robots.allows("/a%2Fb~")  # unreserved is decoded, hex case does not matter
    assert robots.allows("/a/b~")  # an encoded slash is not a slash


def test_a_path_starting_with_two_slashes_stays_a_path() -> None:
    robots = RobotsTxt.parse("User-agent: *\nDisallow: //private\n")
    assert not robots.allows("//private/x")
    assert robots.allows("/private/x")


def test_a_group_for_another_product_is_not_ours() -> None:
    robots = RobotsTxt.parse("User-agent: webreacher\nDisallow: /\n\nUser-agent: reach\nDisallow: /\n")
    assert robots.allows("/x")


def test_nothing_applies_when_no_group_matches() -> None:
    assert RobotsTxt.parse("User-agent: otherbot\nDisallow: /\n").allows("/x")
    assert RobotsTxt.parse("").allows("/x")


# --- fetched through the guarded fetcher ------------------------------------------------------------------------


@pytest.mark.network
async def test_a_disallowed_url_is_refused_and_robots_is_fetched_once_per_origin() -> None:
    async with harness() as h:
        h.web.pages.add("/robots.txt", "User-agent: *\nDisallow: /_pages/echo\n", host="site.test")
        policy = RobotsPolicy(h.fetcher, clock=FakeClock())
        await policy.check(h.url("article"))
        with pytest.raises(RobotsDisallowedError) as refused:
            await policy.check(h.url("echo"))
        await policy.check(h.url("echo", host="other.test"))  # another origin, no robots.txt there: 404
        await policy.check(h.url("article"))
    assert refused.value.code == "robots_disallowed"
    assert not refused.value.temporary
    assert refused.value.robots_url == h.url("/robots.txt")
    # once for site.test (other.test's /robots.txt is the fake web's JSON 404, outside the page log)
    assert [(r.host, r.path) for r in h.web.pages.requests] == [("site.test", "/robots.txt")]


@pytest.mark.network
@pytest.mark.parametrize(
    ("status", "allowed", "temporary"),
    [(404, True, False), (401, True, False), (403, True, False), (429, False, True), (500, False, True),
     (503, False, True)],
)  # fmt: skip
async def test_status_outcomes_4xx_allows_and_5xx_disallows_for_now(
    status: int, allowed: bool, temporary: bool
) -> None:
    async with harness() as h:
        h.web.pages.add("/robots.txt", "User-agent: *\nDisallow: /\n", status=status)
        policy = RobotsPolicy(h.fetcher, clock=FakeClock())
        if allowed:
            await policy.check(h.url("article"))
        else:
            with pytest.raises(RobotsDisallowedError) as refused:
                await policy.check(h.url("article"))
            assert refused.value.temporary is temporary


@pytest.mark.network
@pytest.mark.parametrize(
    "robots",
    [
        ("/robots.txt", "", 302, {"location": "http://169.254.169.254/robots.txt"}),  # redirect into the network
        ("/robots.txt", "", 302, {"location": "http://private.test/robots.txt"}),
    ],
)
async def test_an_unreachable_robots_txt_disallows_for_now(robots: tuple[str, str, int, dict[str, str]]) -> None:
    path, body, status, headers = robots
    async with harness() as h:
        h.web.pages.add(path, body, status=status, headers=headers)
        policy = RobotsPolicy(h.fetcher, clock=FakeClock())
        with pytest.raises(RobotsDisallowedError) as refused:
            await policy.check(h.url("article"))
    assert refused.value.temporary
    assert {address for address, _ in h.recorder.dials} == {"127.0.0.1"}


@pytest.mark.network
async def test_a_robots_txt_that_hangs_is_cut_by_its_short_deadline() -> None:
    async with harness(budgets=replace(BUDGETS, total_seconds=5.0)) as h:
        h.web.pages.add("/robots.txt", b"", status=302, headers={"location": "/_pages/hang"})
        policy = RobotsPolicy(h.fetcher, clock=FakeClock(), timeout=0.3)
        with pytest.raises(RobotsDisallowedError) as refused:
            await policy.check(h.url("article"))
    assert refused.value.temporary


@pytest.mark.network
async def test_a_redirect_loop_means_unavailable_so_allowed() -> None:
    async with harness() as h:
        h.web.pages.add("/robots.txt", b"", status=302, headers={"location": "/_pages/loop/a"})
        await RobotsPolicy(h.fetcher, clock=FakeClock()).check(h.url("article"))


@pytest.mark.network
async def test_a_huge_robots_txt_is_read_up_to_its_limit() -> None:
    async with harness() as h:
        # the disallow comes after 600 KB of comments: past the 512 KiB parsed, so it is not seen
        h.web.pages.add("/robots.txt", "#" + "x" * 600_000 + "\nUser-agent: *\nDisallow: /\n")
        policy = RobotsPolicy(h.fetcher, clock=FakeClock())
        await policy.check(h.url("article"))
        robots = await policy.robots_for(h.url("article"))
    assert robots.allows("/") and robots.allows("/anything")


@pytest.mark.network
async def test_the_cache_expires_and_errors_are_retried_sooner() -> None:
    clock = FakeClock()
    async with harness() as h:
        h.web.pages.add("/robots.txt", "oops", status=503)
        policy = RobotsPolicy(h.fetcher, clock=clock, ttl=3600, error_ttl=300)
        with pytest.raises(RobotsDisallowedError):
            await policy.check(h.url("article"))
        h.web.pages.add("/robots.txt", "User-agent: *\nDisallow: /_pages/echo\n")
        with pytest.raises(RobotsDisallowedError):
            await policy.check(h.url("article"))  # the 503 answer is still cached
        clock.advance(301)
        await policy.check(h.url("article"))  # asked again: now the real rules
        clock.advance(3000)
        with pytest.raises(RobotsDisallowedError):
            await policy.check(h.url("echo"))  # still cached
    assert sum(r.path == "/robots.txt" for r in h.web.pages.requests) == 2


@pytest.mark.network
async def test_past_max_origins_the_least_recently_used_origin_is_asked_again() -> None:
    async with harness() as h:
        h.web.pages.add("/robots.txt", "User-agent: *\nDisallow: /_pages/echo\n", host="site.test")
        policy = RobotsPolicy(h.fetcher, clock=FakeClock(), max_origins=1)
        await policy.check(h.url("article"))
        await policy.check(h.url("article"))  # cached
        await policy.check(h.url("article", host="other.test"))  # pushes site.test out
        await policy.check(h.url("article"))
    assert [(r.host, r.path) for r in h.web.pages.requests] == [("site.test", "/robots.txt")] * 2
