"""The HTTP-log key filter: it masks keys in rendered records, and one filter per logger serves every gateway."""

from __future__ import annotations

import logging

import httpx
import pytest

from secret_keys import GATEWAY_KEY, TEST_KEY
from webreach import EngineSettings, Gateway, Settings
from webreach.config import StateSettings
from webreach.search.log_redaction import HttpLogRedaction, SecretLogFilter


def httpx_record(message: str, *args: object, name: str = "httpx") -> logging.LogRecord:
    return logging.LogRecord(name, logging.INFO, __file__, 1, message, args, None)


def secret_filters(logger: str) -> list[SecretLogFilter]:
    return [f for f in logging.getLogger(logger).filters if isinstance(f, SecretLogFilter)]


def test_secret_log_filter_masks_keys_in_rendered_records_as_written_and_encoded() -> None:
    odd = "sk+odd/key=1"
    keep = SecretLogFilter()
    keep.register("owner", [TEST_KEY, odd, None, ""])
    url = httpx.URL("https://serpapi.com/search.json", params={"q": "x", "api_key": TEST_KEY, "k": odd})
    record = httpx_record('HTTP Request: %s %s "%s %d %s"', "GET", url, "HTTP/1.1", 200, "OK")
    assert keep.filter(record) is True  # it never drops a record
    message = record.getMessage()
    assert message == 'HTTP Request: GET https://serpapi.com/search.json?q=x&api_key=***&k=*** "HTTP/1.1 200 OK"'
    assert "sk%2Bodd%2Fkey%3D1" in str(url)  # what the odd key looked like on the wire: masked above
    untouched = httpx_record("connect_tcp.started host=%r", "serpapi.com")
    keep.filter(untouched)
    assert untouched.args == ("serpapi.com",)  # records without a key keep their arguments


def test_a_redaction_installs_on_the_http_loggers_and_comes_off_again(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    redaction = HttpLogRedaction([TEST_KEY])
    try:
        for name in ("httpx", "httpcore.http11", "httpcore.connection"):
            logging.getLogger(name).info("GET https://api.test/?api_key=%s", TEST_KEY)
    finally:
        redaction.close()
    redaction.close()  # closing twice is harmless
    logging.getLogger("httpx").info("after removal the key is %s", "plain")
    assert TEST_KEY not in caplog.text
    assert caplog.text.count("api_key=***") == 3
    assert not secret_filters("httpx")


def test_a_redaction_without_secrets_installs_nothing() -> None:
    before = list(logging.getLogger("httpx").filters)
    redaction = HttpLogRedaction([None, ""])
    assert logging.getLogger("httpx").filters == before
    redaction.close()


def keyed(key: str) -> Settings:
    engine = EngineSettings(api_key=key)  # type: ignore[arg-type]
    return Settings(state=StateSettings(backend="memory"), engines={"serpapi": engine})


async def test_two_gateways_share_one_filter_per_logger_and_each_close_takes_back_only_its_key(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    first = Gateway.from_settings(keyed(TEST_KEY))
    second = Gateway.from_settings(keyed(GATEWAY_KEY))
    try:
        for name in ("httpx", "httpcore", "httpcore.http11"):
            assert len(secret_filters(name)) == 1, name
        (shared,) = secret_filters("httpx")
        assert secret_filters("httpcore.http11") == [shared]
        logging.getLogger("httpx").info("GET /?a=%s&b=%s", TEST_KEY, GATEWAY_KEY)
        assert "GET /?a=***&b=***" in caplog.text
        await first.aclose()
        assert secret_filters("httpx") == [shared]
        logging.getLogger("httpcore.http11").info("still masked: %s", GATEWAY_KEY)
        assert "still masked: ***" in caplog.text
    finally:
        await first.aclose()
        await second.aclose()
    assert not secret_filters("httpx") and not secret_filters("httpcore.http11")
    assert TEST_KEY not in caplog.text and GATEWAY_KEY not in caplog.text
