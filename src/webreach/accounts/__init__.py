"""Agents, API keys, credits, quotas and idempotency keys: the service the tools' call policies and the admin
doors use (accounts/service.py), over a ledger in SQLite or PostgreSQL (ledger.py, database.py)."""
