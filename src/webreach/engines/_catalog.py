"""The engine table: every engine's metadata as data (name, class, kind, origin, index, key requirement, what it
supports, its pace, its configuration rules), read without importing any engine module.

This table is the one owner of that metadata: Engine subclasses take their ClassVars from their row when their
module is imported (engines/_base.py: Engine.__init_subclass__), and the provider registry, `webreach engines`,
the tool schemas' engine enums, auto's order, usable() and config validation read it here, so the engine modules
(and selectolax, which the scraped ones parse with) load only when a search first asks an engine.
tests/engines/test_catalog.py imports every module and checks it agrees with its row.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal, Protocol

from webreach.errors import NotConfiguredError

if TYPE_CHECKING:
    from webreach.config import EngineSettings

EngineKind = Literal["scraped", "api"]
Vertical = Literal["web", "images"]
Choices = tuple[str, str, tuple[str, ...]]  # an option, its default, the values it takes

# what the request parameters an engine honours are called (a subset of models.OPTIONAL_PARAMETERS)
ALL_WEB = frozenset({"freshness", "language", "page", "region", "safesearch", "site"})


class Rules(Protocol):
    """What the configuration checks read: an engine's row, or a provider (a reverse backend's rules)."""

    @property
    def name(self) -> str: ...
    @property
    def needs_key(self) -> bool: ...
    @property
    def shares_settings_of(self) -> str: ...
    @property
    def keyless_option(self) -> bool: ...
    @property
    def base_url_hint(self) -> str: ...
    @property
    def required_options(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def choices(self) -> Choices | None: ...
    @property
    def rate_per_minute(self) -> float: ...
    @property
    def keyless_rate(self) -> float | None: ...


@dataclass(frozen=True)
class Variant:
    """What an engine answers from and honours when an option picks among its dialects (SerpApi's `engine`)."""

    index: str
    supports: frozenset[str]
    language_hint: str | None = None


@dataclass(frozen=True)
class EngineInfo:
    """One engine's metadata and configuration rules, and where its class lives (engines.load imports it).

    The rules beyond enabled/readable/key: `keyless_option` (Jina: options.keyless searches without a key, at
    `keyless_rate` a minute), `base_url_hint` (a self-hosted instance whose URL must be configured),
    `required_options` (option, what it is), `choices` (option, its default, the values it takes) and `variants`
    (per value of that option, the index and parameters it then has)."""

    name: str
    cls_name: str
    kind: EngineKind
    base_url: str
    index: str
    vertical: Vertical = "web"
    needs_key: bool = False
    shares_settings_of: str = ""
    shares_origin: bool = False
    supports: frozenset[str] = frozenset()
    rate_per_minute: float = 15.0
    language_hint: str | None = None
    keyless_option: bool = False
    keyless_rate: float | None = None
    base_url_hint: str = ""
    required_options: tuple[tuple[str, str], ...] = ()
    choices: Choices | None = None
    variants: Mapping[str, Variant] = field(default_factory=lambda: MappingProxyType({}))
    module: str = ""  # default: webreach.engines.<name>
    loaded: type[object] | None = field(default=None, compare=False)  # a class already imported (engines.info_of)

    def configured(self, settings: EngineSettings) -> EngineInfo:
        """This row as `settings` make it: the variant its option picks (SerpApi's engine=bing)."""
        if self.choices is None or not self.variants:
            return self
        variant = self.variants.get(option_value(self, settings))
        if variant is None:
            return self
        return replace(self, index=variant.index, supports=variant.supports, language_hint=variant.language_hint)


# the ClassVars an engine's row sets on its class (all of EngineInfo's fields but its name and where it lives)
ROW_FIELDS = tuple(f.name for f in fields(EngineInfo) if f.name not in ("name", "cls_name", "module", "loaded"))


def pace(rules: Rules, settings: EngineSettings) -> float:
    """Requests a minute: the configured pace, else the keyless tier's when searching keyless, else its own."""
    if settings.rate_per_minute:
        return settings.rate_per_minute
    if rules.keyless_rate is not None and keyless(rules, settings):
        return rules.keyless_rate
    return rules.rate_per_minute


def option_value(rules: Rules, settings: EngineSettings) -> str:
    """The value of the option a `choices` rule reads (its default when not set), lower-cased."""
    if rules.choices is None:
        return ""
    option, default, _ = rules.choices
    return settings.options.get(option, default).strip().lower()


def keyless(rules: Rules, settings: EngineSettings) -> bool:
    """Searching without the key it normally needs, at an anonymous tier: asked for by the keyless option (an
    engine that has one), and no key configured. The default auto order puts such an engine last."""
    if not rules.keyless_option:
        return False
    return settings.options.get("keyless", "").lower() in ("true", "1", "yes") and not settings.key()


def api_key(rules: Rules, settings: EngineSettings) -> str:
    """The configured key, or NotConfiguredError when there is none (or it cannot be decrypted)."""
    if settings.unreadable:
        raise NotConfiguredError(settings.unreadable, engine=rules.name)
    key = settings.key()
    if not key:
        service = rules.shares_settings_of or rules.name  # an image engine's key is its web engine's
        whose = f"the {service} " if rules.shares_settings_of else "an "
        raise NotConfiguredError(
            f"needs {whose}API key (set WEBREACH_ENGINES__{service.upper()}__API_KEY, or enter it in the console)",
            engine=rules.name,
        )
    return key


def check_configured(rules: Rules, settings: EngineSettings) -> None:
    """NotConfiguredError when the engine is disabled, its stored secrets unreadable, or it lacks its key or what
    its rules require (an instance URL, an option, an option value it takes): the one configuration check."""
    if not settings.enabled:
        raise NotConfiguredError("is disabled in the configuration", engine=rules.name)
    if settings.unreadable:  # a stored secret (key or proxy) this server cannot decrypt
        raise NotConfiguredError(settings.unreadable, engine=rules.name)
    if keyless(rules, settings):
        return
    if rules.needs_key:
        api_key(rules, settings)
    service = (rules.shares_settings_of or rules.name).upper()
    if rules.base_url_hint and not settings.base_url:
        raise NotConfiguredError(
            f"needs {rules.base_url_hint} (set WEBREACH_ENGINES__{service}__BASE_URL)", engine=rules.name
        )
    for option, what in rules.required_options:
        if not settings.options.get(option):
            message = f"needs {what} (set WEBREACH_ENGINES__{service}__OPTIONS__{option.upper()} or options.{option})"
            raise NotConfiguredError(message, engine=rules.name)
    check_choice(rules, settings)


def check_choice(rules: Rules, settings: EngineSettings) -> str:
    """The value of the option a `choices` rule reads, or NotConfiguredError when it is not one it takes."""
    choices, value = rules.choices, option_value(rules, settings)
    if choices is not None and value not in choices[2]:
        message = f"option {choices[0]}={value!r} is not one of {', '.join(choices[2])}"
        raise NotConfiguredError(message, engine=rules.name)
    return value


# SerpApi's `engine` option: the dialect it asks (google by default), each with its own index and parameters
SERPAPI_ENGINES: Choices = ("engine", "google", ("google", "bing", "baidu"))
SERPAPI_VARIANTS: Mapping[str, Variant] = MappingProxyType(
    {
        "google": Variant("google", ALL_WEB),
        "bing": Variant("bing", ALL_WEB),
        "baidu": Variant("baidu", frozenset({"page", "site", "freshness"}), language_hint="zh"),
    }
)

# fmt: off
ENGINES: Mapping[str, EngineInfo] = MappingProxyType({info.name: info for info in (
    EngineInfo("baidu", "Baidu", "scraped", "https://www.baidu.com", index="baidu",
        supports=frozenset({"freshness", "page", "site"}), rate_per_minute=10.0, language_hint="zh"),
    EngineInfo("bing", "Bing", "scraped", "https://www.bing.com", index="bing", supports=ALL_WEB,
        rate_per_minute=12.0),
    EngineInfo("bocha", "Bocha", "api", "https://api.bochaai.com", index="bocha", needs_key=True,
        supports=frozenset({"freshness", "page", "site"}), rate_per_minute=60.0, language_hint="zh"),
    EngineInfo("brave", "Brave", "scraped", "https://search.brave.com", index="brave", supports=ALL_WEB,
        rate_per_minute=10.0),
    EngineInfo("brave_api", "BraveApi", "api", "https://api.search.brave.com", index="brave", needs_key=True,
        supports=ALL_WEB, rate_per_minute=60.0),
    EngineInfo("duckduckgo", "DuckDuckGo", "scraped", "https://html.duckduckgo.com", index="bing",
        supports=frozenset({"freshness", "page", "region", "safesearch", "site"}), rate_per_minute=8.0),
    EngineInfo("exa", "Exa", "api", "https://api.exa.ai", index="exa", needs_key=True,
        supports=frozenset({"freshness", "region", "safesearch", "site"}), rate_per_minute=60.0),
    EngineInfo("google", "Google", "scraped", "https://www.google.com", index="google", supports=ALL_WEB,
        rate_per_minute=6.0),
    EngineInfo("google_cse", "GoogleCse", "api", "https://www.googleapis.com", index="google", needs_key=True,
        supports=ALL_WEB, rate_per_minute=60.0, required_options=(("cx", "a search engine id"),)),
    EngineInfo("images_baidu", "ImagesBaidu", "scraped", "https://image.baidu.com", index="baidu_images",
        vertical="images", shares_settings_of="baidu", rate_per_minute=10.0, language_hint="zh"),
    EngineInfo("images_bing", "ImagesBing", "scraped", "https://www.bing.com", index="bing_images",
        vertical="images", shares_settings_of="bing", shares_origin=True,
        supports=frozenset({"colour", "licence", "safesearch", "size", "type"}), rate_per_minute=12.0),
    EngineInfo("images_brave_api", "ImagesBraveApi", "api", "https://api.search.brave.com", index="brave_images",
        vertical="images", needs_key=True, shares_settings_of="brave_api", shares_origin=True,
        supports=frozenset({"safesearch"}), rate_per_minute=60.0),
    EngineInfo("images_duckduckgo", "ImagesDuckduckgo", "scraped", "https://duckduckgo.com", index="bing_images",
        vertical="images", shares_settings_of="duckduckgo",
        supports=frozenset({"colour", "licence", "region", "safesearch", "size", "type"}), rate_per_minute=8.0),
    EngineInfo("images_google_cse", "ImagesGoogleCse", "api", "https://www.googleapis.com", index="google_images",
        vertical="images", needs_key=True, shares_settings_of="google_cse", shares_origin=True,
        supports=frozenset({"colour", "language", "licence", "safesearch", "size", "type"}), rate_per_minute=60.0,
        required_options=(("cx", "a search engine id"),)),
    EngineInfo("images_searxng", "ImagesSearxng", "api", "https://searx.example", index="searxng_images",
        vertical="images", shares_settings_of="searxng", shares_origin=True, supports=frozenset({"safesearch"}),
        rate_per_minute=60.0, base_url_hint="the URL of a SearXNG instance"),
    EngineInfo("images_serpapi", "ImagesSerpapi", "api", "https://serpapi.com", index="google_images",
        vertical="images", needs_key=True, shares_settings_of="serpapi", shares_origin=True,
        supports=frozenset({"colour", "language", "licence", "region", "safesearch", "size", "type"}),
        rate_per_minute=60.0, choices=SERPAPI_ENGINES),
    EngineInfo("images_serper", "ImagesSerper", "api", "https://google.serper.dev", index="google_images",
        vertical="images", needs_key=True, shares_settings_of="serper", shares_origin=True,
        supports=frozenset({"language", "region"}), rate_per_minute=60.0),
    EngineInfo("images_sogou", "ImagesSogou", "scraped", "https://pic.sogou.com", index="sogou_images",
        vertical="images", shares_settings_of="sogou", rate_per_minute=10.0, language_hint="zh"),
    EngineInfo("images_tavily", "ImagesTavily", "api", "https://api.tavily.com", index="tavily_images",
        vertical="images", needs_key=True, shares_settings_of="tavily", shares_origin=True, rate_per_minute=60.0),
    # 40 a minute: searcher.ts, unless the account has a higher speed level; keyless: the anonymous free tier the
    # multi-agent contract plans for (E)
    EngineInfo("jina", "Jina", "api", "https://s.jina.ai", index="google", needs_key=True,
        supports=frozenset({"language", "page", "region", "site"}), rate_per_minute=40.0, keyless_option=True,
        keyless_rate=100.0),
    EngineInfo("metaso", "Metaso", "api", "https://metaso.cn", index="metaso", needs_key=True,
        supports=frozenset({"page", "site"}), rate_per_minute=60.0, language_hint="zh"),
    EngineInfo("mojeek", "Mojeek", "scraped", "https://www.mojeek.com", index="mojeek", supports=ALL_WEB),
    # searx.example is a placeholder only: without a configured instance (base_url_hint) it is not configured
    EngineInfo("searxng", "SearXNG", "api", "https://searx.example", index="searxng", supports=ALL_WEB,
        rate_per_minute=60.0, base_url_hint="the URL of a SearXNG instance"),
    EngineInfo("serpapi", "SerpApi", "api", "https://serpapi.com", index="google", needs_key=True, supports=ALL_WEB,
        rate_per_minute=60.0, choices=SERPAPI_ENGINES, variants=SERPAPI_VARIANTS),
    EngineInfo("serper", "Serper", "api", "https://google.serper.dev", index="google", needs_key=True,
        supports=frozenset({"freshness", "language", "page", "region", "site"}), rate_per_minute=60.0),
    EngineInfo("so360", "So360", "scraped", "https://www.so.com", index="so360",
        supports=frozenset({"freshness", "page", "site"}), rate_per_minute=10.0, language_hint="zh"),
    EngineInfo("sogou", "Sogou", "scraped", "https://www.sogou.com", index="sogou",
        supports=frozenset({"freshness", "page", "site"}), rate_per_minute=10.0, language_hint="zh"),
    EngineInfo("startpage", "Startpage", "scraped", "https://www.startpage.com", index="google", supports=ALL_WEB,
        rate_per_minute=6.0),
    EngineInfo("tavily", "Tavily", "api", "https://api.tavily.com", index="tavily", needs_key=True,
        supports=frozenset({"freshness", "site"}), rate_per_minute=60.0),
    EngineInfo("yahoo", "Yahoo", "scraped", "https://search.yahoo.com", index="bing",
        supports=frozenset({"freshness", "language", "page", "safesearch", "site"}), rate_per_minute=10.0),
)})
# fmt: on
