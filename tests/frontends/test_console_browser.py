"""The operator console in a real browser: Playwright drives Debian's Chromium against a real `webreach serve`
process (admin token set, accounts on) and the fake web.

One story, in order: log in with the token; enter an engine's API key (the fake provider accepts only that one)
and test the connection (ok), then a wrong key (auth_failed), then a CAPTCHA through a fake-web fault, and see
the probes leave the breaker closed; create an agent and call REST with its key; reorder the auto order with the
keyboard, the mouse (drag and drop) and the buttons, and see the agent's next search follow it; trip an engine's
breaker with the agent's key and reset it from the console (the reorder comes after the reset, so the searches it
checks are not refused); set the agent's quotas and tool profile and see its recent calls; run the playground;
and check that no key is in any page or admin answer after it was saved (the agent's key after its creation
page). Every page gets an axe-core check (no serious or critical violations) and a screenshot, written to the
test's tmp dir (and to $CONSOLE_SHOTS when set: docs/console/ holds a set made that way).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from secret_keys import CONSOLE_BAD_KEY, CONSOLE_KEY
from webreach.testing import FakeWeb

from .serving import ServerProcess, http_server

pytestmark = [pytest.mark.network, pytest.mark.browser]
playwright_api = pytest.importorskip("playwright.sync_api", reason="the browser extra (playwright) is not installed")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
AXE = Path(__file__).resolve().parents[2] / ".ci-node" / "node_modules" / "axe-core" / "axe.min.js"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run"]  # fmt: skip
TOKEN = "console-admin-token-3141-0123456789abcdef"
ENGINE = "mojeek"
KEYED = "brave_api"
if not Path(CHROMIUM).exists():
    pytest.skip("Debian's chromium is not installed (scripts/setup-tests installs it)", allow_module_level=True)


@pytest.fixture(scope="module")
def console(web: FakeWeb, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    home = tmp_path_factory.mktemp("console")
    env = {
        "WEBREACH_SERVER__ADMIN_TOKEN": TOKEN,
        "WEBREACH_ACCOUNTS__ENABLED": "true",
        # our own pacing is not under test: probes, trips and playground runs follow each other quickly
        f"WEBREACH_ENGINES__{ENGINE.upper()}__RATE_PER_MINUTE": "100000",
        f"WEBREACH_ENGINES__{KEYED.upper()}__RATE_PER_MINUTE": "100000",
    }
    with http_server(web, home, **env) as server:
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
    """Where screenshots go: the test's tmp dir, plus $CONSOLE_SHOTS when set."""
    targets = [tmp_path / "screenshots"]
    if os.environ.get("CONSOLE_SHOTS"):
        targets.append(Path(os.environ["CONSOLE_SHOTS"]))
    return targets


def look(page: Any, name: str, shots: list[Path]) -> None:
    """Screenshot the page and run axe-core on it: no serious or critical violation."""
    for folder in shots:
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"{name}.png"), full_page=True)
    if not AXE.exists():
        pytest.skip("axe-core is not installed in .ci-node (scripts/setup-tests installs it)")
    page.add_script_tag(path=str(AXE))  # the context bypasses the console's CSP, which forbids every script
    violations = page.evaluate("async () => (await axe.run(document)).violations")
    serious = [(v["id"], v["help"]) for v in violations if v["impact"] in ("serious", "critical")]
    assert serious == [], f"{name}: {serious}"


def rest_search(server: ServerProcess, key: str, query: str, engine: str = ENGINE) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"}
    body = {"query": query, "engine": engine}
    return httpx.post(f"{server.url}/v1/search", json=body, headers=headers, timeout=30, trust_env=False)


def first_attempt(server: ServerProcess, key: str, query: str) -> str:
    """The engine the agent's auto search asked first."""
    answer = rest_search(server, key, query, engine="auto")
    assert answer.status_code == 200, answer.text
    return str(answer.json()["meta"]["attempts"][0]["engine"])


def order(page: Any) -> list[str]:
    return [str(name) for name in page.get_by_test_id("order-auto_order").locator("li").evaluate_all(
        "items => items.map(item => item.dataset.name)"
    )]  # fmt: skip


def set_key(page: Any, engine: str, key: str) -> None:
    """Enter an engine's API key on its settings page (reached from the engines list)."""
    if not page.url.split("?")[0].endswith(f"/console/engines/{engine}"):
        submit(page, page.get_by_role("link", name="Engines & health"))
        submit(page, page.get_by_role("link", name=f"Settings of {engine}"))
    page.get_by_label("New API key").fill(key)
    submit(page, page.get_by_role("button", name=f"Save {engine}"))
    assert "Saved API key" in page.get_by_role("status").inner_text()
    assert page.get_by_test_id("winner-api_key").inner_text() == "console"


