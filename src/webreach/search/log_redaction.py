"""Keeps API keys out of the HTTP client's log lines: one redacting filter per process, shared by every Searching.

Some providers (SerpApi) only take the key in the query string, and httpx logs every request URL at INFO. A
SecretLogFilter on the httpx and httpcore loggers masks the keys in their records. The logging module is where
the filter lives, not a global of ours: `HttpLogRedaction` looks for the filter already on those loggers and
attaches one only when there is none, so any number of gateways in one process add one filter per logger.
Each open Searching registers the secret forms of its keys with it and takes them back when it closes; the
filter comes off the loggers when the last registration is closed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from urllib.parse import urlsplit

from webreach.config import EngineSettings, Settings, effective_proxy
from webreach.engines._provider import redact_secrets, secret_forms

# httpx logs under "httpx", httpcore under children of "httpcore"; a logger's filters see only its own records
# (not those propagated up from children), so the filter goes on each of them
HTTP_LOGGERS = (
    "httpx",
    "httpcore",
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "httpcore.socks",
)


class SecretLogFilter(logging.Filter):
    """Masks every registered secret form in log records, by rendering each record once and redacting it.

    Registrations are keyed by their owner; the forms are the union of all of them. It never drops a record.
    """

    def __init__(self) -> None:
        super().__init__()
        self._registered: dict[object, tuple[str, ...]] = {}
        self.forms: tuple[str, ...] = ()

    def register(self, owner: object, secrets: Iterable[str | None]) -> None:
        """Mask the forms of `secrets` (as written and URL-encoded) until `unregister(owner)`."""
        self._registered[owner] = tuple(form for secret in secrets if secret for form in secret_forms(secret))
        self._collect()

    def unregister(self, owner: object) -> None:
        """Stop masking what `owner` registered (secrets another owner registered too stay masked)."""
        self._registered.pop(owner, None)
        self._collect()

    @property
    def in_use(self) -> bool:
        return bool(self._registered)

    def _collect(self) -> None:
        forms = {form for owned in self._registered.values() for form in owned}
        # longest first, so no form is left half-masked by a shorter one inside it
        self.forms = tuple(sorted(forms, key=len, reverse=True))

    def redact(self, text: str) -> str:
        """`text` with every registered secret masked as ***."""
        return redact_secrets(text, self.forms)

    def filter(self, record: logging.LogRecord) -> bool:
        forms = self.forms
        if not forms:
            return True
        try:
            message = record.getMessage()
        except Exception:  # a record that cannot be formatted: logging would print its raw parts, so mask those
            message = f"{record.msg} {record.args}"
        redacted = redact_secrets(message, forms)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


def http_loggers() -> list[logging.Logger]:
    """HTTP_LOGGERS plus any other httpx/httpcore logger that exists by now."""
    names = set(HTTP_LOGGERS) | {
        name for name in logging.Logger.manager.loggerDict if name.startswith(("httpx.", "httpcore."))
    }
    return [logging.getLogger(name) for name in sorted(names)]


def installed_filter(loggers: Iterable[logging.Logger]) -> SecretLogFilter | None:
    """The SecretLogFilter already on one of `loggers`, if any."""
    for logger in loggers:
        for candidate in logger.filters:
            if isinstance(candidate, SecretLogFilter):
                return candidate
    return None


class HttpLogRedaction:
    """One owner's secrets, masked in the HTTP loggers' records from construction until `close()`.

    Without any secret it touches no logger.
    """

    def __init__(self, secrets: Iterable[str | None]) -> None:
        wanted = [secret for secret in secrets if secret]
        self._filter: SecretLogFilter | None = None
        if not wanted:
            return
        loggers = http_loggers()
        shared = installed_filter(loggers) or SecretLogFilter()
        shared.register(self, wanted)
        for logger in loggers:
            logger.addFilter(shared)  # logging adds a filter once, however often it is asked
        self._filter = shared

    def close(self) -> None:
        """Take this owner's secrets back; the last owner takes the filter off the loggers (idempotent)."""
        shared, self._filter = self._filter, None
        if shared is None:
            return
        shared.unregister(self)
        if not shared.in_use:
            for logger in http_loggers():
                logger.removeFilter(shared)


def log_secrets(settings: Settings, engines: Iterable[EngineSettings]) -> list[str | None]:
    """What the HTTP client's log lines must never show: every engine key (`engines`: their settings), and every
    proxy URL in use with its password (the reader's included: its fetches log through httpcore as well)."""
    network, read, each = settings.network.proxy, settings.read, list(engines)
    proxies = [effective_proxy(engine.proxy, network) for engine in each]
    proxies += [effective_proxy(read.proxy, network), effective_proxy(read.jina_proxy, network)]
    passwords = [urlsplit(url).password for url in proxies if url]
    return [*(engine.key() for engine in each), *proxies, *passwords]
