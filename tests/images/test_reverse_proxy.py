"""Reverse backends send over the search service's engine clients: a backend's `proxy` is honoured as an engine's
is (a real HTTP proxy on loopback sees the backend's request in absolute form and answers it)."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from PIL import Image

from webreach import Gateway, Settings
from webreach.testing.recordings import RECORDINGS_DIR, load_recording

pytestmark = pytest.mark.network


@dataclass
class Proxy:
    """A forward proxy on 127.0.0.1 that answers every request itself with TinEye's recording."""

    url: str = ""
    seen: list[str] = field(default_factory=list)


async def _serve(proxy: Proxy, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    proxy.seen.append(lines[0])
    length = next((int(line.split(":", 1)[1]) for line in lines if line.lower().startswith("content-length:")), 0)
    await reader.readexactly(length)
    body = load_recording(RECORDINGS_DIR / "reverse_tineye" / "results.http").body
    writer.write(
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n"
        + f"content-length: {len(body)}\r\n\r\n".encode()
        + body
    )
    await writer.drain()
    writer.close()


@pytest.fixture
async def proxy() -> AsyncIterator[Proxy]:
    found = Proxy()
    server = await asyncio.start_server(lambda r, w: _serve(found, r, w), "127.0.0.1", 0)
    found.url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    async with server:
        yield found


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (90, 60), (200, 40, 40)).save(out, format="PNG")
    return out.getvalue()


async def test_a_reverse_backend_goes_through_its_configured_proxy(proxy: Proxy) -> None:
    tineye = {"base_url": "http://tineye.example", "proxy": proxy.url, "rate_per_minute": 600}
    images = {"reverse_backends": ["tineye"], "reverse_settings": {"tineye": tineye}}
    async with Gateway.from_settings(Settings(state={"backend": "memory"}, images=images)) as gateway:
        token = (await gateway.images.upload("s", png())).token
        found = await gateway.images.reverse_search("s", token, limit=5)
    assert found.backend == "tineye" and found.results
    assert len(proxy.seen) == 1 and proxy.seen[0].startswith("POST http://tineye.example/api/v1/result_json/")
