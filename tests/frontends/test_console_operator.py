"""The console as an operator uses it (issue 41, deliver 6), over HTTP against a real `webreach serve` and the fake
web: a refused value stays in its field with the error beside it; fields show the value in effect instead of
"built in"; "Test connection" answers on the page it was pressed on, with the provider's own words and operator
advice (never raw JSON, never `engine='auto'`); image engines have a test too; the last engine of an order cannot
be removed; an agent's key is rotated, the agent disabled, enabled and deleted from the console; the ledger shows
the balance after each row; every time on a page reads the same; no "Log out" without logins. The browser flows
with axe-core and screenshots are in test_console_browser.py."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import httpx
import pytest

from secret_keys import CONSOLE_BAD_KEY, CONSOLE_KEY
from webreach.testing import FakeWeb

from .console_pages import hidden, posted
from .serving import ServerProcess, http_server

pytestmark = pytest.mark.network
KEYED = "brave_api"


@pytest.fixture(scope="module")
def console(web: FakeWeb, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    env = {
        "WEBREACH_ACCOUNTS__ENABLED": "true",
        "WEBREACH_AUTO_ORDER_ZH": '["baidu"]',
        f"WEBREACH_ENGINES__{KEYED.upper()}__RATE_PER_MINUTE": "100000",
    }
    with http_server(web, tmp_path_factory.mktemp("operator"), **env) as server:
        yield server


@pytest.fixture
def client(console: ServerProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=console.url, trust_env=False, follow_redirects=False, timeout=60) as opened:
        yield opened


def shown_text(page: httpx.Response, name: str) -> str:
    """The text inside the element with data-testid `name` (tags stripped, entities decoded)."""
    found = re.search(rf'data-testid="{re.escape(name)}"[^>]*>(.*?)</', page.text, re.S)
    assert found is not None, f"no {name} on the page"
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1))).strip()


def test_a_refused_value_stays_in_its_field_and_nothing_is_saved(client: httpx.Client) -> None:
    page = client.get("/console/engines/mojeek")
    assert "built in" not in page.text
    assert shown_text(page, "default-timeout") == "default: 15 s (the server's engine_timeout)"
    assert shown_text(page, "default-base_url").startswith("default: https://")
    form = {"csrf": hidden(page, "csrf"), "rate_per_minute": "1e9", "timeout": "20", "base_url": "not a url"}
    refused = posted(client, "/console/engines/mojeek", form)
    assert shown_text(refused, "error-rate_per_minute") == (
        "Rate per minute must be a number above 0 and at most 1,000,000. E.g. 30."
    )
    assert shown_text(refused, "error-base_url").startswith("Base URL must be a URL starting with http:// or https://.")
    assert 'id="f-rate_per_minute" name="rate_per_minute" value="1e9"' in refused.text  # what was typed, kept
    assert 'value="not a url"' in refused.text and 'aria-invalid="true"' in refused.text
    assert "rate_per_minute must" not in refused.text and "1e+06" not in refused.text
    assert shown_text(refused, "winner-timeout") == "default"  # the valid field waited for the others: nothing saved
    again = client.get("/console/engines/mojeek")
    assert 'data-testid="error-rate_per_minute"' not in again.text and 'value="1e9"' not in again.text


def test_test_connection_answers_on_the_engines_page_in_the_providers_words(web: FakeWeb, client: httpx.Client) -> None:
    web.set_scenario(KEYED, key=CONSOLE_KEY)
    try:
        page = client.get(f"/console/engines/{KEYED}")
        csrf = hidden(page, "csrf")
        posted(client, f"/console/engines/{KEYED}", {"csrf": csrf, "api_key": CONSOLE_BAD_KEY})
        answer = client.post(f"/console/engines/{KEYED}/test", data={"csrf": csrf, "back": "engine"})
        assert answer.headers["location"].startswith(f"/console/engines/{KEYED}?done=")  # stays on the page
        shown = client.get(answer.headers["location"])
        message = shown_text(shown, "probe-message")
        assert message.startswith(f"{KEYED} rejected the API key.")
        assert message.endswith("The provider says: “The provided subscription token is invalid.”")
        advice = "</strong> Check the engine's API key; meanwhile use another engine or the auto mode.</p>"
        assert advice in html.unescape(shown.text)
        assert "{" not in message and "engine='" not in shown.text and "SUBSCRIPTION_TOKEN_INVALID" not in shown.text
        assert shown_text(shown, "breaker-brave_api") == "closed"
        assert CONSOLE_BAD_KEY not in shown.text
        posted(client, f"/console/engines/{KEYED}", {"csrf": csrf, "api_key": CONSOLE_KEY})
        fixed = posted(client, f"/console/engines/{KEYED}/test", {"csrf": csrf, "back": "engine"})
        assert shown_text(fixed, "probe-headline").startswith("Connected in ")
        assert re.fullmatch(
            rf"{KEYED} answered the test query with [1-9]\d* results\.", shown_text(fixed, "probe-message")
        )
    finally:
        web.reset(KEYED)


def test_image_engines_have_a_test_and_reverse_backends_do_not(client: httpx.Client) -> None:
    page = client.get("/console/engines")
    assert 'aria-label="Test connection to images_bing"' in page.text
    assert 'aria-label="Test connection to tineye"' not in page.text
    shown = posted(client, "/console/engines/images_bing/test", {"csrf": hidden(page, "csrf"), "back": "list"})
    assert shown_text(shown, "probe-status") == "ok" and int(shown_text(shown, "probe-hits")) > 0
    admin = client.post("/v1/admin/engines/images_bing/test")  # the admin API's twin, loopback without a token
    assert admin.status_code == 200 and admin.json()["probe"]["status"] == "ok", admin.text
    assert "error" not in admin.json()["probe"]  # the error object stays in the process


def test_the_last_engine_of_an_order_stays_and_the_page_says_what_auto_asks(client: httpx.Client) -> None:
    page = client.get("/console/engines")
    assert shown_text(page, "default-auto_order_zh") == "baidu"
    form = {"csrf": hidden(page, "csrf"), "once": hidden(page, "once", 1), "action": "remove:baidu"}
    refused = posted(client, "/console/order/auto_order_zh", form)
    assert "The order (Chinese queries) needs at least one engine: baidu is its last." in refused.text
    assert shown_text(refused, "default-auto_order_zh") == "baidu"
    moved = {"csrf": hidden(page, "csrf"), "once": hidden(page, "once", 0), "action": "down:" + order_of(page)[0]}
    shown = posted(client, "/console/order/auto_order", moved)
    assert f"Any language: auto now asks {', '.join(order_of(shown))}." in shown.text


def order_of(page: httpx.Response) -> list[str]:
    box = page.text.split('data-testid="order-auto_order"')[1].split("</ol>")[0]
    return re.findall(r'<li data-name="([^"]+)"', box)


def test_an_agents_key_is_rotated_it_is_disabled_enabled_and_deleted(
    console: ServerProcess, client: httpx.Client
) -> None:
    agents = client.get("/console/agents")
    create = {"name": "life-bot", "credits": "10", "csrf": hidden(agents, "csrf"), "once": hidden(agents, "once")}
    create["key_days"] = "3"
    first = re.findall(
        r'data-testid="new-key" readonly value="([^"]+)"', posted(client, "/console/agents", create).text
    )
    page = client.get("/console/agents/life-bot")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", shown_text(page, "key-expires"))
    csrf = hidden(page, "csrf")
    rotated = posted(client, "/console/agents/life-bot/rotate", {"csrf": csrf, "once": hidden(page, "once", 1)})
    second = re.findall(r'data-testid="new-key" readonly value="([^"]+)"', rotated.text)
    assert second and second != first and "the old one no longer works" in rotated.text
    assert search(console, first[0]).status_code == 401 and search(console, second[0]).status_code == 200
    after = client.get("/console/agents/life-bot")
    assert 'data-testid="new-key"' not in after.text  # shown once
    assert shown_text(after, "key-expires") == "never"  # a new key starts without the old one's expiry
    wrong = posted(client, "/console/agents/life-bot/rotate", {"csrf": csrf, "once": "w" * 24, "key_days": "0"})
    assert "Key validity in days 0 is out of range. Give a whole number from 1 to 3650." in html.unescape(wrong.text)
    disabled = posted(client, "/console/agents/life-bot/disable", {"csrf": csrf, "disabled": "on"})
    assert shown_text(disabled, "disabled") == "yes" and search(console, second[0]).status_code == 401
    enabled = posted(client, "/console/agents/life-bot/disable", {"csrf": csrf, "disabled": "off"})
    assert shown_text(enabled, "disabled") == "no" and search(console, second[0]).status_code == 200
    kept = posted(client, "/console/agents/life-bot/delete", {"csrf": csrf, "confirm": "life"})
    assert "Type life-bot in the box to confirm; nothing was deleted." in kept.text
    gone = posted(client, "/console/agents/life-bot/delete", {"csrf": csrf, "confirm": "life-bot"})
    assert "Deleted life-bot (its key no longer works;" in gone.text and "/console/agents/life-bot" not in gone.text
    assert search(console, second[0]).status_code == 401
    assert client.get("/console/agents/life-bot").status_code == 404


def search(console: ServerProcess, key: str) -> httpx.Response:
    body = {"query": "console lifecycle", "engine": "yahoo"}
    headers = {"Authorization": f"Bearer {key}"}
    return httpx.post(f"{console.url}/v1/search", json=body, headers=headers, timeout=30, trust_env=False)


def test_the_ledger_shows_the_balance_after_each_row_and_one_date_format(
    console: ServerProcess, client: httpx.Client
) -> None:
    agents = client.get("/console/agents")
    create = {"name": "ledger-bot", "credits": "40", "csrf": hidden(agents, "csrf"), "once": hidden(agents, "once")}
    key = re.findall(r'data-testid="new-key" readonly value="([^"]+)"', posted(client, "/console/agents", create).text)
    charged = search(console, key[0]).json()["cost"]["charged"]
    page = client.get("/console/agents/ledger-bot")
    grant = {"csrf": hidden(page, "csrf"), "once": hidden(page, "once", 1), "credits": "-5", "note": "back"}
    shown = posted(client, "/console/agents/ledger-bot/grant", grant)
    rows = re.findall(
        r"<tr><td>([^<]+)</td><td>([^<]+)</td><td>[^<]+</td><td class=\"amount\">([^<]+)</td>"
        r"<td class=\"balance\" data-testid=\"ledger-balance\">(-?\d+)</td>",
        shown.text,
    )
    amounts = [int(amount) for _, _, amount, _ in rows]
    balances = [int(balance) for *_, balance in rows]
    assert balances[0] == int(shown_text(shown, "balance")) == 40 - charged - 5
    assert balances[-1] == 40 and [kind for _, kind, _, _ in rows][-1] == "grant"
    for newer, older, amount in zip(balances, balances[1:], amounts, strict=False):
        assert newer == older + amount  # each row's balance is the one before it plus its amount
    assert {kind for _, kind, _, _ in rows} <= {"grant", "charged for a call", "settled", "released"}
    stamps = re.findall(r"\d{4}-\d\d-\d\d[ T][0-9:]+(?: UTC|Z|\+00:00)?", shown.text)
    assert stamps and all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", stamp) for stamp in stamps), stamps
    listing = client.get("/console/agents").text
    assert all(
        re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", s)
        for s in re.findall(r"\d{4}-\d\d-\d\d[ T][0-9:]+(?: UTC|Z|\+00:00)?", listing)
    )


def test_no_log_out_without_logins(client: httpx.Client) -> None:
    page = client.get("/console/engines")
    assert page.status_code == 200 and "Log out" not in page.text


def test_the_admin_api_makes_expiring_keys_and_deletes_agents(console: ServerProcess, client: httpx.Client) -> None:
    made = client.post("/v1/admin/agents", json={"name": "rest-bot", "credits": 4, "key_days": 2})
    assert made.status_code == 200, made.text
    assert made.json()["agent"]["key_expires"].endswith("Z")
    rotated = client.post("/v1/admin/agents/rest-bot/rotate-key")  # no body: a key without expiry
    assert rotated.status_code == 200 and client.get("/v1/admin/agents/rest-bot").json()["key_expires"] is None
    refused = client.post("/v1/admin/agents/rest-bot/rotate-key", json={"key_days": 0})
    assert refused.status_code == 400 and refused.json()["code"] == "invalid_input"
    deleted = client.post("/v1/admin/agents/rest-bot/delete")
    assert deleted.json() == {"deleted": "rest-bot", "balance": 4}
    assert search(console, rotated.json()["key"]).status_code == 401
    assert client.get("/v1/admin/agents/rest-bot").status_code == 400  # no agent 'rest-bot' (invalid_input)
