"""The console's settings in the database: provider configuration layered between the environment and
webreach.toml, secrets encrypted at rest, and a version every server sharing the database follows.

    store.py       the tables (values and the version) on the ledger's database (SQLite or PostgreSQL)
    secret_box.py  Fernet encryption of stored secrets; the key from WEBREACH_SECRET_KEY or a key file
    layers.py      the precedence rule and, per field, which source set it and which wins
    service.py     StoredConfig: what the Gateway and the doors use (effective settings, the per-field view,
                   writes, the version check)
"""
