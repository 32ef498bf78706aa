"""The Redis backend's start-up: [state] settings, a typed error when Redis cannot be used, the URL kept secret."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys

import pytest
from pydantic import ValidationError

from webreach import Gateway
from webreach.config import Settings, StateSettings
from webreach.errors import StateBackendError
from webreach.state.redis_connection import open_redis


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # nothing listens once the socket is closed


def test_redis_backend_needs_a_url() -> None:
    with pytest.raises(ValidationError, match=r"needs \[state\] url"):
        StateSettings(backend="redis")


def test_redis_cache_needs_the_state_url() -> None:
    with pytest.raises(ValidationError, match=r"\[state\] url"):
        Settings(cache={"backend": "redis"})  # type: ignore[arg-type]


def test_unreachable_redis_is_a_typed_start_up_error_without_the_password() -> None:
    url = f"redis://:hunter2secret@127.0.0.1:{_closed_port()}/0"
    with pytest.raises(StateBackendError) as raised:
        open_redis(StateSettings(backend="redis", url=url, timeout=0.5))  # type: ignore[arg-type]
    error = raised.value
    assert error.code == "state_backend_unavailable" and error.retryable
    assert "hunter2secret" not in str(error) and "hunter2secret" not in repr(error.to_dict())
    assert "127.0.0.1" in str(error)


def test_missing_extra_is_a_typed_start_up_error() -> None:
    # a fresh interpreter in which `import redis` fails, as where the extra is not installed
    script = (
        "import sys; sys.modules['redis'] = None\n"
        "from webreach.config import StateSettings\n"
        "from webreach.errors import StateBackendError\n"
        "from webreach.state.redis_connection import open_redis\n"
        "try:\n"
        "    open_redis(StateSettings(backend='redis', url='redis://127.0.0.1:1/0'))\n"
        "except StateBackendError as e:\n"
        "    print(e.code, '|', e.hint)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.startswith("state_backend_unavailable |")
    assert "webreach[redis]" in done.stdout


@pytest.mark.redis
def test_open_redis_shares_one_client_with_prefixed_keys(redis_url: str) -> None:
    connection = open_redis(StateSettings(backend="redis", url=redis_url, key_prefix="t1:"))  # type: ignore[arg-type]

    async def roundtrip() -> bytes | None:
        await connection.client.set(connection.key("probe", "a"), b"1", ex=10)
        value = await connection.client.get("t1:probe:a")
        await connection.aclose()
        return value

    assert asyncio.run(roundtrip()) == b"1"


async def test_a_gateway_with_an_unreachable_redis_refuses_to_start_typed() -> None:
    state = StateSettings(backend="redis", url=f"redis://127.0.0.1:{_closed_port()}/0", timeout=0.5)  # type: ignore[arg-type]
    with pytest.raises(StateBackendError) as raised:
        Gateway.from_settings(Settings(state=state))
    assert raised.value.code == "state_backend_unavailable"
    assert "webreach[redis]" in str(raised.value.hint) or "[state] url" in str(raised.value.hint)
