"""Settings: webreach.toml plus WEBREACH_* environment, read once by a front door and passed down.

Precedence (highest first): explicit arguments, environment (WEBREACH_ENGINES__BRAVE_API__API_KEY=...),
the console's settings in the database (configdb/: engines and auto orders only, applied by the Gateway),
webreach.toml in the working directory (or the file named by WEBREACH_CONFIG), defaults. docs/configuration.md.
API keys are SecretStr so they never show in reprs, logs or JSON dumps.

Persistent state defaults to SQLite ([state] backend = "sqlite"): a circuit breaker that forgets a CAPTCHA when
the process ends lets every new `webreach search` hit the engine that just blocked us, and the CLI is exactly
that, one short process per search. The search cache stays in memory by default for servers (long-lived
processes); the CLI keeps it in a SQLite file too unless [cache] backend says otherwise (`for_the_command_line`),
since each `webreach search` is a new process and would otherwise ask the engines again. See StateSettings.

Front doors load with `Settings.load()`, which turns a problem with the file into InvalidInputError: not valid
TOML (with its line), unreadable, or a WEBREACH_CONFIG naming a file that does not exist (a typo there must not
silently mean "defaults"; ./webreach.toml stays optional, and WEBREACH_CONFIG=/dev/null means "no file").
`Settings()` itself stays lenient about a missing file, for library callers and tests that build it directly.
"""

from __future__ import annotations

import os
import posixpath
import re
import sys
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar
from urllib.parse import urlsplit

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from webreach.defaults import ToolProfileName
from webreach.errors import InvalidInputError

DIRECT = "direct"  # a path's proxy setting that means "no proxy here", over [network] proxy
PROXY_SCHEMES = ("http", "https", "socks5", "socks5h")


M = TypeVar("M", bound=BaseModel)


def check_proxies(model: M, *fields: str) -> M:
    """`model` when each proxy field in `fields` is well formed (check_proxy). Checked on the built model, so a
    refusal's input is the model, whose repr masks secrets (a field validator's would be the password itself)."""
    for name in fields:
        value = getattr(model, name)
        if value is not None and not check_proxy(value.get_secret_value()):
            raise ValueError(
                f"{name}: a proxy must be a URL like http://127.0.0.1:3128, https://proxy.example:443 or "
                'socks5://user:password@127.0.0.1:1080 (scheme, host and port only), or "direct" for none'
            )
    return model


def check_proxy(text: str) -> bool:
    """Whether `text` is a proxy setting: "direct" or scheme://[user:password@]host[:port] with no path."""
    text = text.strip()
    if text == DIRECT:
        return True
    try:
        parts = urlsplit(text)
        host, _ = parts.hostname, parts.port  # a port that is not a number raises here
    except ValueError:
        host = None
    return host is not None and parts.scheme in PROXY_SCHEMES and parts.path in ("", "/") and not parts.query


def effective_proxy(own: SecretStr | None, default: SecretStr | None) -> str | None:
    """The proxy URL one outbound path uses: its own setting, else [network] proxy; "direct" means none."""
    chosen = own if own is not None else default
    text = chosen.get_secret_value().strip() if chosen is not None else ""
    return None if not text or text == DIRECT else text


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


class CacheSettings(BaseModel):
    """Search-result cache."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    backend: Literal["memory", "sqlite", "redis", "none"] = Field(
        "memory", description='"redis" keeps the cache in the Redis of [state] url (which must be configured).'
    )
    path: Path | None = Field(None, description="SQLite file; default under the user's cache directory.")
    ttl_seconds: float = Field(3600, ge=0, description="TTL when no freshness is asked for.")
    max_entries: int = Field(2000, ge=1)


class StateSettings(BaseModel):
    """What must outlive a process: circuit-breaker suspensions now, session refs later (one file, versioned tables).

    backend "sqlite" is the default so one CLI run remembers that an engine showed a CAPTCHA and the next run
    leaves it alone ("never hammer an engine that is blocking us" must hold across processes); an unusable file
    is logged once and the run carries on in memory. "memory" keeps state per Gateway only (tests, sandboxes
    without a writable home). The file is created when there is first something to remember.
    "redis" shares what has a TTL or a counter with every process and machine using the same Redis at `url`
    (state/redis_connection.py; docs/scaling.md lists which stores live there so far).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    backend: Literal["memory", "sqlite", "redis"] = "sqlite"
    path: Path | None = Field(
        None,
        description="SQLite file; default state.sqlite3 in the user data directory (user_directory('data')).",
    )
    url: SecretStr | None = Field(
        None,
        description='Redis (or Valkey) URL for backend = "redis", e.g. redis://redis:6379/0 (rediss:// for TLS); '
        "it may hold a password, so it is kept secret.",
    )
    key_prefix: str = Field(
        "webreach:",
        min_length=1,
        max_length=64,
        description="Prefix of every Redis key (several deployments may share one Redis).",
    )
    timeout: float = Field(
        0.5, gt=0, le=10, description="Seconds one Redis command may take before the store misses (or paces locally)."
    )

    @model_validator(mode="after")
    def _redis_has_url(self) -> StateSettings:
        if self.backend == "redis" and self.url is None:
            raise ValueError('[state] backend = "redis" needs [state] url, e.g. url = "redis://127.0.0.1:6379/0"')
        return self


