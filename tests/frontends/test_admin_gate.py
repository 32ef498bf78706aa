"""The admin gate: loopback-only without a token, the Bearer token from everyone once one is configured.

In-process with Starlette's TestClient (its `client` address is the seam for "who is calling"); one test goes
over a real loopback socket to the server process.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient

from webreach.config import ServerSettings, Settings
from webreach.frontends.http import build_app
from webreach.testing import FakeWeb

from .serving import http_server

pytestmark = pytest.mark.network
BASE = "http://127.0.0.1:9090"
SECRET = "s3cret-admin-0123456789-abcdefghijkl"  # 36 characters: over the minimum of 32
TOKEN = "tok-0123456789-abcdefghijklmnopqrstu"


def admin_client(web: FakeWeb, client: tuple[str, int], token: str | None = None) -> TestClient:
    server = ServerSettings(port=9090, admin_token=token)
    app = build_app(Settings(fake_web=web.url, state={"backend": "memory"}), server=server)
    return TestClient(app, base_url=BASE, client=client)


@pytest.fixture
def remote(web: FakeWeb) -> Iterator[TestClient]:
    with admin_client(web, ("203.0.113.9", 40000)) as client:
        yield client


@pytest.mark.parametrize("address", ["127.0.0.1", "127.8.0.1", "::1", "::ffff:127.0.0.1"])
def test_loopback_clients_reach_the_admin_index_without_a_token(web: FakeWeb, address: str) -> None:
    with admin_client(web, (address, 40000)) as client:
        answer = client.get("/v1/admin")
    assert answer.status_code == 200
    assert answer.json()["status"] == "ok"


@pytest.mark.parametrize("address", ["203.0.113.9", "10.0.0.5", "::ffff:10.0.0.5", "testclient"])
def test_other_clients_are_refused_without_a_token(web: FakeWeb, address: str) -> None:
    with admin_client(web, (address, 40000)) as client:
        answer = client.get("/v1/admin")
    assert answer.status_code == 401
    body = answer.json()
    assert body["code"] == "admin_required"
    assert "admin_token" in body["message"]


def test_a_configured_token_is_required_even_from_loopback(web: FakeWeb) -> None:
    with admin_client(web, ("127.0.0.1", 40000), token=SECRET) as client:
        missing = client.get("/v1/admin")
        wrong = client.get("/v1/admin", headers={"Authorization": f"Bearer {SECRET[:-1]}L"})
        right = client.get("/v1/admin", headers={"Authorization": f"Bearer {SECRET}"})
    assert missing.status_code == wrong.status_code == 401
    assert "s3cret" not in missing.text + wrong.text
    assert right.status_code == 200


def test_the_token_lets_a_remote_client_in(web: FakeWeb) -> None:
    with admin_client(web, ("203.0.113.9", 40000), token=TOKEN) as client:
        assert client.get("/v1/admin", headers={"authorization": f"bearer {TOKEN}"}).status_code == 200
        assert client.get("/v1/admin", headers={"authorization": f"Basic {TOKEN}"}).status_code == 401


def test_post_to_the_admin_index_is_no_tool_call(remote: TestClient) -> None:
    answer = remote.post("/v1/admin", json={})
    # the tool route takes it, knows no tool "admin" and knows the admin index's methods (issue 41: 404 is for
    # paths no endpoint has, whatever the method; a known endpoint's wrong method is 405 with its Allow)
    assert answer.status_code == 405
    assert answer.json()["code"] == "method_not_allowed" and answer.headers["allow"] == "GET, HEAD"


@pytest.mark.slow
def test_over_a_real_socket_the_server_answers_its_loopback_admin(web: FakeWeb, tmp_path: Path) -> None:
    with http_server(web, tmp_path) as process:
        answer = httpx.get(process.url + "/v1/admin", timeout=10)
        tokened = tmp_path / "tokened"
        tokened.mkdir()
        with http_server(web, tokened, WEBREACH_SERVER__ADMIN_TOKEN=TOKEN) as guarded:
            refused = httpx.get(guarded.url + "/v1/admin", timeout=10)
            allowed = httpx.get(guarded.url + "/v1/admin", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
    assert answer.status_code == 200
    assert refused.status_code == 401 and refused.json()["code"] == "admin_required"
    assert allowed.status_code == 200
