"""Reverse image search (issue 14): one module per backend, and the service that falls back across them
(service.py). The backends are listed in the provider registry (webreach/providers.py), which hands them to the
service."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the base class (httpx, the engines' Provider) loads with the first backend, not the package
    from webreach.images.reverse._base import ReverseBackend

__all__ = ["ReverseBackend"]


def __getattr__(name: str) -> Any:
    if name != "ReverseBackend":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = importlib.import_module(f"{__name__}._base").ReverseBackend
    globals()[name] = value
    return value