ReaderChoice = Literal["direct", "browser", "jina"]
APP_NAME = "webreach"
_XDG_VARIABLES = {"data": "XDG_DATA_HOME", "cache": "XDG_CACHE_HOME"}
MIB = 1024 * 1024
CONFIG_ENV = "WEBREACH_CONFIG"
DEFAULT_CONFIG_FILE = "webreach.toml"
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


# the drop-in tool profiles (defaults.py, plain for the CLI's start-up; tests/tools/test_drop_in.py checks they
# agree with tools/drop_in.py PROFILES)
ProfileName = ToolProfileName
# an MCP path a profile may take: / or segments of letters, digits, . _ -; none of the server's own routes
MCP_PATH = re.compile(r"^/(?:[A-Za-z0-9._-]+(?:/[A-Za-z0-9._-]+)*)?$")
RESERVED_PATHS = ("v1", "i", "admin", "console", "docs", "openapi.json", "healthz", "readyz", "metrics", "bench")


def check_mcp_path(path: str) -> str:
    """`path` (without a trailing slash) when an MCP endpoint may take it (ValueError naming what is wrong)."""
    path = path.rstrip("/") or "/" if path.startswith("/") else path
    first = path.strip("/").split("/", 1)[0]
    if not MCP_PATH.fullmatch(path) or first in RESERVED_PATHS or path == "/mcp" or {".", ".."} & set(path.split("/")):
        raise ValueError(
            f"{path!r} cannot serve MCP: use / or a path such as /mcp/<name> (letters, digits, . _ -), none of "
            f"/mcp itself or the server's own {', '.join('/' + name for name in RESERVED_PATHS)}"
        )
    return path


