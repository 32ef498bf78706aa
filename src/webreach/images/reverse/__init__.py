"""Reverse image search (issue 14): one module per backend, the registry, and the service that falls back
across them (service.py)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from webreach.images.reverse._base import ReverseBackend
from webreach.images.reverse.bing_visual import BingVisual
from webreach.images.reverse.searxng_tineye import SearxngTineye
from webreach.images.reverse.serpapi_google_reverse import SerpApiGoogleReverse
from webreach.images.reverse.serpapi_lens import SerpApiLens
from webreach.images.reverse.serpapi_yandex import SerpApiYandex
from webreach.images.reverse.tineye import TinEye
from webreach.images.reverse.yandex import Yandex

REVERSE_BACKENDS: Mapping[str, type[ReverseBackend]] = MappingProxyType(
    {
        cls.name: cls
        for cls in (SerpApiLens, SerpApiGoogleReverse, SerpApiYandex, BingVisual, Yandex, TinEye, SearxngTineye)
    }
)

__all__ = ["REVERSE_BACKENDS", "ReverseBackend"]
