"""The CLI's answer memo: a `webreach search` that a full run answered from the search cache, replayed by the next
identical command before click, the settings, the Gateway or the tools load (issue 38, Deliver 5; docs/decisions.md,
"the CLI answer memo").

The full run (frontends/_cli_search.py) writes a memo only for an answer a replay can redo whole: compact output of
one web_search answered by one fresh cache entry, accounts off (no charge to skip), the SQLite state and cache,
refs remembered, no reading. The memo's name is a hash of everything that could change the command's answer or
its bytes: the arguments, the working directory (./webreach.toml), the whole environment (every WEBREACH_*
variable, XDG_*, the locale), whether stdout and stderr are terminals and stdout's encoding, the interpreter and
where webreach is. It holds the bytes printed, when it expires and what a replay must check and redo:
- the files the answer came from (recorded by the full run, so config discovery is not done twice): webreach's
  own modules the full run had loaded when it wrote the memo (the ~145 source files of a cached search: a module it
  never loaded cannot have shaped its bytes), the TOML file, the console's settings database and the search cache
  file, each with its WAL, by size, mtime_ns, inode and device. Any change there, an edited source file (in place or
  replaced; an editable install included), a new cache entry or a cleared cache (the file deleted or rewritten)
  included, is a miss; a cache read does not write the file, so repeated replays keep hitting;
- the expiry: the soonest `fresh_until` of the cache entries fresh when the full run started, never later than
  the entry that answered (the cache stays the owner of the TTL; state/cache_store.py);
- the refs: a replay remembers the answer's URLs in its session through the store's own SQL
  (state/session_rows.py), so their TTL and eviction order restart as the full run's would, and is used only
  when the refs come back as printed (else the full run answers, with the refs written once more, as it would).
Anything else, a corrupt or unreadable memo included, falls through to the full run without a word. At most
KEEP memos are kept, least recently used first out. Standard library (and platformdirs) on the replay's path.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from webreach.ledger_url import sqlite_path
from webreach.state.session_rows import remember_rows
from webreach.user_dirs import user_directory

if TYPE_CHECKING:
    from webreach.config import Settings
    from webreach.state.sessions import SessionStore

VERSION = 2  # 2: the loaded modules' source files in `files`, no longer a walk of the package in the name
KEEP = 256  # memos kept; each is a few kB
MEMO_DIRECTORY = "cli-answers"
_SUFFIX = ".json"
_PACKAGE = os.path.dirname(os.path.abspath(__file__))  # where webreach is: part of a memo's name


@dataclass(frozen=True)
class Refs:
    """What a replay remembers, as the full run's SqliteSessionStore did: the state file, the session, the URLs in
    order and the refs they got, and the store's bounds."""

    path: str
    session: str
    urls: list[str]
    refs: list[int]
    ttl: float
    max_refs: int
    forget_after: float
    busy_timeout: float


@dataclass(frozen=True)
class Memo:
    """One answer to replay: the text printed on stdout, its expiry, the files it depends on, its refs."""

    stdout: str
    expires: float
    files: list[tuple[str, list[int] | None]]
    refs: Refs


def replay(argv: Sequence[str]) -> bool:
    """Print the memo's answer to `argv` and return True when one holds now; otherwise print nothing, False."""
    if not argv or argv[0] != "search":
        return False
    try:
        path = memo_directory() / f"{memo_key(argv)}{_SUFFIX}"
        memo = _load(path)
        if memo is None or not _holds(memo) or not _remembered(memo.refs):
            return False
    except (OSError, ValueError, TypeError, KeyError, sqlite3.Error):
        return False
    _print(memo.stdout)
    with contextlib.suppress(OSError):
        os.utime(path)  # least recently used goes first
    return True


def _print(text: str) -> None:
    """Write the answer; a reader that went away (`webreach search x | head -0`) ends the command as the full run's
    click does: exit code 1, no traceback (stdout pointed at the null device, so the exit's flush cannot fail)."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
        sys.exit(1)


def memo_directory() -> Path:
    """Where memos live: under webreach's user cache directory, beside the search cache."""
    return user_directory("cache") / MEMO_DIRECTORY


def memo_key(argv: Sequence[str]) -> str:
    """The hash of everything the answer's bytes may depend on before the settings load."""
    facts = [VERSION, list(argv), os.getcwd(), sorted(os.environ.items()), sys.executable, sys.version]
    facts += [_terminal(), _PACKAGE]
    return hashlib.sha256(json.dumps(facts).encode("ascii")).hexdigest()


def _terminal() -> list[Any]:
    out = sys.stdout
    if out is None:
        return [None]
    ttys = [os.isatty(1), os.isatty(2)]
    size = list(os.get_terminal_size(1)) if ttys[0] else None
    return [*ttys, size, out.encoding, out.errors]


def fingerprint(path: str) -> list[int] | None:
    """A file's size, mtime_ns, inode and device; None when it does not exist."""
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        return None
    return [stat.st_size, stat.st_mtime_ns, stat.st_ino, stat.st_dev]


def _load(path: Path) -> Memo | None:
    try:
        raw = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    if not isinstance(raw, dict) or raw.get("version") != VERSION:
        return None
    files = [(str(name), None if stamp is None else [int(part) for part in stamp]) for name, stamp in raw["files"]]
    refs = _refs(raw["refs"])
    if refs is None or not isinstance(raw["stdout"], str):
        return None
    return Memo(stdout=raw["stdout"], expires=float(raw["expires"]), files=files, refs=refs)