class ToolSettings(BaseModel):
    """The agent tools: which are exposed, and how long numbered refs live."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: list[str] | None = Field(
        None,
        description="Tools to list (default: web_search, web_search_multi, web_fetch; naming an image tool lists "
        "it too).",
    )
    alias_set: Literal["visual-agent"] | None = Field(
        None,
        description="Also expose another system's tool names and shapes, mapped onto these tools (tools/aliases.py): "
        "visual-agent = image_search_by_text, reverse_image_search, crop_images_by_token, web_visit.",
    )
    profile: ProfileName | None = Field(
        None,
        description="images: the web tools plus image_search, crop_images and reverse_image_search. Or serve "
        "another stack's tool contract instead of these tools (tools/drop_in.py): visual-agent, "
        "serp-chat (serp_search, serp_search_multi, browse_url), numeric-index (web_search, web_fetch(index)), "
        "rollout-gateway (文搜文, web_visit, image_search_by_text, reverse_image_search, crop_images_by_token), "
        "credits-server (web_search -> 5 results as JSON, web_fetch -> 2,000 characters of text), desktop-agent "
        "(web_search(query, count, freshness) on the default provider); per agent as well (webreach agents set "
        "NAME --profile ...).",
    )
    mcp_paths: dict[str, ProfileName] | None = Field(
        None,
        description="MCP endpoints serving a profile beside /mcp, path -> profile (frontends/_mcp_paths.py), e.g. "
        '{"/" = "rollout-gateway"} for a client given the bare server URL. None: every profile at /mcp/<profile> '
        "(none when [tools] enabled narrows the tools); {}: none.",
    )
    session_ttl_seconds: float = Field(86_400, gt=0, description="How long a ref stays resolvable.")

    @field_validator("mcp_paths")
    @classmethod
    def _mcp_paths(cls, paths: dict[str, ProfileName] | None) -> dict[str, ProfileName] | None:
        return None if paths is None else {check_mcp_path(path): profile for path, profile in paths.items()}

    max_refs_per_session: int = Field(1000, ge=1, description="Oldest refs are evicted past this.")


def _default_prices() -> dict[str, int]:
    return {
        "web_search": 2, "web_search_multi": 2, "web_fetch": 1, "image_search": 2, "crop_images": 1,
        "reverse_image_search": 3, "image_upload": 1,
    }  # fmt: skip


class AccountsSettings(BaseModel):
    """Agents, API keys, credits and quotas (accounts/; docs/decisions.md "Agents, credits and quotas").

    Off by default: a local loopback server answers anyone on the machine, as before. Once enabled every HTTP
    tool call needs `Authorization: Bearer <key>`, and stdio/CLI calls act as `agent` (or --agent).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    enabled: bool = Field(False, description="Meter and authenticate tool calls (env WEBREACH_ACCOUNTS__ENABLED).")
    database: str | None = Field(
        None,
        description="Ledger database: postgresql://... for several replicas, sqlite:///path, or a file path; "
        "default accounts.sqlite3 in the user data directory.",
    )
    agent: str | None = Field(None, description="The agent stdio and CLI calls act as (or --agent NAME).")
    prices: dict[str, int] = Field(default_factory=_default_prices, description="Credits per logical tool call.")
    engine_surcharge: dict[str, int] = Field(
        default_factory=dict,
        description="Extra credits when a web_search or image_search names this engine (paid APIs).",
    )
    per_hour: int = Field(10, ge=0, description="Calls per hour for a new agent (sliding window).")
    per_day: int | None = Field(None, ge=0, description="Calls per day for a new agent (none: unlimited).")
    credits: int = Field(0, ge=0, description="Credits a new agent starts with.")
    lease_seconds: float = Field(
        120.0,
        gt=0,
        description="A reservation older than this whose process died is released by recovery; must outlast the "
        "longest call (the longest request deadline plus three database_timeout), checked at start-up.",
    )
    database_timeout: float = Field(
        5.0,
        gt=0,
        le=60,
        description="The longest one ledger transaction waits for the database (PostgreSQL reconnecting, a SQLite "
        "lock) before the call answers accounting_unavailable.",
    )
    key_cache_seconds: float = Field(
        2.0,
        ge=0,
        le=60,
        description="How long a server remembers an agent it authenticated (its key, status and options): a key "
        "rotated or an agent disabled on another replica is refused within this time (0: read the ledger on every "
        "call).",
    )

    def check_lease(self, longest_call: float) -> None:
        """Refuse a lease a served call can outlive: recovery would release it while it runs, and the call would
        be served for nothing (a ValueError pydantic reports as a settings error)."""
        needed = longest_call + 3 * self.database_timeout  # a reservation, and a settle with its one retry
        if self.lease_seconds <= needed:
            raise ValueError(
                f"[accounts] lease_seconds = {self.lease_seconds:g} must be longer than the longest call: "
                f"{longest_call:g} s (the longest request deadline) + 3 x database_timeout = {needed:g} s; "
                f"raise lease_seconds above {needed:g} or lower the deadlines"
            )


LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