def submit(page: Any, control: Any, *, key: str | None = None) -> None:
    """Click `control` (or press `key` on it) and wait for the page it leads to (a form's answer, a link's page)."""
    with page.expect_navigation():
        if key is None:
            control.click()
        else:
            control.press(key)


def probe(page: Any, engine: str) -> dict[str, str]:
    submit(page, page.get_by_role("button", name=f"Test connection to {engine}"))
    found = {"status": page.get_by_test_id("probe-status").inner_text()}
    found["hits"] = page.get_by_test_id("probe-hits").inner_text()
    code = page.get_by_test_id("probe-code")
    found["code"] = code.inner_text() if code.count() else ""
    found["breaker"] = page.get_by_test_id(f"breaker-{engine}").inner_text()
    return found


@dataclass
class Story:
    """One operator's session in the browser, step by step; `sources` collects every page shown after a secret was
    saved, for the final check that none holds one."""

    page: Any
    web: FakeWeb
    console: ServerProcess
    shots: list[Path]
    sources: list[str] = field(default_factory=list)
    key: str = ""

    def look(self, name: str) -> None:
        look(self.page, name, self.shots)
        self.sources.append(self.page.content())

    def log_in(self) -> None:
        """The console sends an anonymous visitor to the form; a wrong token is refused, the right one opens it."""
        page = self.page
        page.goto(f"{self.console.url}/console/engines")
        assert page.url.endswith("/console/login")
        look(page, "login", self.shots)
        page.get_by_label("Admin token").fill("not-the-token")
        page.keyboard.press("Enter")
        assert "not the admin token" in page.get_by_role("alert").inner_text()
        page.get_by_label("Admin token").fill(TOKEN)
        page.keyboard.press("Enter")  # keyboard only: Enter submits the form
        page.wait_for_url("**/console/engines")
        cookie = next(c for c in page.context.cookies() if c["name"] == "webreach_console")
        assert (cookie["httpOnly"], cookie["sameSite"]) == (True, "Strict")

    def keys_and_probes(self) -> None:
        """A key entered in the console: the fake provider accepts that key only; a wrong one is auth_failed; the
        environment's rate wins over the console's. Then a keyless engine: ok, then a CAPTCHA through a fault;
        no probe touches the breaker."""
        page = self.page
        self.web.set_scenario(KEYED, key=CONSOLE_KEY)
        set_key(page, KEYED, CONSOLE_KEY)
        page.locator("#f-rate_per_minute").fill("30")
        submit(page, page.get_by_role("button", name=f"Save {KEYED}"))
        assert page.get_by_test_id("winner-rate_per_minute").inner_text() == "environment"
        assert "console's value is not used" in page.get_by_test_id("field-rate_per_minute").inner_text()
        self.look("engine-settings")
        keyed = probe(page, KEYED)
        assert keyed["status"] == "ok" and int(keyed["hits"]) > 0, keyed
        assert page.url.split("?")[0].endswith(f"/console/engines/{KEYED}")  # the test answers on the engine's page
        assert page.get_by_test_id(f"key-{KEYED}").inner_text() == "set"
        set_key(page, KEYED, CONSOLE_BAD_KEY)
        refused = probe(page, KEYED)
        assert (refused["status"], refused["code"]) == ("error", "auth_failed") and refused["breaker"] == "closed"
        self.look("engines-probe-auth-failed")
        set_key(page, KEYED, CONSOLE_KEY)
        self.sources.append(page.content())
        submit(page, page.get_by_role("link", name="Engines & health"))
        ok = probe(page, ENGINE)
        assert ok["status"] == "ok" and int(ok["hits"]) > 0
        self.look("engines-probe-ok")
        self.web.set_scenario(ENGINE, fault="captcha")
        walled = probe(page, ENGINE)
        assert walled["status"] == "blocked" and walled["code"] in ("captcha", "blocked")
        assert walled["breaker"].startswith("closed")
        self.look("engines-probe-captcha")

    def create_agent(self) -> None:
        """Its key is shown once; REST answers that key."""
        page = self.page
        submit(page, page.get_by_role("link", name="Agents & credits"))
        page.get_by_label("Name").fill("console-bot")
        page.get_by_label("Starting credits").fill("50")
        submit(page, page.get_by_role("button", name="Create agent"))
        self.key = page.get_by_test_id("new-key").input_value()
        assert self.key.startswith("wr_")
        look(page, "agents-created", self.shots[:1])  # the one page that shows the key: not kept in docs

    def trip_and_reset(self) -> None:
        """With the CAPTCHA still up, the agent's own search trips the breaker; the console resets it."""
        page = self.page
        assert rest_search(self.console, self.key, "console trip").json()["code"] in ("captcha", "blocked")
        assert rest_search(self.console, self.key, "console trip 2").json()["code"] == "suspended"
        self.web.reset(ENGINE)
        submit(page, page.get_by_role("link", name="Engines & health"))
        assert page.get_by_test_id(f"breaker-{ENGINE}").inner_text().startswith("open")
        self.look("engines-tripped")
        submit(page, page.get_by_role("button", name=f"Reset the breaker of {ENGINE}"), key="Enter")  # keyboard
        assert page.get_by_test_id(f"breaker-{ENGINE}").inner_text() == "closed"
        answered = rest_search(self.console, self.key, "console after reset")
        assert answered.status_code == 200, answered.text
        # image engines and reverse-image backends are listed with the web engine whose settings they use
        assert page.get_by_test_id("usable-images_bing").inner_text() == "yes"
        assert page.get_by_role("link", name="images_bing runs on the settings bing has").count() == 1
        assert page.get_by_test_id("breaker-tineye").inner_text() == "closed"
        submit(page, page.get_by_role("button", name="Reset the breaker of tineye"))
        assert page.get_by_role("status").filter(has_text="tineye: breaker closed").count() == 1

    def reorder(self) -> None:
        """The keyboard makes mojeek the default engine, the mouse drags yahoo first, a button moves it back down;
        each time the agent's next auto search asks the new first engine first."""
        page, console, key = self.page, self.console, self.key
        assert "yahoo" in order(page) and order(page)[0] != ENGINE
        submit(page, page.get_by_role("button", name=f"Make default: {ENGINE} (Any language)"), key="Enter")
        assert order(page)[0] == ENGINE and page.get_by_test_id("order-source-auto_order").inner_text() == "console"
        assert first_attempt(console, key, "order one") == ENGINE
        with page.expect_navigation():
            items = page.get_by_test_id("order-auto_order").locator("li")
            items.filter(has_text="yahoo").drag_to(items.first, target_position={"x": 10, "y": 2})
        assert order(page)[:2] == ["yahoo", ENGINE]
        assert first_attempt(console, key, "order two") == "yahoo"
        submit(page, page.get_by_role("button", name="Move yahoo down (Any language)"))
        assert order(page)[:2] == [ENGINE, "yahoo"]
        assert first_attempt(console, key, "order three") == ENGINE
        self.look("engines")

    def agent_settings(self) -> None:
        """A grant lands in the ledger; quotas and the tool profile apply to the agent's next call; the recent calls
        say which engines each call tried."""
        page = self.page
        submit(page, page.get_by_role("link", name="Agents & credits"))
        self.look("agents")
        submit(page, page.get_by_role("link", name="console-bot"))
        page.get_by_label("Credits (negative to take back)").fill("25")
        page.get_by_label("Note").fill("from the console")
        submit(page, page.get_by_role("button", name="Grant"))
        assert "from the console" in page.content()
        page.get_by_label("Calls per hour (blank: unlimited)").fill("100")
        page.get_by_label("web_fetch", exact=True).uncheck()
        submit(page, page.get_by_role("button", name="Save quotas and profile"))
        assert "saved" in page.get_by_role("status").inner_text()
        calls = page.get_by_test_id("recent-calls").inner_text()
        assert f"{ENGINE} ok" in calls and "yahoo ok" in calls and "web_search" in calls
        self.look("agent-ledger")
        fetch = httpx.post(
            f"{self.console.url}/v1/fetch", json={"url": f"{self.web.url}/_pages/article"},
            headers={"Authorization": f"Bearer {self.key}"}, timeout=30, trust_env=False,
        )  # fmt: skip
        assert fetch.status_code == 403 and fetch.json()["code"] == "tool_not_allowed"
        assert "not enabled for agent" in fetch.json()["message"]

    def playground_and_narrow(self) -> None:
        """One engine through the tool pipeline, both views with their token counts; at a narrow width the page
        itself never scrolls sideways (wide tables scroll in their own box)."""
        page = self.page
        submit(page, page.get_by_role("link", name="Playground"))
        page.get_by_label("Engine (web_search)").select_option(ENGINE)
        page.get_by_label("Query, or URL to fetch").fill("python asyncio")
        submit(page, page.get_by_role("button", name="Run"))
        assert '"results"' in page.get_by_test_id("out-json").inner_text()
        for view in ("json", "compact"):
            assert int(page.get_by_test_id(f"tokens-{view}").inner_text().split()[0]) > 0
        self.look("playground")
        page.set_viewport_size({"width": 360, "height": 800})
        submit(page, page.get_by_role("link", name="Engines & health"))
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        self.look("engines-narrow")

    def no_secret_anywhere(self) -> None:
        """The agent's key after its creation page, and the engine keys after they were saved: in no page, no admin
        answer, no log line."""
        auth = {"Authorization": f"Bearer {TOKEN}"}
        agents = httpx.get(f"{self.console.url}/v1/admin/agents", headers=auth, trust_env=False)
        assert "console-bot" in agents.text
        config = httpx.get(f"{self.console.url}/v1/admin/config", headers=auth, trust_env=False)
        assert config.json()["engines"][KEYED]["api_key"]["winner"] == "console"
        for secret in (self.key, CONSOLE_KEY, CONSOLE_BAD_KEY):
            assert all(secret not in source for source in self.sources)
            assert secret not in agents.text and secret not in config.text
            assert secret not in self.console.output()


