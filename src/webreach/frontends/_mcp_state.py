"""The MCP door's start-up state: the tools a server's lifespan opens (in the background over stdio, so `initialize`
is answered first), awaited by the requests that need them, and the typed failure that kept them from opening.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING

import anyio
from mcp import types
from mcp.shared.exceptions import MCPError

from webreach.errors import WebreachError, error_body

if TYPE_CHECKING:
    from webreach.tools import Toolbox


class McpState:
    """What the server's lifespan yields: the tools over the gateway, as MCP lists them, once opened (`ready`), and
    the session every call names unless it names its own (None: none, so the caller's or the default)."""

    def __init__(self, default_session: str | None, default_agent: str | None = None) -> None:
        self.default_session = default_session
        self.default_agent = default_agent
        self.tools: list[types.Tool] = []
        self._toolbox: Toolbox | None = None
        self._failure: WebreachError | None = None
        self._settled = anyio.Event()

    @property
    def toolbox(self) -> Toolbox:
        if self._toolbox is None:
            raise RuntimeError("the tools are not open yet: await McpState.ready() first")
        return self._toolbox

    def opened(self, toolbox: Toolbox, tools: list[types.Tool]) -> None:
        self._toolbox, self.tools = toolbox, tools
        self._settled.set()

    def failed(self, failure: WebreachError) -> None:
        self._failure = failure
        self._settled.set()

    async def ready(self) -> McpState:
        """This state once its tools are open. Else the error that kept them from opening (a bad configuration),
        as the JSON-RPC error of every request that needs them (its agent body as the data)."""
        if not self._settled.is_set():
            await self._settled.wait()
        if self._failure is not None:
            raise MCPError(types.INTERNAL_ERROR, str(self._failure), error_body(self._failure))
        return self


@contextlib.asynccontextmanager
async def noting_failure(
    opening: AbstractAsyncContextManager[Toolbox], failures: list[WebreachError]
) -> AsyncIterator[Toolbox]:
    """`opening`, its typed failure to open noted in `failures`."""
    try:
        toolbox = await opening.__aenter__()
    except WebreachError as failure:
        failures.append(failure)
        raise
    try:
        yield toolbox
    except BaseException as exc:
        if not await opening.__aexit__(type(exc), exc, exc.__traceback__):
            raise
    else:
        await opening.__aexit__(None, None, None)
