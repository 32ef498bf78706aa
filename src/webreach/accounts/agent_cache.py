"""The agents a server recently authenticated, kept for a few seconds (`[accounts] key_cache_seconds`).

A metered call used to read the ledger twice before it reserved (the key, then the agent's tool profile), each a
hop to the ledger's worker thread and back. With the agent remembered by key hash and by name, a key seen in the
last few seconds is answered on the event loop (a dict lookup) and the profile comes from the same record.

Revocation: a key rotated or an agent disabled through this process's Accounts clears the cache at once; a change
made by another process or replica is honoured within `key_cache_seconds` (0 turns the cache off). Thread-safe:
reads happen on the event loop, fills on the ledger's worker thread.
"""

from __future__ import annotations

import threading

from cachetools import TTLCache

from webreach.accounts.ledger import Agent
from webreach.clock import Clock

MAX_AGENTS = 10_000


class AgentCache:
    """Agents by key hash and by name, each for `ttl` seconds of `clock`."""

    def __init__(self, ttl: float, clock: Clock, *, max_agents: int = MAX_AGENTS) -> None:
        self.enabled = ttl > 0
        ttl = max(ttl, 1e-9)  # TTLCache needs a positive TTL; a disabled cache is never filled
        self._by_key: TTLCache[str, Agent] = TTLCache(maxsize=max_agents, ttl=ttl, timer=clock.now)
        self._by_name: TTLCache[str, Agent] = TTLCache(maxsize=max_agents, ttl=ttl, timer=clock.now)
        self._lock = threading.Lock()

    def by_key(self, key_hash: str) -> Agent | None:
        with self._lock:
            return self._by_key.get(key_hash)

    def by_name(self, name: str) -> Agent | None:
        with self._lock:
            return self._by_name.get(name)

    def keep(self, agent: Agent, key_hash: str | None = None) -> None:
        if not self.enabled:
            return
        with self._lock:
            self._by_name[agent.name] = agent
            if key_hash is not None:
                self._by_key[key_hash] = agent

    def clear(self) -> None:
        """Forget every agent (a key, a status or an option changed here)."""
        with self._lock:
            self._by_key.clear()
            self._by_name.clear()
