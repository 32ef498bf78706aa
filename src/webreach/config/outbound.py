"""The settings of what leaves the machine: engines ([engines.<name>]), page reading ([read]), the outbound proxy
([network]) and images ([images], its S3 store). API keys and proxies are SecretStr: never in reprs, logs or dumps."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

from webreach.config.proxies import check_proxies


class EngineSettings(BaseModel):
    """Per-engine configuration; every field is optional and falls back to the engine's defaults."""

    model_config = ConfigDict(frozen=True, extra="forbid", hide_input_in_errors=True)  # proxies hold passwords

    enabled: bool = True
    api_key: SecretStr | None = None
    base_url: str | None = Field(None, description="Override the engine's origin (mirrors, the fake web).")
    rate_per_minute: float | None = Field(None, gt=0, description="Token-bucket refill rate.")
    timeout: float | None = Field(None, gt=0, description="Seconds for one engine request.")
    proxy: SecretStr | None = Field(
        None, description='Proxy for this engine\'s traffic, over [network] proxy ("direct": none for this engine).'
    )
    options: dict[str, str] = Field(default_factory=dict, description="Engine-specific options.")
    display_name: str | None = Field(
        None, max_length=64, description="The provider's name as users see it (the desktop-agent profile's output)."
    )
    default: bool = Field(
        False, description="The default provider (the desktop-agent profile searches it); at most one engine."
    )
    unreadable: str | None = Field(
        None,
        description="Set by the console's database layer (configdb/), not by hand: why a secret stored there cannot "
        "be read (the secret key was lost or changed); the engine is not configured until the secret is entered "
        "again.",
    )

    def key(self) -> str | None:
        """The API key as plain text, for the one place that puts it on the wire."""
        return self.api_key.get_secret_value() if self.api_key else None

    @model_validator(mode="after")
    def _proxy_form(self) -> EngineSettings:
        return check_proxies(self, "proxy")


def options_text(options: Mapping[str, str]) -> str:
    """Engine options as the console's form shows and takes them: "engine=baidu, other=value"."""
    return ", ".join(f"{key}={value}" for key, value in sorted(options.items()))


ReaderChoice = Literal["direct", "browser", "jina"]
MIB = 1024 * 1024
JINA_READER_URL = "https://r.jina.ai"
JINA_FREE_RATE, JINA_KEYED_RATE = 20.0, 200.0  # r.jina.ai's requests a minute without a key and with one


def _default_order() -> list[ReaderChoice]:
    return ["direct", "browser", "jina"]


class ReadSettings(BaseModel):
    """How pages are read (environment WEBREACH_READ__<FIELD>): guard allowances, budgets, readers, cache."""

    model_config = ConfigDict(frozen=True, extra="forbid", hide_input_in_errors=True)  # proxies hold passwords

    allow_cidrs: list[str] = Field(
        default_factory=list, description="Private networks the reader may reach (metadata addresses never)."
    )
    timeout: float = Field(20.0, gt=0, description="Total deadline of one fetch, every redirect and byte included.")
    connect_timeout: float = Field(5.0, gt=0, description="Deadline of one connect.")
    read_timeout: float = Field(10.0, gt=0, description="Longest wait for one read from the socket.")
    max_raw_bytes: int = Field(10 * MIB, ge=1024, description="Cap on the body as sent (compressed).")
    max_decoded_bytes: int = Field(20 * MIB, ge=1024, description="Cap on the body after gzip/deflate decoding.")
    max_redirects: int = Field(10, ge=0, le=20)
    max_interstitials: int = Field(3, ge=0, le=10, description="Meta-refresh / script / Baidu-link pages followed.")
    robots: bool = Field(False, description="Honour robots.txt (RFC 9309) before reading.")
    robots_timeout: float = Field(5.0, gt=0)
    robots_token: str = Field("webreach", description="The product token robots.txt groups are matched against.")
    reader_order: list[ReaderChoice] = Field(default_factory=_default_order, description="reader='auto' tries these.")
    jina_base_url: str = Field(JINA_READER_URL, description="The Jina reader's base URL (mirrors, the fake web).")
    jina_api_key: SecretStr | None = None
    jina_timeout: float = Field(30.0, gt=0)
    proxy: SecretStr | None = Field(
        None,
        description="Proxy for the reader's own fetches (direct and browser readers, robots.txt, image fetches), "
        'over [network] proxy ("direct": none).',
    )
    jina_proxy: SecretStr | None = Field(
        None, description='Proxy for the Jina reader\'s calls to Jina, over [network] proxy ("direct": none).'
    )
    jina_rate_per_minute: float | None = Field(
        None,
        gt=0,
        description="Jina reader requests a minute, for all processes on one [state] store (20 keyless, 200 keyed).",
    )
    browser_executable: str | None = Field(None, description="Chromium to drive (default /usr/bin/chromium).")
    browser_timeout: float = Field(30.0, gt=0)
    extract_workers: int = Field(
        2, ge=1, le=64, description="PDFs and bodies over 4 MiB extracted at once, each in a killable child process."
    )
    extract_memory: int = Field(1024 * MIB, ge=64 * MIB, description="Memory one such child may add, in bytes.")
    extract_pool: int = Field(
        2, ge=1, le=64, description="Other pages extracted at once, each in one of this many reusable child processes."
    )
    cache_ttl: float = Field(900.0, ge=0, description="Seconds an extracted page is kept (0: no cache).")
    cache_max_entries: int = Field(128, ge=1)

    @model_validator(mode="after")
    def _proxy_form(self) -> ReadSettings:
        return check_proxies(self, "proxy", "jina_proxy")


