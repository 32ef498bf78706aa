"""Settings: webreach.toml plus WEBREACH_* environment, read once by a front door and passed down.

Precedence (highest first): explicit arguments, environment (WEBREACH_ENGINES__BRAVE_API__API_KEY=...),
the console's settings in the database (configdb/: engines, auto orders, the cache and [network] proxy, applied
by the Gateway), webreach.toml in the working directory (or the file named by WEBREACH_CONFIG), defaults.
docs/configuration.md. API keys are SecretStr so they never show in reprs, logs or JSON dumps.

Persistent state defaults to SQLite ([state] backend = "sqlite"): a circuit breaker that forgets a CAPTCHA when
the process ends lets every new `webreach search` hit the engine that just blocked us, and the CLI is exactly
that, one short process per search. The search cache stays in memory by default for servers (long-lived
processes); the CLI keeps it in a SQLite file too unless [cache] backend says otherwise (`for_the_command_line`),
since each `webreach search` is a new process and would otherwise ask the engines again. See StateSettings.

Front doors load with `Settings.load()`, which turns a problem with the file into InvalidInputError: not valid
TOML (with its line), unreadable, or a WEBREACH_CONFIG naming a file that does not exist (a typo there must not
silently mean "defaults"; ./webreach.toml stays optional, and WEBREACH_CONFIG=/dev/null means "no file").
`Settings()` itself stays lenient about a missing file, for library callers and tests that build it directly.

The package, by job (import from here; the modules are its layout, not its API):
    proxies.py    the proxy form every section shares, which proxy a path uses, how one is shown
    outbound.py   [engines.<name>], [read], [network], [images] and its S3 store: what leaves the machine
    serving.py    [cache], [state], [tools], [accounts], [server]: what serves and remembers
    paths.py      the TOML file's path and the per-user data and cache directories
    settings.py   Settings: the sections together, their sources, the cross-section rules and load()
"""

from __future__ import annotations

from webreach.config.outbound import (
    JINA_FREE_RATE,
    JINA_KEYED_RATE,
    JINA_READER_URL,
    MIB,
    EngineSettings,
    ImageSettings,
    NetworkSettings,
    ReaderChoice,
    ReadSettings,
    S3Settings,
    options_text,
)
from webreach.config.paths import APP_NAME, CONFIG_ENV, DEFAULT_CONFIG_FILE, config_file, user_directory
from webreach.config.proxies import (
    DIRECT,
    PROXY_SCHEMES,
    check_proxies,
    check_proxy,
    effective_proxy,
    shown_proxy,
)
from webreach.config.serving import (
    LOOPBACK_NAMES,
    MCP_PATH,
    RESERVED_PATHS,
    AccountsSettings,
    CacheSettings,
    ProfileName,
    ServerSettings,
    StateSettings,
    ToolSettings,
    check_mcp_path,
)
from webreach.config.settings import Settings, layer_values

__all__ = [
    "APP_NAME",
    "CONFIG_ENV",
    "DEFAULT_CONFIG_FILE",
    "DIRECT",
    "JINA_FREE_RATE",
    "JINA_KEYED_RATE",
    "JINA_READER_URL",
    "LOOPBACK_NAMES",
    "MCP_PATH",
    "MIB",
    "PROXY_SCHEMES",
    "RESERVED_PATHS",
    "AccountsSettings",
    "CacheSettings",
    "EngineSettings",
    "ImageSettings",
    "NetworkSettings",
    "ProfileName",
    "ReadSettings",
    "ReaderChoice",
    "S3Settings",
    "ServerSettings",
    "Settings",
    "StateSettings",
    "ToolSettings",
    "check_mcp_path",
    "check_proxies",
    "check_proxy",
    "config_file",
    "effective_proxy",
    "layer_values",
    "options_text",
    "shown_proxy",
    "user_directory",
]