def _refs(raw: Any) -> Refs | None:
    """The memo's refs when every field has its type (a damaged memo must never write refs)."""
    refs = Refs(**raw)
    texts = [refs.path, refs.session, *refs.urls]
    numbers = [refs.ttl, refs.forget_after, refs.busy_timeout]
    if not (isinstance(refs.urls, list) and isinstance(refs.refs, list) and len(refs.urls) == len(refs.refs)):
        return None
    if not all(isinstance(text, str) for text in texts) or not all(type(ref) is int for ref in refs.refs):
        return None
    if not all(isinstance(number, int | float) and number > 0 for number in numbers) or type(refs.max_refs) is not int:
        return None
    return refs


def _holds(memo: Memo) -> bool:
    return time.time() < memo.expires and all(fingerprint(name) == stamp for name, stamp in memo.files)


def _remembered(refs: Refs) -> bool:
    """Remember the URLs as the full run did (one transaction); True when they got the refs the answer shows."""
    if not os.path.exists(refs.path):
        return False
    with contextlib.closing(sqlite3.connect(refs.path, timeout=refs.busy_timeout)) as conn:
        conn.execute("PRAGMA synchronous=NORMAL")  # as the store's own connection (state/sqlite_file.py)
        got = remember_rows(
            conn, refs.session, refs.urls, time.time(),
            ttl=refs.ttl, max_refs=refs.max_refs, forget_after=refs.forget_after,
        )  # fmt: skip
    return got == refs.refs


# --- the full run's side: what it may memo, and writing it ----------------------------------------------------


def refs_of(sessions: SessionStore, session: str, refs: dict[str, int]) -> Refs | None:
    """The refs a replay must remember, when the session store is the SQLite state file (else no memo)."""
    from webreach.state.sessions import SqliteSessionStore

    if not isinstance(sessions, SqliteSessionStore):
        return None
    return Refs(
        path=str(Path(sessions.path).resolve()), session=session, urls=list(refs), refs=list(refs.values()),
        ttl=sessions.ttl, max_refs=sessions.max_refs, forget_after=sessions.forget_after,
        busy_timeout=sessions.busy_timeout,
    )  # fmt: skip


def sources(settings: Settings, database_url: str) -> tuple[list[str], Path] | None:
    """The files the settings and the cache were read from (the TOML file, the console's settings database, the
    search cache, each with its WAL) and the cache file, or None when one of them is not a local file (no memo)."""
    from webreach.config import config_file
    from webreach.state.cache_store import default_cache_path

    database = sqlite_path(database_url)  # the console's settings: the ledger's database; PostgreSQL, no memo
    if database is None or settings.cache.backend != "sqlite" or settings.state.backend != "sqlite":
        return None
    cache = settings.cache.path or default_cache_path()
    files = [os.path.abspath(config_file())]
    for path in (database, cache):
        files += [os.path.abspath(path), os.path.abspath(f"{path}-wal")]
    return files, Path(cache)


def save(argv: Sequence[str], stdout: str, *, started: float, files: tuple[list[str], Path], refs: Refs) -> None:
    """Write the memo of `argv`'s answer (after the Gateway closed: the files are stamped as it left them); a
    memo that cannot be written is no memo."""
    from webreach.state.cache_store import soonest_fresh_until

    names, cache = files
    expires = soonest_fresh_until(cache, started)
    if expires is None or expires <= time.time():
        return
    stamps = [(name, fingerprint(name)) for name in [*_loaded_sources(), *names]]
    body = {"version": VERSION, "stdout": stdout, "expires": expires, "files": stamps, "refs": asdict(refs)}
    with contextlib.suppress(OSError):
        directory = memo_directory()
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)  # search results: private, as the cache file
        _write_atomically(directory / f"{memo_key(argv)}{_SUFFIX}", json.dumps(body).encode("ascii"))
        _trim(directory)


def _loaded_sources() -> list[str]:
    """The source files of webreach's modules loaded now: what an answer printed so far can have run. (A stamp of
    the whole package missed less and cost more: a walk of its ~340 files on every search, replayed or not, while
    the package's directory mtime or a stamp written at install miss a file edited in place in a checkout.)"""
    package = __package__ or "webreach"
    modules = [module for name, module in list(sys.modules.items()) if name.partition(".")[0] == package]
    return sorted({file for module in modules if (file := getattr(module, "__file__", None))})


def _write_atomically(path: Path, data: bytes) -> None:
    import tempfile  # the full run's side only

    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".memo-")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _trim(directory: Path) -> None:
    """Keep the KEEP most recently used memos."""
    memos = sorted(_memos(directory), key=lambda entry: entry[0], reverse=True)
    for _, path in memos[KEEP:]:
        with contextlib.suppress(OSError):
            path.unlink()


def _memos(directory: Path) -> Iterator[tuple[int, Path]]:
    for entry in os.scandir(directory):
        if entry.name.endswith(_SUFFIX):
            with contextlib.suppress(OSError):
                yield entry.stat().st_mtime_ns, Path(entry.path)
