"""The console's operator flows of issue 41 (deliver 6) in Debian's Chromium, against a real `webreach serve` (no admin
token: loopback sessions, so no "Log out") and the fake web. Each page gets axe-core and a screenshot (docs/console/
with $CONSOLE_SHOTS, except the pages that show a new key).

At 1,920 px the engines table fits its box and the first "Test connection" is a few Tab presses away; at 360 px
each engine is a card. From an engine's page a test stays there and says what the provider said; a refused value
stays in its field. An image engine has its test. An agent's key is copied with the button, a new one made, the agent
disabled, its ledger read with the balance after each row, and the agent deleted.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from secret_keys import CONSOLE_BAD_KEY, CONSOLE_KEY
from webreach.testing import FakeWeb

from .serving import ServerProcess, http_server
from .test_console_browser import CHROMIUM, FLAGS, look, submit

pytestmark = [pytest.mark.network, pytest.mark.browser, pytest.mark.slow]
playwright_api = pytest.importorskip("playwright.sync_api", reason="the browser extra (playwright) is not installed")
KEYED = "brave_api"


@pytest.fixture(scope="module")
def console(web: FakeWeb, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    env = {"WEBREACH_ACCOUNTS__ENABLED": "true", f"WEBREACH_ENGINES__{KEYED.upper()}__RATE_PER_MINUTE": "100000"}
    with http_server(web, tmp_path_factory.mktemp("operator-browser"), **env) as server:
        yield server


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def shots(tmp_path: Path) -> list[Path]:
    import os

    targets = [tmp_path / "screenshots"]
    if os.environ.get("CONSOLE_SHOTS"):
        targets.append(Path(os.environ["CONSOLE_SHOTS"]))
    return targets


def tabs_to(page: Any, label_start: str, most: int) -> int:
    """Tab presses from the top of the page until a control whose aria-label starts with `label_start` has focus."""
    for presses in range(1, most + 1):
        page.keyboard.press("Tab")
        label = page.evaluate("document.activeElement.getAttribute('aria-label') || ''")
        if str(label).startswith(label_start):
            return presses
    raise AssertionError(f"no {label_start!r} within {most} Tab presses")


def engines_and_tests(page: Any, web: FakeWeb, shots: list[Path]) -> list[str]:
    """The wide table, the keyboard path to a test, a test from an engine's page, a refused value, an image test."""
    sources = []
    assert page.evaluate("[...document.querySelectorAll('.table-wrap')].every(b => b.scrollWidth <= b.clientWidth)")
    assert tabs_to(page, "Test connection to ", 10) <= 10
    assert page.get_by_role("button", name="Log out").count() == 0  # no logins without an admin token
    look(page, "engines-wide", shots)
    web.set_scenario(KEYED, key=CONSOLE_KEY)
    submit(page, page.get_by_role("link", name=f"Settings of {KEYED}"))
    page.get_by_label("New API key").fill(CONSOLE_BAD_KEY)
    submit(page, page.get_by_role("button", name=f"Save {KEYED}"))
    submit(page, page.get_by_role("button", name=f"Test connection to {KEYED}"))
    assert page.url.split("?")[0].endswith(f"/console/engines/{KEYED}")
    said = page.get_by_test_id("probe-message").inner_text()
    assert said.endswith("The provider says: “The provided subscription token is invalid.”"), said
    assert "{" not in said and "engine='auto'" not in page.content()
    look(page, "engine-probe-auth-failed", shots)
    sources.append(page.content())
    page.locator("#f-rate_per_minute").fill("1e9")
    submit(page, page.get_by_role("button", name=f"Save {KEYED}"))
    assert page.get_by_test_id("error-rate_per_minute").inner_text().startswith("Rate per minute must be a number")
    assert page.locator("#f-rate_per_minute").input_value() == "1e9"
    look(page, "engine-field-error", shots)
    page.get_by_label("New API key").fill(CONSOLE_KEY)
    page.locator("#f-rate_per_minute").fill("")
    submit(page, page.get_by_role("button", name=f"Save {KEYED}"))
    sources.append(page.content())
    web.reset(KEYED)
    submit(page, page.get_by_role("link", name="All engines"))
    submit(page, page.get_by_role("button", name="Test connection to images_bing"))
    assert page.get_by_test_id("probe-status").inner_text() == "ok"
    look(page, "engines-image-probe", shots)
    return sources


def agent_lifecycle(page: Any, console: ServerProcess, shots: list[Path]) -> list[str]:
    """Create, copy, make a new key, disable, read the ledger, delete; neither key in a page after its own."""
    submit(page, page.get_by_role("link", name="Agents & credits"))
    page.get_by_label("Name", exact=True).fill("keys-bot")
    page.get_by_label("Starting credits").fill("30")
    submit(page, page.get_by_role("button", name="Create agent"))
    first = page.get_by_test_id("new-key").input_value()
    page.get_by_role("button", name="Copy key").click()
    page.get_by_test_id("copied").filter(has_text="Copied.").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == first
    look(page, "agents-created", shots[:1])  # shows a key: not kept in docs
    headers = {"Authorization": f"Bearer {first}"}
    body = {"query": "keys bot", "engine": "yahoo"}
    assert httpx.post(f"{console.url}/v1/search", json=body, headers=headers, trust_env=False).status_code == 200
    submit(page, page.get_by_role("link", name="keys-bot"))
    submit(page, page.get_by_role("button", name="Make a new key"))
    second = page.get_by_test_id("new-key").input_value()
    assert second != first and second.startswith("wr_")
    submit(page, page.get_by_role("button", name="Disable keys-bot"))
    assert page.get_by_test_id("disabled").inner_text() == "yes"
    balances = [int(b) for b in page.get_by_test_id("ledger-balance").all_inner_texts()]
    assert balances[0] == int(page.get_by_test_id("balance").inner_text()) and balances[-1] == 30
    look(page, "agent-ledger-running-balance", shots)
    sources = [page.content()]
    page.get_by_label("To delete keys-bot (its ledger is kept in the archive), type its name").fill("keys-bot")
    submit(page, page.get_by_role("button", name="Delete keys-bot"))
    assert "Deleted keys-bot" in page.get_by_role("status").inner_text()
    look(page, "agent-deleted", shots)
    sources.append(page.content())
    assert all(first not in source and second not in source for source in sources)  # after their own page
    return sources


def test_an_operator_tests_engines_and_runs_agent_keys_in_the_browser(
    web: FakeWeb, console: ServerProcess, browser: Any, shots: list[Path]
) -> None:
    context = browser.new_context(bypass_csp=True, viewport={"width": 1920, "height": 1000})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=console.url)
    page = context.new_page()
    page.goto(f"{console.url}/console/engines")
    sources = engines_and_tests(page, web, shots)
    sources += agent_lifecycle(page, console, shots)
    page.set_viewport_size({"width": 360, "height": 800})
    submit(page, page.get_by_role("link", name="Engines & health"))
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert page.evaluate("getComputedStyle(document.querySelector('table.engines tr')).display") == "block"
    look(page, "engines-cards-narrow", shots)
    for secret in (CONSOLE_KEY, CONSOLE_BAD_KEY):
        assert all(secret not in source for source in [*sources, page.content()])
    context.close()