class ServerSettings(BaseModel):
    """Where `webreach serve` listens and which Host/Origin values it answers."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    host: str = Field("127.0.0.1", description="Address to listen on.")
    port: int = Field(9090, ge=0, le=65535, description="Port to listen on (0: any free port).")
    allowed_hosts: list[str] | None = Field(
        None,
        description="Host header values to answer ('name:*' for any port, ['*'] for any); default: the loopback "
        "names with the port, plus the listen address when it is a name or a specific address.",
    )
    allowed_origins: list[str] | None = Field(
        None, description="Origin header values to accept ('*' for any); default: http:// + each allowed host."
    )
    max_body_bytes: int = Field(1_000_000, ge=1024, description="Largest REST request body.")
    admin_token: SecretStr | None = Field(
        None,
        description="Bearer token for the admin endpoints (/v1/admin/...) and the console's login; at least 32 "
        "printable ASCII characters without spaces, or `webreach serve` refuses to start (generate one with "
        'python -c "import secrets; print(secrets.token_urlsafe(32))"). Without one they answer loopback clients '
        "only (env WEBREACH_SERVER__ADMIN_TOKEN).",
    )
    secure_cookies: Literal["auto"] | bool = Field(
        "auto",
        description="The console's cookies carry the Secure flag: true, false, or auto (when the request came over "
        "HTTPS, as a proxy in trusted_proxies says with X-Forwarded-Proto).",
    )
    trusted_proxies: list[str] = Field(
        ["127.0.0.1", "::1"],
        description="Addresses (or CIDR networks) of reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are "
        "believed: the client address (admin throttling, logs, the loopback rule) and the scheme (Secure cookies). "
        "Never '*' on a server clients reach directly.",
    )
    http_parser: Literal["auto", "httptools", "h11"] = Field(
        "auto",
        description="HTTP/1.1 parser: auto is httptools when installed (the server extra installs it), else h11.",
    )
    event_loop: Literal["asyncio", "uvloop"] = Field(
        "asyncio",
        description="asyncio (default: the browser reader drives Chromium through subprocess pipes, which is what "
        "it is tested on) or uvloop (install it first; serves plain requests faster).",
    )

    def hosts(self) -> list[str]:
        """The Host allow-list in effect."""
        if self.allowed_hosts is not None:
            return list(self.allowed_hosts)
        port = "*" if self.port == 0 else str(self.port)
        names = list(LOOPBACK_NAMES)
        listen = f"[{self.host}]" if ":" in self.host else self.host
        if listen not in names and self.host not in ("0.0.0.0", "::", ""):
            names.append(listen)
        hosts = [f"{name}:{port}" for name in names]
        return hosts + names if self.port == 80 else hosts

    def origins(self) -> list[str]:
        """The Origin allow-list in effect."""
        if self.allowed_origins is not None:
            return list(self.allowed_origins)
        hosts = self.hosts()
        return ["*"] if "*" in hosts else [f"http://{host}" for host in hosts]


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


class Settings(BaseSettings):
    """Everything configurable, loaded once."""

    model_config = SettingsConfigDict(
        env_prefix="WEBREACH_",
        env_nested_delimiter="__",
        extra="forbid",
        frozen=True,
        hide_input_in_errors=True,  # proxy URLs and keys hold passwords: errors name the field, never the value
    )

    engines: dict[str, EngineSettings] = Field(default_factory=dict)
    auto_order: list[str] | None = Field(None, description="Engine order for auto mode (any language).")
    auto_order_zh: list[str] | None = Field(None, description="Engine order for Chinese queries.")
    multi_engines: list[str] | None = Field(None, description="Default engine set for multi mode.")
    hedge_delay: float = Field(2.5, ge=0, description="Seconds before auto starts the next engine too.")
    connect_timeout: float = Field(5.0, gt=0)
    engine_timeout: float = Field(15.0, gt=0)
    request_deadline: float = Field(30.0, gt=0, description="Whole-search deadline, every engine included.")
    retries: int = Field(1, ge=0, le=5, description="Extra tries of a retryable engine error.")
    max_body_bytes: int = Field(5_000_000, ge=1024, description="Cap on one engine response body.")
    fake_web: str | None = Field(None, description="Point every engine at this fake-web URL (offline runs).")
    cache: CacheSettings = Field(default_factory=CacheSettings)
    state: StateSettings = Field(default_factory=StateSettings)
    tools: ToolSettings = Field(default_factory=ToolSettings)
    read: ReadSettings = Field(default_factory=ReadSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)
    accounts: AccountsSettings = Field(default_factory=AccountsSettings)
    images: ImageSettings = Field(default_factory=ImageSettings)
    network: NetworkSettings = Field(default_factory=NetworkSettings)
    secret_key: SecretStr | None = Field(
        None,
        description="Fernet key encrypting the secrets the console stores in the database (env "
        "WEBREACH_SECRET_KEY); default: the key file.",
    )
    secret_key_file: Path | None = Field(
        None,
        description="File holding that key (env WEBREACH_SECRET_KEY_FILE); default secret.key in the user data "
        "directory, created when the first secret is stored.",
    )
    user_agent: str = (
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36"
    )

    @model_validator(mode="after")
    def _redis_cache_has_url(self) -> Settings:
        if self.cache.backend == "redis" and self.state.url is None:
            raise ValueError('[cache] backend = "redis" uses the Redis of [state] url, which is not set')
        return self

    @model_validator(mode="after")
    def _one_default_provider(self) -> Settings:
        defaults = sorted(name for name, engine in self.engines.items() if engine.default)
        if len(defaults) > 1:
            raise ValueError(f"only one engine may be the default provider; {', '.join(defaults)} all say default")
        return self

    @model_validator(mode="after")
    def _lease_outlasts_calls(self) -> Settings:
        self.accounts.check_lease(self.longest_call())
        return self

    def longest_call(self) -> float:
        """The longest deadline one tool call can run for: a whole search, or a page read by any reader."""
        read = self.read
        return max(self.request_deadline, read.timeout, read.jina_timeout, read.browser_timeout)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml_path = config_file()
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls, toml_file=toml_path))

    @classmethod
    def load(cls) -> Settings:
        """The settings a front door runs with: a problem with the file is InvalidInputError saying where.

        Values out of range still raise pydantic's ValidationError (the door describes it with the models'
        helper, which this bottom layer cannot import).
        """
        path = config_file()
        if os.environ.get(CONFIG_ENV) and not path.exists():
            raise InvalidInputError(
                f"config file not found: {path} (named by {CONFIG_ENV})",
                hint=f"Fix the path in {CONFIG_ENV}, or unset it to use ./{DEFAULT_CONFIG_FILE} when present.",
            )
        if path.is_dir():  # pydantic-settings would skip it without a word
            raise InvalidInputError(f"config file {path} is a directory", hint="Name a TOML file.")
        try:
            return cls()
        except tomllib.TOMLDecodeError as exc:  # its message ends "(at line L, column C)"
            raise InvalidInputError(f"config file {path} is not valid TOML: {exc}", hint="Fix its syntax.") from None
        except OSError as exc:
            raise InvalidInputError(
                f"cannot read config file {path}: {exc.strerror or exc}", hint="Check the path and its permissions."
            ) from None

    def for_the_command_line(self) -> Settings:
        """These settings for one short CLI process: unless [cache] backend was chosen, the search cache is the
        SQLite file (persistent, like the breakers' state) when the state is, so a repeated `webreach search`
        answers from it instead of asking the engines again (fewer CAPTCHAs). A server keeps its memory cache."""
        if "backend" in self.cache.model_fields_set or self.state.backend != "sqlite":
            return self
        return self.model_copy(update={"cache": self.cache.model_copy(update={"backend": "sqlite"})})

    def unknown_engines(self, valid: Iterable[str]) -> list[str]:
        """Names configured under [engines] that are not in `valid` (the caller passes the registry's names)."""
        return sorted(set(self.engines) - set(valid))

    def check_engines(self, valid: Sequence[str]) -> None:
        """InvalidInputError when [engines] configures an engine not in `valid` (the registry's web engine names):
        a typo that would otherwise be ignored without a word. Every door checks this before it serves."""
        unknown = self.unknown_engines(valid)
        if unknown:
            raise InvalidInputError(
                f"configuration is invalid: unknown engine{'s' if len(unknown) > 1 else ''} under [engines]: "
                f"{', '.join(unknown)}",
                hint=f"Valid engines: {', '.join(valid)}. Fix webreach.toml or the WEBREACH_ENGINES__* environment.",
            )

    def engine(self, name: str) -> EngineSettings:
        """Settings for one engine, defaults when it is not mentioned."""
        return self.engines.get(name) or EngineSettings()


def layer_values(settings_cls: type[BaseSettings] = Settings) -> tuple[dict[str, Any], dict[str, Any]]:
    """What the environment and the TOML file each set, as raw nested dicts (environment first): the database
    layer (configdb/) puts itself between them and shows per field which source set it."""
    env = EnvSettingsSource(settings_cls, env_prefix="WEBREACH_", env_nested_delimiter="__")()
    try:
        toml = TomlConfigSettingsSource(settings_cls, toml_file=config_file())()
    except (OSError, tomllib.TOMLDecodeError):  # Settings.load() already said what is wrong with the file
        toml = {}
    return env, toml


def config_file(environ: Mapping[str, str] | None = None) -> Path:
    """The TOML file settings are read from: $WEBREACH_CONFIG when set, else ./webreach.toml (optional)."""
    env = os.environ if environ is None else environ
    return Path(env.get(CONFIG_ENV) or DEFAULT_CONFIG_FILE)


def user_directory(kind: Literal["data", "cache"], environ: Mapping[str, str] | None = None) -> Path:
    """webreach's per-user data or cache directory (nothing is created here).

    An absolute $XDG_DATA_HOME / $XDG_CACHE_HOME in `environ` (default os.environ) wins outside Windows, as
    platformdirs has it; relative values are ignored, as the XDG spec says. Otherwise platformdirs names the
    system's place: ~/.local/share/webreach and ~/.cache/webreach on Linux, ~/Library/Application Support/webreach
    and ~/Library/Caches/webreach on macOS, %LOCALAPPDATA%\\webreach (and its Cache folder) on Windows. The XDG
    check is made here rather than left to platformdirs because platformdirs only reads os.environ, and `environ`
    is the seam tests use.
    """
    env = os.environ if environ is None else environ
    value = env.get(_XDG_VARIABLES[kind], "")
    if sys.platform != "win32" and posixpath.isabs(value):
        return Path(value) / APP_NAME
    dirs = platformdirs.PlatformDirs(APP_NAME, appauthor=False)
    return dirs.user_data_path if kind == "data" else dirs.user_cache_path
