"""Storage protocols and their backends: what the Gateway keeps between calls (SQLite is the embedded default)."""
