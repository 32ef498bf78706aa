"""The fake web over real loopback sockets: recordings, scenarios, every fault, the control API and the log.

Every network call has a short client timeout and every server-side stream a small cap, so no test can hang.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from webreach.engines._provider import CLOUDFLARE_MARKERS
from webreach.testing import RECORDINGS_DIR, FakeClock, FakeWeb, Limits, format_recording, load_recording, serve

pytestmark = pytest.mark.network

TIMEOUT = httpx.Timeout(2.0)
SAFE = Limits(stream_seconds=5.0, hang_seconds=5.0, idle_seconds=5.0)
RESULTS = b"<html><body><ul><li><a href='https://example.org/'>Example</a></li></ul></body></html>"


def write(folder: Path, case: str, status: int, body: bytes, **headers: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    headers = {"content-type": "text/html; charset=utf-8", **headers}
    data = format_recording(status, headers, body, comment="written for the fake web tests")
    (folder / f"{case}.http").write_bytes(data)


@pytest.fixture
def recordings(tmp_path: Path) -> Path:
    """`alpha` has results, captcha and rate_limited recordings; `beta` has results only."""
    write(tmp_path / "alpha", "results", 200, RESULTS)
    write(tmp_path / "alpha", "captcha", 200, b"<form id='captcha'>prove you are human</form>")
    write(tmp_path / "alpha", "rate_limited", 429, b"slow down", **{"retry-after": "120"})
    write(tmp_path / "beta", "results", 200, b"beta results")
    return tmp_path


@pytest.fixture
async def web(recordings: Path) -> AsyncIterator[FakeWeb]:
    async with FakeWeb(recordings_dir=recordings, limits=SAFE, clock=FakeClock(start=1000.0)) as server:
        yield server


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=TIMEOUT) as http:
        yield http


async def test_default_route_serves_the_results_recording(web: FakeWeb, client: httpx.AsyncClient) -> None:
    response = await client.get(web.engine_url("alpha") + "/search", params={"q": "python"})
    assert response.status_code == 200
    assert response.content == RESULTS
    assert response.headers["content-length"] == str(len(RESULTS))
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    # any method, any path under the engine, and keep-alive for a second request
    assert (await client.post(web.engine_url("alpha"), content=b"q=x")).content == RESULTS


async def test_packaged_recordings_are_served_by_default(client: httpx.AsyncClient) -> None:
    async with FakeWeb(limits=SAFE) as web:
        assert web.url.startswith("http://127.0.0.1:")
        assert web.engine_url("mojeek") == f"{web.url}/mojeek"
        response = await client.get(web.engine_url("mojeek") + "/search?q=asyncio")
    assert response.status_code == 200
    assert response.content == load_recording(RECORDINGS_DIR / "mojeek" / "results.http").body


async def test_unknown_engine_is_a_json_404(web: FakeWeb, client: httpx.AsyncClient) -> None:
    response = await client.get(web.url + "/nosuchengine/search")
    assert response.status_code == 404
    assert response.json()["engines"] == ["alpha", "beta"]
    assert web.count() == 0


async def raw_exchange(web: FakeWeb, data: bytes) -> bytes:
    """Send bytes no HTTP client would, return the status line."""
    async with asyncio.timeout(2):
        reader, writer = await asyncio.open_connection("127.0.0.1", web.port)
        writer.write(data)
        status_line = await reader.readline()
        writer.close()
        await writer.wait_closed()
    return status_line


async def test_paths_never_leave_the_recordings_folder(web: FakeWeb) -> None:
    status_line = await raw_exchange(web, b"GET /..%2F..%2Fetc/passwd HTTP/1.1\r\nhost: x\r\n\r\n")
    assert status_line.startswith(b"HTTP/1.1 404")
    with pytest.raises(ValueError):
        web.set_scenario("alpha", case="../beta/results")


async def test_case_switch_serves_that_recording(web: FakeWeb, client: httpx.AsyncClient) -> None:
    web.set_scenario("alpha", case="rate_limited")
    response = await client.get(web.engine_url("alpha") + "/search")
    assert (response.status_code, response.content) == (429, b"slow down")
    assert response.headers["retry-after"] == "120"
    web.reset()
    assert (await client.get(web.engine_url("alpha"))).content == RESULTS


async def test_status_override_alone_serves_a_generic_body(web: FakeWeb, client: httpx.AsyncClient) -> None:
    web.set_scenario("alpha", status=503)
    response = await client.get(web.engine_url("alpha") + "/search")
    assert response.status_code == 503
    assert "503 Service Unavailable" in response.text


async def test_status_override_with_a_case_keeps_its_body(web: FakeWeb, client: httpx.AsyncClient) -> None:
    web.set_scenario("alpha", case="results", status=500)
    response = await client.get(web.engine_url("alpha") + "/search")
    assert (response.status_code, response.content) == (500, RESULTS)


async def test_latency_still_delivers_the_response(web: FakeWeb, client: httpx.AsyncClient) -> None:
    web.set_scenario("alpha", latency=0.05)
    response = await client.get(web.engine_url("alpha") + "/search")
    assert (response.status_code, response.content) == (200, RESULTS)


async def test_reset_closes_the_connection_abruptly(web: FakeWeb, client: httpx.AsyncClient) -> None:
    web.set_scenario("alpha", fault="reset")
    with pytest.raises((httpx.ReadError, httpx.RemoteProtocolError)):
        await client.get(web.engine_url("alpha") + "/search")
    assert web.count("alpha") == 1


async def test_truncate_sends_less_than_its_content_length(web: FakeWeb, client: httpx.AsyncClient) -> None:
    web.set_scenario("alpha", fault="truncate")
    with pytest.raises(httpx.RemoteProtocolError, match="complete message body"):
        await client.get(web.engine_url("alpha") + "/search")


async def test_endless_body_streams_until_the_client_stops(web: FakeWeb, client: httpx.AsyncClient) -> None:
    web.set_scenario("alpha", fault="endless")
    received = 0
    async with client.stream("GET", web.engine_url("alpha") + "/search") as response:
        assert response.headers["transfer-encoding"] == "chunked"
        async for chunk in response.aiter_raw():
            received += len(chunk)
            if received > 512 * 1024:
                break
    assert received > 512 * 1024


async def test_endless_body_stops_by_itself_at_the_byte_cap(recordings: Path, client: httpx.AsyncClient) -> None:
    async with FakeWeb(recordings_dir=recordings, limits=Limits(stream_bytes=100_000, stream_seconds=5)) as web:
        web.set_scenario("alpha", fault="endless")
        with pytest.raises(httpx.RemoteProtocolError):  # cut off without the final chunk: never a clean end
            await client.get(web.engine_url("alpha") + "/search")


async def test_drip_delivers_the_whole_body_slowly(recordings: Path, client: httpx.AsyncClient) -> None:
    async with FakeWeb(recordings_dir=recordings, limits=Limits(drip_interval=0.001, drip_bytes=8)) as web:
        web.set_scenario("alpha", fault="drip")
        response = await client.get(web.engine_url("alpha") + "/search")
    assert response.content == RESULTS


async def test_drip_gives_up_at_the_time_cap(recordings: Path, client: httpx.AsyncClient) -> None:
    limits = Limits(drip_interval=0.02, drip_bytes=1, stream_seconds=0.05)  # the body needs 80 drips
    async with FakeWeb(recordings_dir=recordings, limits=limits) as web:
        web.set_scenario("alpha", fault="drip")
        with pytest.raises(httpx.RemoteProtocolError):
            await client.get(web.engine_url("alpha") + "/search")


async def test_hang_never_answers(web: FakeWeb, client: httpx.AsyncClient) -> None:
    web.set_scenario("alpha", fault="hang")
    with pytest.raises(httpx.ReadTimeout):
        await client.get(web.engine_url("alpha") + "/search", timeout=0.2)


async def test_hang_ends_at_its_safety_cap(recordings: Path, client: httpx.AsyncClient) -> None:
    async with FakeWeb(recordings_dir=recordings, limits=Limits(hang_seconds=0.05)) as web:
        web.set_scenario("alpha", fault="hang")
        with pytest.raises(httpx.RemoteProtocolError):
            await client.get(web.engine_url("alpha") + "/search")


async def test_stopping_ends_connections_left_hanging(recordings: Path, client: httpx.AsyncClient) -> None:
    async with FakeWeb(recordings_dir=recordings, limits=SAFE) as web:
        web.set_scenario("alpha", fault="hang")
        pending = asyncio.create_task(client.get(web.engine_url("alpha") + "/search"))
        async with asyncio.timeout(2):
            while web.count("alpha") == 0:  # wait until the server holds the request
                await asyncio.sleep(0.01)
    with pytest.raises(httpx.RemoteProtocolError):
        await pending


async def test_captcha_fault_prefers_the_engines_recording(web: FakeWeb, client: httpx.AsyncClient) -> None:
    web.set_scenario("alpha", fault="captcha")
    response = await client.get(web.engine_url("alpha") + "/search")
    assert response.text == "<form id='captcha'>prove you are human</form>"


async def test_captcha_fault_without_a_recording_is_a_challenge_page(web: FakeWeb, client: httpx.AsyncClient) -> None:
    web.set_scenario("beta", fault="captcha")
    response = await client.get(web.engine_url("beta") + "/search")
    assert response.status_code == 403
    assert response.headers["server"] == "cloudflare"
    assert any(marker in response.text for marker in CLOUDFLARE_MARKERS)


async def test_retry_after_fault(web: FakeWeb, client: httpx.AsyncClient) -> None:
    web.set_scenario("alpha", fault="retry_after", retry_after=7)
    web.set_scenario("beta", fault="retry_after", retry_after="Wed, 21 Oct 2015 07:28:00 GMT")
    alpha = await client.get(web.engine_url("alpha") + "/search")
    beta = await client.get(web.engine_url("beta") + "/search")
    assert (alpha.status_code, alpha.headers.get_list("retry-after"), alpha.content) == (429, ["7"], b"slow down")
    assert (beta.status_code, beta.headers["retry-after"]) == (429, "Wed, 21 Oct 2015 07:28:00 GMT")


async def test_times_limits_a_scenario_to_the_next_requests(web: FakeWeb, client: httpx.AsyncClient) -> None:
    web.set_scenario("alpha", status=503, times=2)
    statuses = [(await client.get(web.engine_url("alpha"))).status_code for _ in range(3)]
    assert statuses == [503, 503, 200]


async def test_head_request_gets_headers_only(web: FakeWeb, client: httpx.AsyncClient) -> None:
    response = await client.head(web.engine_url("alpha") + "/search")
    assert (response.status_code, response.content) == (200, b"")
    assert response.headers["content-length"] == str(len(RESULTS))


async def test_control_api_switches_and_resets_scenarios(web: FakeWeb, client: httpx.AsyncClient) -> None:
    control = web.url + "/_fakeweb/scenario"
    posted = await client.post(control + "/alpha", json={"case": "captcha", "latency": 0})
    assert posted.status_code == 200
    assert posted.json()["scenario"]["case"] == "captcha"
    await client.post(control + "/beta", json={"status": 502})
    assert set((await client.get(control)).json()["scenarios"]) == {"alpha", "beta"}
    assert (await client.get(web.engine_url("alpha"))).text.startswith("<form id='captcha'>")
    assert (await client.delete(control + "/beta")).status_code == 200
    assert web.scenario("beta").status is None
    assert (await client.delete(control)).status_code == 200
    assert (await client.get(web.engine_url("alpha"))).content == RESULTS
    assert (await client.get(web.url + "/_fakeweb")).json() == {"engines": ["alpha", "beta"]}


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("alpha", b'{"fault": "explode"}', 400),
        ("alpha", b'{"colour": "red"}', 400),
        ("alpha", b'{"latency": -1}', 400),
        ("alpha", b"not json", 400),
        ("alpha", b"[1, 2]", 400),
        ("alpha", b'{"case": "no_such_case"}', 404),
        ("nosuchengine", b"{}", 404),
    ],
)
async def test_control_api_rejects_bad_scenarios(
    web: FakeWeb, client: httpx.AsyncClient, path: str, body: bytes, status: int
) -> None:
    response = await client.post(f"{web.url}/_fakeweb/scenario/{path}", content=body)
    assert response.status_code == status
    assert response.json()["error"]
    assert web.scenarios() == {}


async def test_request_log_over_python_and_http(web: FakeWeb, client: httpx.AsyncClient) -> None:
    headers = {"user-agent": "webreach-test", "cookie": "session=secret"}
    await client.get(web.engine_url("alpha") + "/search", params={"q": "rust async"}, headers=headers)
    await client.post(web.engine_url("beta") + "/api", json={"query": "x"})
    await client.get(web.url + "/_fakeweb/scenario")  # control requests are not logged

    [logged] = web.requests("alpha")
    assert (logged.method, logged.path, logged.query) == ("GET", "/alpha/search", "q=rust+async")
    assert logged.headers["user-agent"] == "webreach-test"
    assert "cookie" not in logged.headers
    assert logged.timestamp == 1000.0
    assert web.requests("beta")[0].body == b'{"query":"x"}'
    assert (web.count("alpha"), web.count("beta"), web.count()) == (1, 1, 2)

    log = (await client.get(web.url + "/_fakeweb/requests")).json()
    assert log["counts"] == {"alpha": 1, "beta": 1}
    assert [r["path"] for r in log["requests"]] == ["/alpha/search", "/beta/api"]
    assert "cookie" not in log["requests"][0]["headers"]
    only_beta = (await client.get(web.url + "/_fakeweb/requests", params={"engine": "beta"})).json()
    assert [r["engine"] for r in only_beta["requests"]] == ["beta"]

    assert (await client.delete(web.url + "/_fakeweb/requests")).status_code == 200
    assert (web.count(), web.requests()) == (0, [])


KEY = "live-key-1234567890"
KEYED_HEADERS = {
    "Authorization": f"Bearer {KEY}",
    "X-Subscription-Token": KEY,
    "X-API-KEY": KEY,
    "x-goog-api-key": KEY,
    "Proxy-Authorization": f"Basic {KEY}",
}
KEYED_PARAMS = {"q": "rust", "api_key": KEY, "key": KEY, "token": KEY, "engine": "google"}


async def test_request_log_shows_credentials_as_stars_by_default(web: FakeWeb, client: httpx.AsyncClient) -> None:
    await client.get(web.engine_url("alpha") + "/search", params=KEYED_PARAMS, headers=KEYED_HEADERS)
    [logged] = web.requests("alpha")
    for name in ("authorization", "x-subscription-token", "x-api-key", "x-goog-api-key", "proxy-authorization"):
        assert logged.headers[name] == "***", name  # not even a tail of the key: "***" and nothing else
    assert logged.query == "q=rust&api_key=***&key=***&token=***&engine=google"
    over_http = (await client.get(web.url + "/_fakeweb/requests")).text
    assert KEY not in over_http
    assert KEY[-4:] not in over_http
    assert "q=rust" in over_http


async def test_request_log_keeps_credentials_only_when_asked(recordings: Path, client: httpx.AsyncClient) -> None:
    async with FakeWeb(recordings_dir=recordings, limits=SAFE, log_secrets=True) as web:
        await client.get(web.engine_url("alpha") + "/search", params=KEYED_PARAMS, headers=KEYED_HEADERS)
        over_http = (await client.get(web.url + "/_fakeweb/requests")).json()
    [logged] = web.requests("alpha")
    assert logged.headers["x-subscription-token"] == KEY
    assert logged.headers["authorization"] == f"Bearer {KEY}"
    assert f"api_key={KEY}" in logged.query
    assert over_http["requests"][0]["headers"]["x-api-key"] == KEY


async def test_malformed_request_gets_400(web: FakeWeb) -> None:
    assert (await raw_exchange(web, b"this is not http\r\n\r\n")).startswith(b"HTTP/1.1 400")


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "::", "example.com", ""])
def test_refuses_to_bind_beyond_loopback(host: str) -> None:
    with pytest.raises(ValueError, match="loopback"):
        FakeWeb(host=host)


def test_loopback_addresses_are_accepted() -> None:
    assert FakeWeb(host="127.0.0.2").host == "127.0.0.2"
    assert FakeWeb(host="::1").host == "::1"
    assert FakeWeb(host="localhost").host == "127.0.0.1"


def test_in_thread_serves_sync_code_and_its_thread_ends(recordings: Path) -> None:
    with FakeWeb.in_thread(recordings_dir=recordings, limits=SAFE) as web, httpx.Client(timeout=TIMEOUT) as http:
        assert http.get(web.engine_url("alpha") + "/search", params={"key": "k-9"}).content == RESULTS
        assert web.requests("alpha")[0].query == "key=***"
        http.post(web.url + "/_fakeweb/scenario/alpha", json={"fault": "hang"})
        with pytest.raises(httpx.ReadTimeout):
            http.get(web.engine_url("alpha") + "/search", timeout=0.2)
        assert web.count("alpha") == 2
    assert not [t for t in threading.enumerate() if t.name == "webreach-fakeweb"]
    with FakeWeb.in_thread(recordings_dir=recordings, limits=SAFE, log_secrets=True) as web:
        httpx.get(web.engine_url("alpha") + "/search", params={"key": "k-9"}, timeout=TIMEOUT)
        assert web.requests("alpha")[0].query == "key=k-9"


def test_in_thread_reports_a_port_already_taken(recordings: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(OSError), FakeWeb.in_thread(port=taken.getsockname()[1], recordings_dir=recordings):
            pass
    assert not [t for t in threading.enumerate() if t.name == "webreach-fakeweb"]
    with FakeWeb.in_thread(recordings_dir=recordings, limits=SAFE, log_secrets=True) as web:
        httpx.get(web.engine_url("alpha") + "/search", params={"key": "k-9"}, timeout=TIMEOUT)
        assert web.requests("alpha")[0].query == "key=k-9"


async def test_serve_runs_until_cancelled(recordings: Path, client: httpx.AsyncClient) -> None:
    announced: asyncio.Queue[str] = asyncio.Queue()
    task = asyncio.create_task(serve("127.0.0.1", 0, recordings, limits=SAFE, announce=announced.put_nowait))
    async with asyncio.timeout(2):
        url = await announced.get()
    assert (await client.get(url + "/beta/search")).content == b"beta results"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    with pytest.raises(httpx.ConnectError):
        await client.get(url + "/beta/search")


async def test_a_scenario_key_refuses_requests_without_it(web: FakeWeb, client: httpx.AsyncClient) -> None:
    web.set_scenario("alpha", key="the-right-key")
    right = await client.get(web.engine_url("alpha"), headers={"Authorization": "Bearer the-right-key"})
    by_parameter = await client.get(web.engine_url("alpha"), params={"api_key": "the-right-key"})
    wrong = await client.get(web.engine_url("alpha"), headers={"X-Subscription-Token": "another-key"})
    missing = await client.get(web.engine_url("alpha"))
    assert right.content == by_parameter.content == RESULTS
    assert wrong.status_code == missing.status_code == 401  # alpha has no auth_failed recording: a generic 401
    web.reset("alpha")
    assert (await client.get(web.engine_url("alpha"))).status_code == 200  # no key named: any request is served
