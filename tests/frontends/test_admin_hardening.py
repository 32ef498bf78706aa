"""Admin and console authentication that cannot be misconfigured open (issue 35, finding 1): an empty or short
admin token stops `webreach serve` before it serves; an empty presented token never matches; wrong tokens are
throttled per client address and logged without the token; the console's cookies are Secure behind TLS; serving
the tools off loopback with accounts off says so.

In-process with Starlette's TestClient where the client address is the seam; a real `webreach serve` process for
the start-up refusal and for X-Forwarded-Proto from a trusted proxy (uvicorn applies it).
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient

from webreach.config import ServerSettings, Settings
from webreach.errors import InvalidInputError
from webreach.frontends._admin import MIN_TOKEN_CHARS, AdminGate
from webreach.frontends._admin_throttle import LIMIT, WINDOW, FailureThrottle
from webreach.frontends._open_tools import open_tools_warning
from webreach.frontends.http import build_app
from webreach.testing import FakeClock, FakeWeb

from .serving import HTTP_COMMAND, START_TIMEOUT, STOP_TIMEOUT, http_server, server_env

pytestmark = pytest.mark.network
TOKEN = "hardening-admin-token-0123456789-abcdef"
REMOTE = ("203.0.113.9", 40000)
BASE = "http://127.0.0.1:9090"


def app_client(
    web: FakeWeb, client: tuple[str, int], base: str = "http://127.0.0.1:9090", **server: object
) -> TestClient:
    settings = ServerSettings(port=9090, admin_token=TOKEN, **server)  # type: ignore[arg-type]
    app = build_app(Settings(fake_web=web.url, state={"backend": "memory"}), server=settings)
    return TestClient(app, base_url=base, client=client, follow_redirects=False)


@pytest.fixture
def remote(web: FakeWeb) -> Iterator[TestClient]:
    with app_client(web, REMOTE) as client:
        yield client


@pytest.mark.parametrize("token", ["", "x", "a" * (MIN_TOKEN_CHARS - 1), " " * 40, "spaced token " * 4])
def test_an_empty_or_short_admin_token_is_refused_when_the_app_is_built(web: FakeWeb, token: str) -> None:
    with pytest.raises(InvalidInputError) as refused:
        build_app(Settings(fake_web=web.url), server=ServerSettings(admin_token=token))  # type: ignore[arg-type]
    assert "admin_token" in refused.value.message and str(MIN_TOKEN_CHARS) in refused.value.message
    assert "secrets.token_urlsafe" in (refused.value.hint or "")
    assert not token.strip() or token not in str(refused.value)


@pytest.mark.slow  # a subprocess or a heavy model: a cheaper sibling covers the rule in the fast loop
@pytest.mark.parametrize("token", ["", "short-token"])
def test_serve_does_not_start_with_an_empty_or_short_token(web: FakeWeb, tmp_path: Path, token: str) -> None:
    env = server_env(web, tmp_path, WEBREACH_SERVER__ADMIN_TOKEN=token)
    ran = subprocess.run(
        HTTP_COMMAND, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert ran.returncode == 2, ran.stderr
    assert "serving" not in ran.stderr and "Traceback" not in ran.stderr
    assert "admin_token" in ran.stderr and f"at least {MIN_TOKEN_CHARS}" in ran.stderr
    assert not token or token not in ran.stderr


def test_an_empty_presented_token_never_matches() -> None:
    assert AdminGate("").token_matches("") is False  # a gate built around the start-up check stays shut
    assert AdminGate(TOKEN).token_matches("   ") is False
    assert AdminGate(TOKEN).token_matches(f" {TOKEN} ") is True


def test_wrong_bearer_tokens_are_throttled_per_address_and_logged_without_the_token(
    web: FakeWeb, remote: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    guess = "guess-" + "0" * 40
    with caplog.at_level(logging.WARNING, logger="webreach.frontends._admin_throttle"):
        answers = [remote.get("/v1/admin", headers={"Authorization": f"Bearer {guess}"}) for _ in range(LIMIT)]
        assert [a.status_code for a in answers] == [401] * LIMIT
        empty = remote.get("/v1/admin", headers={"Authorization": "Bearer "})
        right = remote.get("/v1/admin", headers={"Authorization": f"Bearer {TOKEN}"})
    for throttled in (empty, right):  # past the limit even the right token waits: guessing gains nothing
        assert throttled.status_code == 429
        assert throttled.json()["code"] == "admin_throttled"
        assert 0 < int(throttled.headers["retry-after"]) <= WINDOW
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == LIMIT and all("203.0.113.9" in line and "/v1/admin" in line for line in lines)
    assert all(guess not in line and TOKEN not in line for line in lines)
    with app_client(web, ("198.51.100.7", 40000)) as other:  # another server, another address: unaffected
        assert other.get("/v1/admin", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_the_throttle_window_slides() -> None:
    clock = FakeClock()
    throttle = FailureThrottle(clock)
    for _ in range(LIMIT):
        throttle.failed("192.0.2.1", "/v1/admin")
        clock.advance(1)
    assert throttle.retry_after("192.0.2.1") == pytest.approx(WINDOW - LIMIT)
    assert throttle.retry_after("192.0.2.2") is None
    clock.advance(WINDOW - LIMIT + 0.5)  # the first failure left the window: one more try
    assert throttle.retry_after("192.0.2.1") is None


def test_the_throttle_forgets_the_oldest_address_past_its_bound() -> None:
    throttle = FailureThrottle(FakeClock(), max_clients=3)
    for n in range(5):
        throttle.failed(f"192.0.2.{n}", "/console/login")
    assert len(throttle._failures) == 3 and "192.0.2.4" in throttle._failures


def login(client: TestClient, token: str) -> httpx.Response:
    form = client.get("/console/login")
    nonce = form.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    return client.post("/console/login", data={"csrf": nonce, "token": token})


def test_console_logins_are_throttled_and_an_empty_field_is_no_login(remote: TestClient) -> None:
    assert login(remote, "").status_code == 401
    for _ in range(LIMIT - 1):
        assert login(remote, "not-the-token").status_code == 401
    throttled = login(remote, TOKEN)
    assert throttled.status_code == 429 and "Too many wrong tokens" in throttled.text
    assert int(throttled.headers["retry-after"]) > 0
    assert "webreach_console" not in remote.cookies
    # the bearer check shares the budget: the same address is throttled there too
    assert remote.get("/v1/admin", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 429


def cookie_named(response: httpx.Response, name: str) -> str:
    return next(v for k, v in response.headers.multi_items() if k == "set-cookie" and v.startswith(f"{name}="))


@pytest.mark.parametrize(
    ("base", "setting", "secure"),
    [
        ("https://127.0.0.1:9090", "auto", True),
        ("http://127.0.0.1:9090", "auto", False),
        ("http://127.0.0.1:9090", True, True),
        ("https://127.0.0.1:9090", False, False),
    ],
)
def test_the_console_cookies_are_secure_over_https(web: FakeWeb, base: str, setting: object, secure: bool) -> None:
    with app_client(web, ("127.0.0.1", 40000), base=base, secure_cookies=setting) as client:
        form = client.get("/console/login")
        cookies = [cookie_named(form, "webreach_console_login")]
        if base.startswith("https") or not secure:  # a Secure cookie never comes back over plain HTTP
            logged = login(client, TOKEN)
            assert logged.status_code == 303
            cookies.append(cookie_named(logged, "webreach_console"))
    for cookie in (c.lower() for c in cookies):
        assert ("; secure" in cookie) is secure and "httponly" in cookie and "samesite=strict" in cookie


@pytest.mark.slow  # a subprocess or a heavy model: a cheaper sibling covers the rule in the fast loop
def test_a_trusted_proxy_saying_https_gets_a_secure_cookie(web: FakeWeb, tmp_path: Path) -> None:
    """A real server: uvicorn believes X-Forwarded-Proto from loopback ([server] trusted_proxies' default) only."""
    with (
        http_server(web, tmp_path, WEBREACH_SERVER__ADMIN_TOKEN=TOKEN) as server,
        httpx.Client(base_url=server.url, trust_env=False, timeout=30) as client,
    ):
        form = client.get("/console/login")
        nonce = form.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "198.51.100.20"}
        logged = client.post("/console/login", data={"csrf": nonce, "token": TOKEN}, headers=forwarded)
        assert logged.status_code == 303
        assert "; secure" in cookie_named(logged, "webreach_console").lower()
        client.cookies.clear()
        form = client.get("/console/login")
        nonce = form.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        wrong = client.post("/console/login", data={"csrf": nonce, "token": "x" * 40}, headers=forwarded)
        assert wrong.status_code == 401
    assert "198.51.100.20" in server.output() and "x" * 40 not in server.output()  # the forwarded client is logged