def test_an_operator_runs_the_server_from_the_browser(
    web: FakeWeb, console: ServerProcess, browser: Any, shots: list[Path]
) -> None:
    web.reset()
    context = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 900})
    story = Story(context.new_page(), web, console, shots)
    story.log_in()
    story.keys_and_probes()
    story.create_agent()
    story.trip_and_reset()
    story.reorder()
    story.agent_settings()
    story.playground_and_narrow()
    story.no_secret_anywhere()
    context.close()


def test_posts_need_the_session_and_its_csrf_token(console: ServerProcess) -> None:
    with httpx.Client(base_url=console.url, trust_env=False, follow_redirects=False) as client:
        # no session: to the login form, and nothing reset
        assert client.post(f"/console/engines/{ENGINE}/reset", data={"csrf": "x"}).status_code == 303
        form = client.get("/console/login")
        nonce = form.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        logged = client.post("/console/login", data={"csrf": nonce, "token": TOKEN})
        assert logged.status_code == 303 and "webreach_console" in client.cookies
        # a session without the form's token: refused
        refused = client.post(f"/console/engines/{ENGINE}/reset", data={"csrf": "forged"})
        assert refused.status_code == 403 and "CSRF" in refused.text
        # a login form replayed without its cookie's nonce: refused too
        client.cookies.delete("webreach_console_login")
        assert client.post("/console/login", data={"csrf": nonce, "token": TOKEN}).status_code == 403


