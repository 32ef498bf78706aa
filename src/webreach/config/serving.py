"""The settings of what serves and remembers: the search cache ([cache]), state that outlives a process ([state]),
the agent tools ([tools]), agents and credits ([accounts]) and where `webreach serve` listens ([server])."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from webreach.defaults import ToolProfileName


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
