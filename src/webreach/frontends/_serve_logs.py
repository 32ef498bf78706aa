"""`webreach serve` logging: --log-level, --access-log and --log-format text|json, with secrets masked everywhere.

One stderr handler takes every logger the server writes through (uvicorn, its access log, webreach, httpx, the
MCP SDK), formatted as text or as one JSON object per line:

    {"time": "2026-11-23T23:50:01.123Z", "level": "info", "logger": "uvicorn.access", "message": "...",
     "client": "127.0.0.1:51234", "method": "GET", "path": "/v1/search?q=x", "http_version": "1.1", "status": 200}

The handler's filter masks secrets in every record before it is formatted, whichever logger wrote it: every
SecretStr of the settings (engine API keys, proxy URLs with credentials, the Jina key, tokens) as written and
URL-encoded, and the value of any key-like query parameter (api_key, key, token, ...) in a logged URL, since a
client may put its own key there. Access-log records keep their fields (masked one by one), so JSON lines can
carry them as fields. Default: level warning, no access log, text.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote, quote_plus

from pydantic import BaseModel, SecretStr

from webreach.config import DIRECT

LogLevel = Literal["debug", "info", "warning", "error"]
LogFormat = Literal["text", "json"]
MASK = "***"
SECRET_PARAMETER = re.compile(
    r"(?i)([?&;](?:api[_-]?key|key|token|access[_-]?token|auth|password|secret|admin[_-]?token)=)[^&;#\s\"']*"
)
ACCESS_FIELDS = ("client", "method", "path", "http_version", "status")
LOGGERS = ("uvicorn", "uvicorn.access", "webreach", "httpx", "httpcore", "mcp")
_STDERR_HANDLER = {
    "class": "logging.StreamHandler",
    "stream": "ext://sys.stderr",
    "formatter": "main",
    "filters": ["redact"],
}


@dataclass(frozen=True)
class LogOptions:
    """How the server logs (the serve command's options)."""

    level: LogLevel = "warning"
    access_log: bool = False
    format: LogFormat = "text"


def secrets_of(model: BaseModel) -> list[str]:
    """Every SecretStr value in `model` and the models, lists and dicts inside it."""
    return sorted({secret for secret in _walk(model) if secret}, key=len, reverse=True)


def _walk(value: Any) -> Iterator[str]:
    if isinstance(value, SecretStr):
        if value.get_secret_value() != DIRECT:  # a proxy setting meaning "no proxy" is no secret (nor masked text)
            yield value.get_secret_value()
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            yield from _walk(getattr(value, name))
    elif isinstance(value, dict):
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _walk(item)


class RedactingFilter(logging.Filter):
    """Masks the given secrets and key-like query parameters in every record; never drops one."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        forms = {form for secret in secrets if secret for form in (secret, quote(secret, safe=""), quote_plus(secret))}
        self.forms = tuple(sorted(forms, key=len, reverse=True))

    def redact(self, text: str) -> str:
        for form in self.forms:
            text = text.replace(form, MASK)
        return SECRET_PARAMETER.sub(rf"\1{MASK}", text)

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and record.name == "uvicorn.access":
            record.args = tuple(self.redact(arg) if isinstance(arg, str) else arg for arg in record.args)
            return True
        try:
            message = record.getMessage()
        except Exception:  # a record that cannot be formatted: logging would print its raw parts, so mask those
            message = f"{record.msg} {record.args}"
        record.msg, record.args = self.redact(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = self.redact(logging.Formatter().formatException(record.exc_info))
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time (UTC), level, logger, message, and an access line's fields."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        line: dict[str, Any] = {
            "time": f"{stamp}.{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.name == "uvicorn.access" and isinstance(record.args, tuple) and len(record.args) == 5:
            line.update(zip(ACCESS_FIELDS, record.args, strict=True))
        if record.exc_text:
            line["exception"] = record.exc_text
        return json.dumps(line, ensure_ascii=False, default=str)


def log_config(options: LogOptions, secrets: Iterable[str]) -> dict[str, Any]:
    """The logging dictConfig uvicorn installs for the server."""
    level = options.level.upper()
    formatter: dict[str, Any] = (
        {"()": JsonFormatter}
        if options.format == "json"
        else {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}
    )
    loggers: dict[str, Any] = {name: {"handlers": ["stderr"], "level": level, "propagate": False} for name in LOGGERS}
    loggers["uvicorn.access"]["level"] = "INFO" if options.access_log else "WARNING"
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"redact": {"()": RedactingFilter, "secrets": list(secrets)}},
        "formatters": {"main": formatter},
        "handlers": {"stderr": {**_STDERR_HANDLER, "filters": ["redact"]}},  # a copy: dictConfig pops from it
        "loggers": loggers,
    }


def announcement(options: LogOptions, text: str, level: LogLevel = "info") -> str:
    """A start-up line (the server is up, a warning): as is for text logs, a JSON log line for JSON logs."""
    if options.format != "json":
        return text
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
    return json.dumps({"time": f"{stamp}Z", "level": level, "logger": "webreach.serve", "message": text})
