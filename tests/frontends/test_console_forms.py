"""Console form POSTs against a real `webreach serve` (issue 35, finding 6): every one answers 303 See Other to a
page showing its result once, so a reload repeats nothing; a replayed credit grant, agent creation or order move
(the same one-time form token) does nothing and says so."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from secret_keys import PROXY_PASSWORD
from webreach.testing import FakeWeb

from .console_pages import hidden, posted
from .serving import ServerProcess, http_server

pytestmark = pytest.mark.network
AGENT = "forms-bot"


@pytest.fixture(scope="module")
def console(web: FakeWeb, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with http_server(web, tmp_path_factory.mktemp("forms"), WEBREACH_ACCOUNTS__ENABLED="true") as server:
        yield server


@pytest.fixture
def client(console: ServerProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=console.url, trust_env=False, follow_redirects=False, timeout=60) as opened:
        yield opened


def balance(client: httpx.Client) -> int:
    page = client.get(f"/console/agents/{AGENT}")
    return int(re.findall(r'data-testid="balance">(-?\d+)<', page.text)[0])


@pytest.mark.slow  # a second or more (measured 2026-11-28): the full suite runs it
def test_a_replayed_grant_and_agent_creation_do_nothing(client: httpx.Client) -> None:
    agents = client.get("/console/agents")
    create = {"name": AGENT, "credits": "10", "csrf": hidden(agents, "csrf"), "once": hidden(agents, "once")}
    shown = posted(client, "/console/agents", create)
    assert 'data-testid="new-key"' in shown.text
    replayed = posted(client, "/console/agents", create)
    assert "already sent" in replayed.text and 'data-testid="new-key"' not in replayed.text

    page = client.get(f"/console/agents/{AGENT}")
    grant = {"credits": "25", "note": "once", "csrf": hidden(page, "csrf"), "once": hidden(page, "once")}
    assert "Granted 25 credits." in posted(client, f"/console/agents/{AGENT}/grant", grant).text
    assert balance(client) == 35
    again = posted(client, f"/console/agents/{AGENT}/grant", grant)  # a reload that resends, or a replay
    assert "already sent" in again.text and balance(client) == 35
    without = posted(client, f"/console/agents/{AGENT}/grant", {**grant, "once": ""})
    assert "already sent" in without.text and balance(client) == 35


def test_a_replayed_order_move_does_nothing(client: httpx.Client) -> None:
    def order() -> list[str]:
        page = client.get("/console/engines")
        listing = page.text.split('data-testid="order-auto_order"', 1)[1].split("</ol>", 1)[0]
        return re.findall(r'data-name="([^"]+)"', listing)

    before = order()
    page = client.get("/console/engines")
    move = {"action": f"down:{before[0]}", "csrf": hidden(page, "csrf"), "once": hidden(page, "once")}
    moved = posted(client, "/console/order/auto_order", move)
    after = order()
    assert after[:2] == [before[1], before[0]] and "Any language" in moved.text
    assert "already sent" in posted(client, "/console/order/auto_order", move).text
    assert order() == after


@pytest.mark.slow  # a second or more (measured 2026-11-28): the full suite runs it
def test_every_console_form_post_redirects_to_its_result(console: ServerProcess, client: httpx.Client) -> None:
    page = client.get("/console/engines/mojeek")
    csrf = hidden(page, "csrf")
    saved = posted(client, "/console/engines/mojeek", {"csrf": csrf, "timeout": "12"})
    assert "Saved Timeout" in saved.text
    assert 'role="status">Saved' not in client.get("/console/engines/mojeek").text  # shown once
    refused = posted(client, "/console/engines/mojeek", {"csrf": csrf, "timeout": "-1"})
    assert 'role="alert"' in refused.text and "Timeout (seconds) must be a number" in refused.text
    assert "breaker closed" in posted(client, "/console/engines/mojeek/reset", {"csrf": csrf}).text
    assert 'data-testid="probe-status"' in posted(client, "/console/engines/mojeek/test", {"csrf": csrf}).text
    run = {"csrf": csrf, "tool": "web_search", "engine": "mojeek", "input": "python asyncio"}
    assert 'data-testid="out-json"' in posted(client, "/console/playground", run).text
    settings = {"csrf": csrf, "per_hour": "100", **{f"tool_{t}": "on" for t in ("web_search", "web_fetch")}}
    client.post("/console/agents", data={"name": "quota-bot", "csrf": csrf, "once": "q" * 24})
    assert "saved" in posted(client, "/console/agents/quota-bot/settings", settings).text
    # someone else's result id shows nothing: results are bound to the session that made them
    answer = client.post("/console/engines/mojeek/reset", data={"csrf": csrf})
    with httpx.Client(base_url=console.url, trust_env=False) as stranger:
        assert "breaker closed" not in stranger.get(answer.headers["location"]).text


def test_the_engines_page_shows_each_engines_recent_answers(client: httpx.Client) -> None:
    page = client.get("/console/engines")
    assert 'data-testid="recent-yahoo">—<' in page.text  # nothing asked yet
    run = {"csrf": hidden(page, "csrf"), "tool": "web_search", "engine": "yahoo", "input": "recent answers"}
    posted(client, "/console/playground", run)
    cell = re.findall(r'data-testid="recent-yahoo">(.*?)</td>', client.get("/console/engines").text)[0]
    assert cell.startswith("100% ok · 0% CAPTCHA · ") and " ms p50 " in cell, cell
    assert re.search(r"\(\d+ attempts, \d+% cached\)", cell), cell


def test_an_agents_page_shows_its_spend_per_day(client: httpx.Client) -> None:
    agents = client.get("/console/agents")
    create = {"name": "spend-bot", "credits": "10", "csrf": hidden(agents, "csrf"), "once": hidden(agents, "once")}
    key = re.findall(r'data-testid="new-key" readonly value="([^"]+)"', posted(client, "/console/agents", create).text)
    searched = client.post(
        "/v1/search", json={"query": "spend per day", "engine": "yahoo"}, headers={"Authorization": f"Bearer {key[0]}"}
    )
    assert searched.status_code == 200, searched.text
    page = client.get("/console/agents/spend-bot").text
    rows = re.findall(r"<tr><td>(\d{4}-\d\d-\d\d)</td><td>(\d+)</td>", page.split('data-testid="spend"')[1])
    charged = searched.json()["cost"]["charged"]
    assert len(rows) == 14 and charged > 0 and sum(int(credits) for _, credits in rows) == charged
    assert {credits for _, credits in rows[:-2]} == {"0"}  # today's (yesterday's, had midnight just passed)


def test_the_engine_form_sets_display_name_options_and_the_one_default(client: httpx.Client) -> None:
    page = client.get("/console/engines/serpapi")
    assert 'name="default"' in page.text and 'name="options"' in page.text and 'name="display_name"' in page.text
    fields = {"csrf": hidden(page, "csrf"), "default": "on", "display_name": "Bing (SerpAPI)", "options": "engine=bing"}
    saved = posted(client, "/console/engines/serpapi", fields)
    assert "Saved" in saved.text
    for field, shown in (("default", "true"), ("display_name", "Bing (SerpAPI)"), ("options", "engine=bing")):
        assert re.search(rf'data-testid="winner-{field}">console<', saved.text), field
        assert f"console: {shown}" in saved.text
    assert "key=value pairs" in posted(client, "/console/engines/serpapi", {**fields, "options": "engine"}).text
    other = client.get("/console/engines/bocha")
    posted(client, "/console/engines/bocha", {"csrf": hidden(other, "csrf"), "default": "on"})
    assert "console: false" in client.get("/console/engines/serpapi").text  # one default: the old one cleared
    cleared = {"csrf": hidden(other, "csrf"), "default": "", "display_name": "", "options": ""}
    for name in ("serpapi", "bocha"):
        posted(client, f"/console/engines/{name}", cleared)


def test_the_cache_form_sets_ttl_and_size(client: httpx.Client) -> None:
    page = client.get("/console/engines")
    assert 'data-testid="cache-ttl_seconds"' in page.text
    csrf = hidden(page, "csrf")
    saved = posted(client, "/console/cache", {"csrf": csrf, "ttl_seconds": "900", "max_entries": "100"})
    assert "Saved" in saved.text
    for field, value in (("ttl_seconds", "900"), ("max_entries", "100")):
        assert re.search(rf'data-testid="cache-winner-{field}">console<', saved.text), field
        assert f"console: {value}" in saved.text
    assert (
        "must be a whole number from 1"  # the console's sentence starts with a capital (_console_words.said)
        in posted(client, "/console/cache", {"csrf": csrf, "max_entries": "0"}).text
    )
    assert "must be a number" in posted(client, "/console/cache", {"csrf": csrf, "ttl_seconds": "soon"}).text
    cleared = posted(client, "/console/cache", {"csrf": csrf, "ttl_seconds": "", "max_entries": ""})
    assert re.search(r'data-testid="cache-winner-ttl_seconds">default<', cleared.text)


def test_the_network_form_sets_the_outbound_proxy_shown_without_credentials(client: httpx.Client) -> None:
    page = client.get("/console/engines")
    assert 'data-testid="network-proxy"' in page.text
    csrf = hidden(page, "csrf")
    url = f"socks5://agent:{PROXY_PASSWORD}@127.0.0.1:1080"
    saved = posted(client, "/console/network", {"csrf": csrf, "proxy": url})
    assert "Outbound proxy now: socks5://***@127.0.0.1:1080" in saved.text
    assert re.search(r'data-testid="network-winner">console<', saved.text)
    assert PROXY_PASSWORD not in saved.text and "Remove the console" in saved.text
    assert re.search(r'data-testid="effect-mojeek">[^<]*· proxy', saved.text)  # the engines' row says so too
    kept = posted(client, "/console/network", {"csrf": csrf, "proxy": ""})  # blank: the stored one stays
    assert "Nothing changed." in kept.text and re.search(r'data-testid="network-winner">console<', kept.text)
    refused = posted(client, "/console/network", {"csrf": csrf, "proxy": f"ftp://agent:{PROXY_PASSWORD}@h:21"})
    assert "must be a URL starting with http://" in refused.text and PROXY_PASSWORD not in refused.text
    cleared = posted(client, "/console/network", {"csrf": csrf, "clear_proxy": "on"})
    assert "Removed the console" in cleared.text
    assert re.search(r'data-testid="network-winner">default<', cleared.text)
    assert re.search(r'data-testid="effect-mojeek">[^<]*· direct', cleared.text)
