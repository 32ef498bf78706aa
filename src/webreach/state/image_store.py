"""Images per session, named by tokens: `<image_k>` (the task's inputs) and `<obs_i>` (images tools returned).

Content-addressed: an image's bytes are kept once under their SHA-256 however many tokens or sessions name them.
Tokens follow the session rules of refs (state/sessions.py): a token lives `ttl` seconds after it was last
registered or used, sessions never see each other's tokens, and `<obs_i>` numbers are never reused within a
session. Each session holds at most `max_bytes` of images (`max_images` tokens); registering more evicts the least
recently used tokens, and bytes no token names any more are deleted.

A token named by the conversation (`<obs_7>` in a message) is kept as given, and the session's next allocated
`<obs_i>` is past it, so a crop never takes a number the conversation already used.

One SQLite database: the state file (own versioned tables), or a private in-memory database for backend "memory";
with [state] backend = "redis", state/redis_image_store.py keeps the same semantics in Redis for every replica.
SQLite errors become ImageStoreError (a SessionStoreError), never a raw sqlite3 error. The methods are coroutines:
the SQLite work (a blob can be megabytes) runs on a worker thread, one operation at a time per store, never on the
event loop.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import secrets
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

from webreach.clock import Clock, SystemClock
from webreach.errors import ImageStoreError, ImageTooLargeError, InvalidInputError, UnknownImageTokenError
from webreach.state.sqlite_file import SqliteFile

T = TypeVar("T")
TOKEN = re.compile(r"<(image|obs)_([1-9][0-9]{0,8})>")
DEFAULT_MAX_BYTES = 100_000_000
DEFAULT_MAX_IMAGES = 500

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS image_blobs_v1 ("
    " digest TEXT PRIMARY KEY, mime TEXT NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL,"
    " data BLOB NOT NULL)",
    "CREATE TABLE IF NOT EXISTS image_tokens_v1 ("
    " session TEXT NOT NULL, token TEXT NOT NULL, digest TEXT NOT NULL, size INTEGER NOT NULL, seen_at REAL NOT NULL,"
    " PRIMARY KEY (session, token))",
    "CREATE INDEX IF NOT EXISTS image_tokens_v1_digest ON image_tokens_v1 (digest)",
    "CREATE TABLE IF NOT EXISTS image_counters_v1 (session TEXT PRIMARY KEY, next_obs INTEGER NOT NULL)",
    # public URLs (images/storage.py, storage = public_url): a random id -> the bytes served until `expires`
    "CREATE TABLE IF NOT EXISTS image_links_v1 ("
    " id TEXT PRIMARY KEY, mime TEXT NOT NULL, data BLOB NOT NULL, expires REAL NOT NULL)",
)


@dataclass(frozen=True)
class StoredImage:
    """One image as a token names it: encoded bytes, MIME type and pixel size."""

    token: str
    data: bytes
    mime: str
    width: int
    height: int

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def check_token(token: str) -> str:
    """`token` when it is `<image_k>` or `<obs_i>` (k, i from 1), else InvalidInputError."""
    if not TOKEN.fullmatch(token):
        raise InvalidInputError(f"{token[:40]!r} is not an image token", hint="Tokens look like <image_1> or <obs_2>.")
    return token


class ImageTokens(Protocol):
    """What the image tools need of a store: tokens per session, and links for public URLs."""

    async def put(self, session: str, image: StoredImage) -> str: ...

    async def get(self, session: str, token: str) -> StoredImage: ...

    async def tokens(self, session: str) -> list[str]: ...

    async def link(self, data: bytes, mime: str, ttl: float) -> str: ...

    async def linked(self, link_id: str) -> tuple[bytes, str, float] | None: ...

    def close(self) -> None: ...


class ImageStore:
    """Session images in SQLite: the state file at `path`, or an in-memory database when `path` is None."""

    def __init__(
        self,
        path: Path | None,
        *,
        clock: Clock | None = None,
        ttl: float = 86_400.0,
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_images: int = DEFAULT_MAX_IMAGES,
    ) -> None:
        self._clock = clock or SystemClock()
        self.ttl, self.max_bytes, self.max_images = ttl, max_bytes, max_images
        self._file = (
            SqliteFile(path, _SCHEMA, what="image store", fallback="image tokens are unavailable", busy_timeout=2.0)
            if path is not None
            else None
        )
        self._memory: sqlite3.Connection | None = None
        self._lock = threading.Lock()  # one operation at a time on the connection, whatever thread runs it

    async def _off_loop(self, work: Callable[..., T], *args: object) -> T:
        def locked() -> T:
            with self._lock:
                return work(*args)

        return await asyncio.to_thread(locked)

    async def put(self, session: str, image: StoredImage) -> str:
        """Register `image` under its token (a new `<obs_i>` when its token is ""), returning the token."""
        return await self._off_loop(self._put_now, session, image)

    async def get(self, session: str, token: str) -> StoredImage:
        """The image `token` names in `session` (UnknownImageTokenError when none or expired); restarts its TTL."""
        return await self._off_loop(self._get_now, session, token)

    async def tokens(self, session: str) -> list[str]:
        """The session's live tokens, oldest first."""
        return await self._off_loop(self._tokens_now, session)

    async def link(self, data: bytes, mime: str, ttl: float) -> str:
        """A new unguessable id under which `data` is served for `ttl` seconds (the public URL's last part)."""
        return await self._off_loop(self._link_now, data, mime, ttl)

    async def linked(self, link_id: str) -> tuple[bytes, str, float] | None:
        """(bytes, MIME type, seconds left) of a live link, None when it is unknown or expired."""
        return await self._off_loop(self._linked_now, link_id)

    def _put_now(self, session: str, image: StoredImage) -> str:
        if len(image.data) > self.max_bytes:
            raise ImageTooLargeError(f"the image is {len(image.data):,} bytes, over the store's {self.max_bytes:,}")
        if image.token:
            check_token(image.token)
        try:
            with self._connection() as conn:
                return self._put(conn, session, image, self._clock.now())
        except sqlite3.Error as exc:
            raise ImageStoreError(f"the image store failed: {exc}") from None

    def _get_now(self, session: str, token: str) -> StoredImage:
        check_token(token)
        now = self._clock.now()
        try:
            with self._connection() as conn:
                self._expire(conn, now)
                row = conn.execute(
                    "SELECT b.data, b.mime, b.width, b.height FROM image_tokens_v1 t JOIN image_blobs_v1 b"
                    " ON b.digest = t.digest WHERE t.session = ? AND t.token = ?",
                    (session, token),
                ).fetchone()
                if row is not None:
                    conn.execute(
                        "UPDATE image_tokens_v1 SET seen_at = ? WHERE session = ? AND token = ?", (now, session, token)
                    )
        except sqlite3.Error as exc:
            raise ImageStoreError(f"the image store failed: {exc}") from None
        if row is None:
            raise UnknownImageTokenError(f"no image {token} in this session")
        return StoredImage(token, bytes(row[0]), row[1], row[2], row[3])

    def _tokens_now(self, session: str) -> list[str]:
        try:
            with self._connection() as conn:
                self._expire(conn, self._clock.now())
                rows = conn.execute(
                    "SELECT token FROM image_tokens_v1 WHERE session = ? ORDER BY seen_at, rowid", (session,)
                ).fetchall()
        except sqlite3.Error as exc:
            raise ImageStoreError(f"the image store failed: {exc}") from None
        return [row[0] for row in rows]

    def _link_now(self, data: bytes, mime: str, ttl: float) -> str:
        link_id = secrets.token_urlsafe(24)
        now = self._clock.now()
        try:
            with self._connection() as conn:
                conn.execute("DELETE FROM image_links_v1 WHERE expires <= ?", (now,))
                conn.execute("INSERT INTO image_links_v1 VALUES (?, ?, ?, ?)", (link_id, mime, data, now + ttl))
        except sqlite3.Error as exc:
            raise ImageStoreError(f"the image store failed: {exc}") from None
        return link_id

    def _linked_now(self, link_id: str) -> tuple[bytes, str, float] | None:
        now = self._clock.now()
        try:
            with self._connection() as conn:
                row = conn.execute(
                    "SELECT data, mime, expires FROM image_links_v1 WHERE id = ? AND expires > ?", (link_id, now)
                ).fetchone()
        except sqlite3.Error as exc:
            raise ImageStoreError(f"the image store failed: {exc}") from None
        return (bytes(row[0]), row[1], row[2] - now) if row is not None else None

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        if self._memory is not None:
            self._memory.close()
            self._memory = None

    # --- internals -----------------------------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._file is not None:
            conn = self._file.connection(create=True)
            if conn is None:
                raise sqlite3.OperationalError(f"cannot open {self._file.path}")
            return conn
        if self._memory is None:
            self._memory = sqlite3.connect(":memory:", check_same_thread=False)  # ops serialized by _lock
            for statement in _SCHEMA:
                self._memory.execute(statement)
        return self._memory

    def _put(self, conn: sqlite3.Connection, session: str, image: StoredImage, now: float) -> str:
        self._expire(conn, now)
        token = image.token or self._next_obs(conn, session)
        match = TOKEN.fullmatch(token)
        if match and match.group(1) == "obs":  # a named <obs_i> moves the counter past it
            conn.execute(
                "INSERT INTO image_counters_v1 VALUES (?, ?) ON CONFLICT (session) DO UPDATE"
                " SET next_obs = max(next_obs, excluded.next_obs)",
                (session, int(match.group(2)) + 1),
            )
        digest = image.digest
        conn.execute(
            "INSERT OR IGNORE INTO image_blobs_v1 VALUES (?, ?, ?, ?, ?)",
            (digest, image.mime, image.width, image.height, image.data),
        )
        conn.execute(
            "INSERT INTO image_tokens_v1 VALUES (?, ?, ?, ?, ?) ON CONFLICT (session, token) DO UPDATE"
            " SET digest = excluded.digest, size = excluded.size, seen_at = excluded.seen_at",
            (session, token, digest, len(image.data), now),
        )
        self._evict(conn, session)
        return token

    def _next_obs(self, conn: sqlite3.Connection, session: str) -> str:
        row = conn.execute("SELECT next_obs FROM image_counters_v1 WHERE session = ?", (session,)).fetchone()
        return f"<obs_{row[0] if row else 1}>"

    def _expire(self, conn: sqlite3.Connection, now: float) -> None:
        deleted = conn.execute("DELETE FROM image_tokens_v1 WHERE seen_at < ?", (now - self.ttl,)).rowcount
        if deleted:
            _drop_orphans(conn)

    def _evict(self, conn: sqlite3.Connection, session: str) -> None:
        """Least recently used tokens out until the session is within its byte and count caps."""
        rows = conn.execute(
            "SELECT token, size FROM image_tokens_v1 WHERE session = ? ORDER BY seen_at DESC, rowid DESC", (session,)
        ).fetchall()
        total, kept, dropped = 0, 0, []
        for token, size in rows:
            total, kept = total + size, kept + 1
            if total > self.max_bytes or kept > self.max_images:
                dropped.append((session, token))
        if dropped:
            conn.executemany("DELETE FROM image_tokens_v1 WHERE session = ? AND token = ?", dropped)
            _drop_orphans(conn)


def _drop_orphans(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM image_blobs_v1 WHERE digest NOT IN (SELECT digest FROM image_tokens_v1)")