@pytest.mark.parametrize(
    ("host", "accounts", "warned"),
    [("0.0.0.0", False, True), ("::", False, True), ("192.0.2.5", False, True), ("server.example", False, True),
     ("0.0.0.0", True, False), ("127.0.0.1", False, False), ("::1", False, False), ("localhost", False, False)],
)  # fmt: skip
def test_serving_off_loopback_with_accounts_off_warns(host: str, accounts: bool, warned: bool) -> None:
    settings = Settings(accounts={"enabled": accounts})
    warning = open_tools_warning(settings, host, f"http://{host}:9090")
    assert (warning is not None) is warned
    assert warning is None or ("open to anyone" in warning and "[accounts] enabled" in warning)


NETNS = 'ip link set lo up && ip addr add 192.0.2.1/32 dev lo && exec "$@"'


def serve_in_own_network(web: FakeWeb, home: Path, **env: str) -> str:
    """`webreach serve --host 192.0.2.1` in a network namespace of its own (no one outside can reach it): its
    stderr up to the line announcing it serves, then it is stopped."""
    home.mkdir()
    command = ["unshare", "-n", "sh", "-c", NETNS, "sh", *HTTP_COMMAND[:-4], "--host", "192.0.2.1", "--port", "0"]
    process = subprocess.Popen(
        command, env=server_env(web, home, **env), cwd=home, text=True,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    lines: list[str] = []

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)
            if "serving http://" in line:
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(START_TIMEOUT)
    process.terminate()
    try:
        process.wait(STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(STOP_TIMEOUT)
    if process.stderr is not None:
        process.stderr.close()
    return "".join(lines)


@pytest.mark.slow  # a subprocess or a heavy model: a cheaper sibling covers the rule in the fast loop
@pytest.mark.skipif(shutil.which("unshare") is None or os.geteuid() != 0, reason="needs unshare -n (root)")
def test_serve_off_loopback_with_accounts_off_warns_on_stderr(web: FakeWeb, tmp_path: Path) -> None:
    opened = serve_in_own_network(web, tmp_path / "open")
    assert "serving http://192.0.2.1:" in opened, opened
    assert "warning: http://192.0.2.1:" in opened and "the tools are open to anyone" in opened
    metered = serve_in_own_network(web, tmp_path / "metered", WEBREACH_ACCOUNTS__ENABLED="true")
    assert "serving http://192.0.2.1:" in metered and "open to anyone" not in metered, metered
