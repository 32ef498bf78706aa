"""Reverse image search (issue 14): one module per backend, and the service that falls back across them
(service.py). The backends are listed in the provider registry (webreach/providers.py), which hands them to the
service."""

from __future__ import annotations

from webreach.images.reverse._base import ReverseBackend

__all__ = ["ReverseBackend"]
