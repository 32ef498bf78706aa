"""Routing: which engines answer a search and how their answers combine.

Router runs one search in one of three modes (a named engine, auto fallback with hedging, multi fan-out);
merge holds the pure dedupe and fusion rules; order holds the default engine orders.
"""

from webreach.routing.attempts import AttemptListener, Candidate, LazyCandidates, failed_attempt
from webreach.routing.merge import canonical_url, merge
from webreach.routing.router import Router, respond

__all__ = [
    "AttemptListener",
    "Candidate",
    "LazyCandidates",
    "Router",
    "canonical_url",
    "failed_attempt",
    "merge",
    "respond",
]
