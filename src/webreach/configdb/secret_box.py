"""Secrets the console stores (API keys, proxy URLs) are encrypted at rest with Fernet (AES-128-CBC + HMAC-SHA256,
from the `cryptography` package), so a copy of the database or a PostgreSQL dump does not hold them in clear.

The key, in order: `secret_key` (env WEBREACH_SECRET_KEY, a Fernet key), `secret_key_file` (env
WEBREACH_SECRET_KEY_FILE, a file holding one), else secret.key in the user data directory; a key file is created
(0600) when the first secret is stored. Servers sharing a PostgreSQL database must share the key (the variable or
the same file).

A lost or changed key makes the stored secrets unreadable: `open` raises SecretUnreadable with a message saying
what to do, and the engine holding it reports not_configured with that message (never a crash). Entering the
secret again stores it under the current key.

`cryptography` loads with the first secret sealed or opened, not with the module: every command reads the console's
settings through here, and most hold no secret (issue 38: start-up).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from webreach.config import Settings, user_directory
from webreach.errors import InvalidInputError

if TYPE_CHECKING:
    from cryptography.fernet import Fernet

KEY_FILE = "secret.key"
GENERATE = 'python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"'


class SecretUnreadable(Exception):
    """A stored secret that this server's key cannot decrypt; the message says what to do."""


class SecretBox:
    """Seal and open the console's stored secrets with this server's key (see the module docstring)."""

    def __init__(self, settings: Settings) -> None:
        self._given = settings.secret_key.get_secret_value() if settings.secret_key else None
        self._named = settings.secret_key_file
        self._fernet: Fernet | None = None

    @property
    def source(self) -> str:
        """Where the key comes from, for the console and the docs' wording."""
        if self._given is not None:
            return "WEBREACH_SECRET_KEY"
        return str(self._path())

    def _path(self) -> Path:
        return Path(self._named).expanduser() if self._named else user_directory("data") / KEY_FILE

    def seal(self, secret: str) -> str:
        """`secret` encrypted (InvalidInputError when the configured key is not usable)."""
        return self._key(create=True).encrypt(secret.encode("utf-8")).decode("ascii")

    def open(self, token: str) -> str:
        """The secret `token` holds, or SecretUnreadable (the key was lost or changed since it was stored)."""
        from cryptography.fernet import InvalidToken

        try:
            fernet = self._key(create=False)
        except InvalidInputError as problem:
            raise SecretUnreadable(f"its stored secret cannot be read: {problem.message}") from None
        try:
            return fernet.decrypt(token.encode("ascii")).decode("utf-8")
        except (InvalidToken, ValueError, UnicodeError):
            raise SecretUnreadable(
                f"its stored secret was saved under another secret key (the key from {self.source} was lost or "
                "changed): enter the secret again in the console, or restore the old key"
            ) from None

    def _key(self, *, create: bool) -> Fernet:
        from cryptography.fernet import Fernet

        if self._fernet is None:
            self._fernet = Fernet(self._material(create=create))
        return self._fernet

    def _material(self, *, create: bool) -> bytes:
        if self._given is not None:
            return _checked(self._given.encode("ascii", "replace"), "WEBREACH_SECRET_KEY")
        path = self._path()
        if not path.exists():
            if not create:
                raise InvalidInputError(
                    f"the secret key file {path} does not exist",
                    hint=f"Restore it, or set WEBREACH_SECRET_KEY to a key made with: {GENERATE}",
                )
            _create_key_file(path)
        try:
            return _checked(path.read_bytes().strip(), str(path))
        except OSError as exc:
            raise InvalidInputError(f"cannot read the secret key file {path}: {exc.strerror or exc}") from None


def _checked(material: bytes, where: str) -> bytes:
    from cryptography.fernet import Fernet

    try:
        Fernet(material)
    except ValueError:
        raise InvalidInputError(
            f"{where} does not hold a Fernet key (32 url-safe base64 bytes)", hint=f"Make one with: {GENERATE}"
        ) from None
    return material


def _create_key_file(path: Path) -> None:
    """A new key in `path`, readable by this user only; a key another process created meanwhile is kept (written
    whole to a private file first, then linked into place, so no process ever reads a half-written key)."""
    from cryptography.fernet import Fernet

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    draft = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(Fernet.generate_key() + b"\n")
    try:
        os.link(draft, path)
    except FileExistsError:
        pass
    finally:
        draft.unlink()
