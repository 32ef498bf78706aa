"""Getting a stored image to a backend that only takes URLs: [images] storage = inline | public_url | s3.

- inline: no URL at all; only backends that take uploads are asked (the image goes base64/multipart with the
  request).
- public_url: the image is kept under a random 32-character id (192 bits: unguessable) in the image store's
  link table with an expiry, and `webreach serve` answers GET /i/<id> with it until then (frontends/http.py);
  the URL is public_base_url + /i/<id>. The link table lives in the state file, so every process sharing it
  (a CLI `webreach image add` beside a running server) hands out URLs the server can answer.
- s3: the image is put into an S3-compatible bucket under its SHA-256 and handed out as a presigned GET URL
  (boto3, the optional `s3` extra; its calls run on a worker thread), always signed with SigV4 (AWS4-HMAC-SHA256:
  the only scheme every region, MinIO and R2 accept, and the one whose URL carries its own expiry, at most 7 days).
  The objects outlive their URLs: a bucket lifecycle rule deletes them (docs/images.md); a re-put of the same
  image rewrites its object, so the rule's clock restarts with every URL handed out.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any, Protocol

from webreach.config import ImageSettings
from webreach.errors import NotConfiguredError, UnavailableError
from webreach.state.image_store import ImageTokens

EXTENSIONS = {"image/jpeg": "jpg", "image/png": "png", "image/webp": "webp", "image/gif": "gif", "image/bmp": "bmp"}


class Storage(Protocol):
    """Where a URL for an image's bytes comes from (None: this mode has none)."""

    mode: str

    async def url_for(self, data: bytes, mime: str) -> str | None: ...


class InlineStorage:
    mode = "inline"

    async def url_for(self, data: bytes, mime: str) -> str | None:
        return None


class PublicUrlStorage:
    """URLs served by `webreach serve` itself, under the configured public base URL."""

    mode = "public_url"

    def __init__(self, store: ImageTokens, base_url: str, ttl: float) -> None:
        self.store, self.base_url, self.ttl = store, base_url.rstrip("/"), ttl

    async def url_for(self, data: bytes, mime: str) -> str | None:
        return f"{self.base_url}/i/{await self.store.link(data, mime, self.ttl)}"


class S3Storage:
    """Objects in an S3-compatible bucket, handed out as presigned GET URLs."""

    mode = "s3"

    def __init__(self, config: ImageSettings, proxy: str | None = None) -> None:
        s3 = config.s3
        if not s3.bucket:
            raise NotConfiguredError('[images] storage = "s3" needs [images.s3] bucket')
        try:
            import boto3  # type: ignore[import-untyped,unused-ignore]  # the optional `s3` extra
            from botocore.config import Config  # type: ignore[import-untyped,unused-ignore]
        except ImportError:
            raise NotConfiguredError("[images] storage = \"s3\" needs boto3: pip install 'webreach[s3]'") from None
        self.bucket, self.prefix, self.ttl = s3.bucket, s3.prefix, config.url_ttl_seconds
        self._client: Any = boto3.session.Session().client(
            "s3", endpoint_url=s3.endpoint_url, region_name=s3.region,
            aws_access_key_id=s3.access_key_id.get_secret_value() if s3.access_key_id else None,
            aws_secret_access_key=s3.secret_access_key.get_secret_value() if s3.secret_access_key else None,
            config=Config(signature_version="s3v4", proxies=_proxies(proxy)),
        )  # fmt: skip

    async def url_for(self, data: bytes, mime: str) -> str | None:
        key = f"{self.prefix}{hashlib.sha256(data).hexdigest()}.{EXTENSIONS.get(mime, 'img')}"
        try:
            await asyncio.to_thread(self._put, key, data, mime)
        except Exception as exc:  # botocore's errors are many classes: each one means the store refused or failed
            raise UnavailableError(f"the S3 store refused the image ({type(exc).__name__})") from None
        url: str = self._client.generate_presigned_url(
            "get_object", Params={"Bucket": self.bucket, "Key": key}, ExpiresIn=int(self.ttl)
        )
        return url

    def _put(self, key: str, data: bytes, mime: str) -> None:
        self._client.put_object(Bucket=self.bucket, Key=key, Body=data, ContentType=mime)


def _proxies(proxy: str | None) -> dict[str, str] | None:
    """botocore's `proxies` routing every call through `proxy` (None: direct). botocore speaks to HTTP(S) proxies
    only, so a SOCKS5 one is NotConfiguredError saying what to set instead."""
    if proxy is None:
        return None
    if proxy.startswith("socks"):
        raise NotConfiguredError(
            "S3 uploads cannot go through a SOCKS5 proxy (botocore speaks HTTP proxies only)",
            hint='Set [images.s3] proxy to an http:// or https:// proxy, or "direct".',
        )
    return {"http": proxy, "https": proxy}


def open_storage(config: ImageSettings, store: ImageTokens, proxy: str | None = None) -> Storage:
    """The storage the configuration names (NotConfiguredError when it lacks what it needs); an S3 store's calls
    go through `proxy` (the caller's choice: [images.s3] proxy, else [network] proxy)."""
    if config.storage == "public_url":
        if not config.public_base_url:
            raise NotConfiguredError('[images] storage = "public_url" needs [images] public_base_url')
        return PublicUrlStorage(store, config.public_base_url, config.url_ttl_seconds)
    if config.storage == "s3":
        return S3Storage(config, proxy)
    return InlineStorage()
