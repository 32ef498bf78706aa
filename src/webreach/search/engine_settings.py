"""Each engine's settings as Searching builds it from the configuration, and their fingerprint.

An image engine not configured itself shares its web engine's settings; with a fake web (tests, benchmarks) every
engine without its own base URL points at its path there.
"""

from __future__ import annotations

import hashlib
import json

from webreach.config import EngineSettings, Settings
from webreach.providers import Registry


def engine_settings(settings: Settings, providers: Registry, name: str) -> EngineSettings:
    """Engine `name`'s settings from `settings`: its own, or shared (configured()), pointed at the fake web."""
    own = configured(settings, providers, name)
    if settings.fake_web and not own.base_url:
        return own.model_copy(update={"base_url": f"{settings.fake_web.rstrip('/')}/{name}"})
    return own


def configured(settings: Settings, providers: Registry, name: str) -> EngineSettings:
    """An engine's own settings; an image engine not configured itself shares its web engine's (key, options,
    enabled, proxy; the base URL too when both ask the same origin, as the engine class says)."""
    if name in settings.engines:
        return settings.engine(name)
    info = providers.engine_infos().get(name)
    if info is None or not info.shares_settings_of:
        return settings.engine(name)
    web = settings.engine(info.shares_settings_of)
    return web if info.shares_origin else web.model_copy(update={"base_url": None})


def config_fingerprint(settings: EngineSettings) -> str:
    """A short SHA-256 of what decides whether an engine accepts us: API key, base URL and options.

    Breaker records carry it so a suspension for a rejected key or a spent quota ends when the key changes
    (policies/breaker.py). Only the hash is stored, never the key; API keys are long random strings, so 64 bits
    of their hash give nothing away.
    """
    material = ["webreach-engine-config-v1", settings.key(), settings.base_url, sorted(settings.options.items())]
    return hashlib.sha256(json.dumps(material).encode()).hexdigest()[:16]