class NetworkSettings(BaseModel):
    """How webreach leaves the machine: one outbound proxy for every path (environment WEBREACH_NETWORK__PROXY)."""

    model_config = ConfigDict(frozen=True, extra="forbid", hide_input_in_errors=True)  # proxies hold passwords

    proxy: SecretStr | None = Field(
        None,
        description="Proxy for everything that leaves the machine (engines, readers, robots.txt, images, reverse "
        "image search): http://, https:// or socks5://, with user:password@ when it needs them. [engines.<name>] "
        'proxy, [read] proxy and [read] jina_proxy override it per path; "direct" there means no proxy.',
    )

    @model_validator(mode="after")
    def _proxy_form(self) -> NetworkSettings:
        return check_proxies(self, "proxy")


class S3Settings(BaseModel):
    """An S3-compatible bucket for [images] storage = "s3" (AWS, MinIO, R2, Ceph ...): presigned GET URLs."""

    model_config = ConfigDict(frozen=True, extra="forbid", hide_input_in_errors=True)

    bucket: str | None = Field(None, description="Bucket the images are put in.")
    endpoint_url: str | None = Field(None, description="The store's endpoint (default: AWS for the region).")
    region: str = Field("us-east-1", description="Region to sign for.")
    access_key_id: SecretStr | None = None
    secret_access_key: SecretStr | None = None
    prefix: str = Field("webreach/images/", description="Key prefix of the stored objects.")
    proxy: SecretStr | None = Field(
        None, description='Proxy for the store\'s calls, over [network] proxy ("direct": none; http(s) only).'
    )

    @model_validator(mode="after")
    def _proxy_form(self) -> S3Settings:
        return check_proxies(self, "proxy")


class ImageSettings(BaseModel):
    """Images (issue 14): input limits, crop limits, output size, the per-session store and image-search engines."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_input_bytes: int = Field(20_000_000, ge=1024, description="Largest image accepted (bytes).")
    max_input_pixels: int = Field(40_000_000, ge=1, description="Largest image decoded (pixels; bombs end here).")
    max_input_side: int = Field(16_384, ge=1, description="Longest side of an image decoded (pixels).")
    max_output_side: int = Field(8_000, ge=16, description="Crops are downscaled to this longest side.")
    max_output_bytes: int = Field(5_000_000, ge=10_000, description="Crops are re-encoded to stay under this.")
    min_crop_side: int = Field(8, ge=1, description="Smallest crop side (pixels, after clamping).")
    max_crop_aspect: float = Field(50.0, ge=1, description="Most elongated crop allowed (long side / short side).")
    store_max_bytes: int = Field(100_000_000, ge=1024, description="Image bytes kept per session.")
    store_max_images: int = Field(500, ge=1, description="Images kept per session.")
    workers: int = Field(2, ge=1, le=64, description="Threads decoding, cropping and encoding images (off the loop).")
    decoded_cache_bytes: int = Field(
        256_000_000, ge=0, description="Decoded pixels kept for reuse across crops (bytes, least recently used out)."
    )
    engines: list[str] | None = Field(
        None,
        description="Image-search engines in auto's order (bing, duckduckgo, brave_api, ...); default: the usable "
        "ones, keyed APIs first, Chinese engines first for Chinese queries.",
    )
    multi_engines: list[str] | None = Field(
        None, description="Image engines multi fans out to (default: the first three of auto's with distinct indexes)."
    )
    # reverse image search and getting stored images to backends (issue 14, deliverables 3-4)
    reverse_backends: list[str] = Field(
        ["serpapi_lens", "serpapi_yandex", "tineye", "bing_visual", "yandex", "searxng_tineye"],
        description="Reverse-image backends, in auto's order.",
    )
    reverse_settings: dict[str, EngineSettings] = Field(
        default_factory=dict,
        description="Per reverse backend: key, base URL, rate, timeout (over its web engine's, where it shares one).",
    )
    upload_dir: Path | None = Field(
        None,
        description="The directory the rollout gateway's hidden upload_file_to_cloud(file_path) may read images from "
        "(files below it only, no symbolic links followed; None: the tool refuses every path).",
    )
    upload_max_side: int = Field(2048, ge=64, description="Images are downscaled to this longest side before upload.")
    upload_max_bytes: int = Field(4_000_000, ge=10_000, description="Images are re-encoded to stay under this.")
    storage: Literal["inline", "public_url", "s3"] = Field(
        "inline",
        description="How backends that only take URLs get a stored image: inline (none: upload-only backends), "
        "public_url (served by `webreach serve` under public_base_url) or s3 (presigned URLs).",
    )
    public_base_url: str | None = Field(
        None, description="The base URL the world reaches `webreach serve` at (storage = public_url)."
    )
    url_ttl_seconds: float = Field(900, gt=0, le=7 * 86_400, description="How long a public or presigned URL lives.")
    s3: S3Settings = Field(default_factory=S3Settings)
