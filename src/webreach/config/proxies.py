"""The outbound-proxy rule every settings section shares: the form a proxy setting takes ("direct" or
scheme://[user:password@]host[:port]), which proxy one path uses, and how a proxy is shown (credentials never)."""

from __future__ import annotations

from typing import TypeVar
from urllib.parse import urlsplit

from pydantic import BaseModel, SecretStr

DIRECT = "direct"  # a path's proxy setting that means "no proxy here", over [network] proxy
PROXY_SCHEMES = ("http", "https", "socks5", "socks5h")


M = TypeVar("M", bound=BaseModel)


def check_proxies(model: M, *fields: str) -> M:
    """`model` when each proxy field in `fields` is well formed (check_proxy). Checked on the built model, so a
    refusal's input is the model, whose repr masks secrets (a field validator's would be the password itself)."""
    for name in fields:
        value = getattr(model, name)
        if value is not None and not check_proxy(value.get_secret_value()):
            raise ValueError(
                f"{name}: a proxy must be a URL like http://127.0.0.1:3128, https://proxy.example:443 or "
                'socks5://user:password@127.0.0.1:1080 (scheme, host and port only), or "direct" for none'
            )
    return model


def check_proxy(text: str) -> bool:
    """Whether `text` is a proxy setting: "direct" or scheme://[user:password@]host[:port] with no path."""
    text = text.strip()
    if text == DIRECT:
        return True
    try:
        parts = urlsplit(text)
        host, _ = parts.hostname, parts.port  # a port that is not a number raises here
    except ValueError:
        host = None
    return host is not None and parts.scheme in PROXY_SCHEMES and parts.path in ("", "/") and not parts.query


def effective_proxy(own: SecretStr | None, default: SecretStr | None) -> str | None:
    """The proxy URL one outbound path uses: its own setting, else [network] proxy; "direct" means none."""
    chosen = own if own is not None else default
    text = chosen.get_secret_value().strip() if chosen is not None else ""
    return None if not text or text == DIRECT else text


def shown_proxy(text: str) -> str:
    """A proxy setting as pages, answers and logs may show it: scheme://host:port, credentials as *** (never a
    character of them); "direct" as itself; anything else only as "set (hidden)"."""
    text = text.strip()
    if text == DIRECT or not check_proxy(text):
        return text if text == DIRECT else "set (hidden)"
    parts = urlsplit(text)
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    port = f":{parts.port}" if parts.port is not None else ""
    return f"{parts.scheme}://{'***@' if '@' in parts.netloc else ''}{host}{port}"
