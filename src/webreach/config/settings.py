"""Settings: every section together, read from explicit arguments, the WEBREACH_* environment and webreach.toml
(in that order), the rules that span sections, and `load()`, the front doors' way in."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from webreach.config.outbound import EngineSettings, ImageSettings, NetworkSettings, ReadSettings
from webreach.config.paths import CONFIG_ENV, DEFAULT_CONFIG_FILE, config_file
from webreach.config.serving import AccountsSettings, CacheSettings, ServerSettings, StateSettings, ToolSettings
from webreach.errors import InvalidInputError


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