def test_without_a_token_loopback_gets_a_session_and_forms_still_need_csrf(web: FakeWeb, tmp_path: Path) -> None:
    with (
        http_server(web, tmp_path) as server,
        httpx.Client(base_url=server.url, trust_env=False, follow_redirects=False) as client,
    ):
        assert client.get("/console/login").status_code == 303  # nothing to log in with
        page = client.get("/console/agents")
        assert page.status_code == 200 and "webreach_console" in client.cookies
        assert "Accounts are off on this server" in page.text
        assert client.post("/console/agents", data={"name": "x", "csrf": "forged"}).status_code == 403
        nonce = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        once = page.text.split('name="once" value="', 1)[1].split('"', 1)[0]
        form = {"name": "loopback-bot", "credits": "5", "csrf": nonce, "once": once}
        created = client.post("/console/agents", data=form)
        assert created.status_code == 303  # to the page that shows the new key, once
        shown = client.get(created.headers["location"])
        assert "loopback-bot" in shown.text and 'data-testid="new-key"' in shown.text
        assert 'data-testid="new-key"' not in client.get(created.headers["location"]).text
        css = client.get("/console/static/console.css")
        assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")


def test_a_console_session_survives_a_restart_and_logout_ends_it(web: FakeWeb, tmp_path: Path) -> None:
    env = {"WEBREACH_SERVER__ADMIN_TOKEN": TOKEN}
    with http_server(web, tmp_path, **env) as server, httpx.Client(base_url=server.url, trust_env=False) as client:
        form = client.get("/console/login")
        nonce = form.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        assert client.post("/console/login", data={"csrf": nonce, "token": TOKEN}).status_code == 303
        cookie = client.cookies["webreach_console"]
    stored = (tmp_path / "data" / "webreach" / "accounts.sqlite3").read_bytes()
    assert cookie.encode() not in stored  # only a hash of the session's id is kept
    with http_server(web, tmp_path, **env) as again, httpx.Client(base_url=again.url, trust_env=False) as client:
        client.cookies.set("webreach_console", cookie, path="/console")
        page = client.get("/console/engines", follow_redirects=False)
        assert page.status_code == 200 and "Auto order" in page.text
        csrf = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        assert client.post("/console/logout", data={"csrf": csrf}, follow_redirects=False).status_code == 303
        client.cookies.set("webreach_console", cookie, path="/console")
        assert client.get("/console/engines", follow_redirects=False).status_code == 303  # to the login form
