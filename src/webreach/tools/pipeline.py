"""The tool-call pipeline: every door's tool call runs through Toolbox.run, the one place per-call policy runs.

    tools = Toolbox.over(gateway)
    result = await tools.call("web_search", '{"query": "rust async"}', session="s1")
    result.text  # compact text with numbered refs; result.is_error / result.data for errors and JSON output

A call is a CallContext (tool, arguments, session, caller identity, idempotency key, output format). The pipeline
finds the tool, picks the store session (tools/call_session.py: the named session, else the caller's, else the
default), decodes and validates the arguments and plans the call (the same text once: tools/planned_calls.py; all
before any
upstream request, so a refused input costs nothing), then runs the CallPolicies (quotas, credits, idempotency:
each wraps the rest of the call) around the tool's handler. The handler searches or reads through the Gateway and
remembers or resolves refs in the session store; the result is rendered in the asked-for output.

`run` never raises a WebreachError: bad arguments, unknown tools, engine failures and unknown refs all come back
as a ToolResult holding the agent error body ({"status": "error", "tool", "code", "message", "retry_after"}).
Anything else escaping is a bug and propagates.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable, Collection, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from webreach.errors import InvalidInputError, WebreachError, error_body
from webreach.state.sessions import SessionStore
from webreach.telemetry import Tracing
from webreach.tools import render
from webreach.tools.aliases import ALIAS_SETS, alias_tools
from webreach.tools.arguments import check_depth, check_json_depth
from webreach.tools.backend import OUTPUT_FORMATS, OutputFormat, ToolBackend, ToolResult
from webreach.tools.call_session import DEFAULT_SESSION, store_session
from webreach.tools.definitions import (
    TOOLS,
    ToolCall,
    ToolDefinition,
)
from webreach.tools.drop_in import Surfaces, surface
from webreach.tools.planned_calls import Planned, PlannedCalls, memo_key
from webreach.tools.profiles import PROFILE_NUMBERS, shaped
from webreach.tools.schemas import Dialect, tool_schemas

if TYPE_CHECKING:
    from webreach.gateway import Gateway


# CallContext and PreparedCall are built for every call and never changed once built (the policies only read them):
# not frozen, since a frozen dataclass sets each field through object.__setattr__ (timeit, min of 5 on a loaded
# machine: a CallContext built in 3.0 us frozen, 1.7 us with slots)
@dataclass(slots=True, kw_only=True)
class CallContext:
    """One tool call as a door received it.

    `session` is the session the client named (None: none; tools/call_session.py picks the store session);
    `caller` is who made it (an agent's identity once accounts exist; None for an anonymous local caller);
    `idempotency_key` lets a retried call be recognised as the same call; `extra` holds an operator's door's
    options beyond the tool's schema (the CLI's --region, --safesearch and --engines for the searches, --reader for
    web_fetch): request fields the request model checks like any other, never offered to agents.
    """

    tool: str
    arguments: Mapping[str, Any] | str | None
    session: str | None = None
    output: OutputFormat = "compact"
    caller: str | None = None
    idempotency_key: str | None = None
    extra: Mapping[str, Any] | None = None


@dataclass(slots=True, kw_only=True)
class PreparedCall:
    """A call whose tool, session and arguments were checked: what a CallPolicy sees."""

    context: CallContext
    tool: ToolDefinition
    plan: Any  # what the tool's handler takes (its arguments, planned: tools/definitions.py)
    session: str  # the store session the call's refs live in (tools/call_session.py)
    arguments: Mapping[str, Any]  # as the door sent them, decoded once (the idempotency fingerprint reads them)
    # whether the call is answered now with nothing upstream to pay for (ToolDefinition.at_once; None: never)
    at_once: Callable[[], bool] | None = None


SESSIONS_KEPT = 1024  # (session, caller) pairs whose store session a Toolbox remembers
Proceed = Callable[[], Awaitable[ToolResult]]
# runs a blocking lookup off the event loop (Accounts.off_loop: the ledger's worker thread)
Offload = Callable[[Callable[[str], Mapping[str, Any]], str], Awaitable[Mapping[str, Any]]]


class CallPolicy(Protocol):
    """Per-call policy around the upstream work of one checked call: it may refuse (raise a WebreachError),
    call `proceed` once, and look at or replace its result."""

    async def __call__(self, call: PreparedCall, proceed: Proceed) -> ToolResult: ...


class Toolbox:
    """The agent tools over one backend (the Gateway): their schemas, and calls through one pipeline."""

    def __init__(
        self,
        backend: ToolBackend,
        sessions: SessionStore | None,
        *,
        enabled: Collection[str] | None = None,
        policies: Sequence[CallPolicy] = (),
        profile: Callable[[str], Mapping[str, Any]] | None = None,
        known_profile: Callable[[str], Mapping[str, Any] | None] | None = None,
        alias_set: str | None = None,
        tool_profile: str | None = None,
        offload: Offload | None = None,
        on_result: Callable[[ToolResult], None] | None = None,
        tracing: Tracing | None = None,
    ) -> None:
        """`sessions` maps refs to URLs (None: results show URLs and refs are refused); `enabled` limits which
        tools exist here (None: all); `policies` run around every checked call, the first outermost; `profile`
        gives a caller's tool profile (tools/profiles.py: the tools it sees, its result and window sizes);
        `alias_set` exposes another system's tool names beside ours (tools/aliases.py), `tool_profile` another
        stack's tools instead of ours (tools/drop_in.py); `offload` runs a blocking
        lookup (the profile: a database read) off the event loop (None: inline), unless `known_profile` (no I/O: a
        profile read in the last seconds, else None) has it; `on_result` hears every call's
        result, errors included (the server's metrics); it must not raise or block; `tracing` makes an
        `execute_tool` span per call (None: none, telemetry.py)."""
        self.tools = {tool.name: tool for tool in surface(enabled, alias_set, tool_profile)}  # unknown names fail here
        # an agent whose profile names a surface (a drop-in profile) sees that profile's tools instead
        self.surfaces = Surfaces()  # each built on first use (tools/drop_in.py)
        self.backend = backend
        self.engines = tuple(backend.engine_names())  # the registry's: fixed for the backend's life
        self.sessions = sessions
        self.enabled = enabled
        self.tool_profile = tool_profile
        self._policies = tuple(policies)
        self._profile = profile
        self._known_profile = known_profile
        self._offload = offload
        self._on_result = on_result
        self._tracing = tracing
        self._plans = PlannedCalls()
        self._sessions: dict[tuple[str | None, str | None], str] = {}  # (named, caller) -> store session

    @classmethod
    def over(cls, gateway: Gateway, *, policies: Sequence[CallPolicy] = ()) -> Toolbox:
        """The tools over `gateway`, with its session store, the tools its settings enable and, with accounts
        enabled, each agent's tool profile."""
        accounts = gateway.accounts
        profile, known = (accounts.profile, accounts.known_profile) if accounts.enabled else (None, None)
        config = gateway.settings.tools
        return cls(
            gateway, gateway.sessions, enabled=config.enabled, policies=policies, profile=profile,
            known_profile=known, alias_set=config.alias_set, tool_profile=config.profile, offload=accounts.off_loop,
            tracing=gateway.tracing,
        )  # fmt: skip

    def schemas(
        self,
        dialect: Dialect,
        *,
        strict: bool = False,
        visible: Collection[str] | None = None,
        surface: str | None = None,
        exact: bool = False,
        served: bool = False,
    ) -> list[dict[str, Any]]:
        """The exposed tools' schemas in an agent framework's dialect (mcp, openai, openai-responses, anthropic);
        with `visible` (`await visible_tools(caller)`), only those tools; with `surface`, that drop-in profile's
        tools instead of this toolbox's own (an agent's profile names it: `await surface_of(caller)`); `exact`:
        what a validator checks rather than the lean definitions a model reads (tools/schemas.py); `served`: the
        opt-in tools too (what REST serves, beside what a model is offered)."""
        offered = self.tools if surface is None else self.surfaces[surface]
        named = surface is not None
        tools = [tool for tool in offered.values() if self._listed(tool, visible, served=served, named=named)]
        return tool_schemas(dialect, engines=self.engines, strict=strict, tools=tools, exact=exact)

    def _listed(self, tool: ToolDefinition, visible: Collection[str] | None, *, served: bool, named: bool) -> bool:
        """Whether `tool` is listed: where it is named ([tools] enabled, the caller's profile or its surface),
        else unless it is hidden or (not `served`) opt-in."""
        if visible is not None:
            return tool.name in visible
        return self.enabled is not None or named or not (tool.hidden or (tool.opt_in and not served))

    async def visible_tools(self, caller: str | None) -> Collection[str] | None:
        """The tools `caller` sees (None: every tool this toolbox exposes); its profile is read off the loop."""
        profile = await self._profile_of(caller)
        shown, offered = profile.get("tools"), self._tools_for(profile)
        if shown is None:
            visible = None if self.enabled is None and offered is self.tools else list(offered)
        else:
            visible = [name for name in offered if name in shown]
        unoffered = {n for n, tool in offered.items() if tool.offered is not None and not tool.offered(self.backend)}
        if not unoffered:
            return visible
        return [name for name in (offered if visible is None else visible) if name not in unoffered]

    async def surface_of(self, caller: str | None) -> str | None:
        """The drop-in profile `caller`'s agent profile names (None: this toolbox's own tools)."""
        surface: str | None = (await self._profile_of(caller)).get("surface")
        return surface if surface in self.surfaces else None

    async def caller_schemas(self, dialect: Dialect, caller: str | None) -> list[dict[str, Any]]:
        """The schemas `caller` is shown: its surface's tools, those its profile lists."""
        surface = await self.surface_of(caller)
        return self.schemas(dialect, visible=await self.visible_tools(caller), surface=surface)

    def _tools_for(self, profile: Mapping[str, Any]) -> Mapping[str, ToolDefinition]:
        """The tools a caller with `profile` can call: its surface's (a drop-in profile), else this toolbox's."""
        surface = profile.get("surface")
        return self.surfaces.get(surface, self.tools) if isinstance(surface, str) else self.tools

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | None,
        *,
        session: str | None = None,
        output: OutputFormat = "compact",
        caller: str | None = None,
        idempotency_key: str | None = None,
    ) -> ToolResult:
        """Run tool `name` with `arguments` (a dict, or the JSON text an OpenAI-style tool call carries)."""
        context = CallContext(
            tool=name,
            arguments=arguments,
            session=session,
            output=output,
            caller=caller,
            idempotency_key=idempotency_key,
        )
        return await self.run(context)

    def run(self, context: CallContext) -> Coroutine[Any, Any, ToolResult]:
        """The pipeline: check, then policies around the handler; errors come back rendered. Untraced, this is the
        pipeline's own coroutine (one coroutine layer fewer per call: about a microsecond of a cached REST search)."""
        return self._run(context) if self._tracing is None else self._traced(context, self._tracing)

    async def _traced(self, context: CallContext, tracing: Tracing) -> ToolResult:
        """`_run` in an `execute_tool` span (OpenTelemetry GenAI conventions); a made-up tool name is "unknown"."""
        name = context.tool if context.tool in self.tools else "unknown"
        attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.type": "function"}
        with tracing.span(f"execute_tool {name}", attributes) as span:
            result = await self._run(context)
            if result.error is not None:
                span.set_attribute("error.type", result.error.code)
                span.set_status(tracing.error_status())
            if result.cost is not None:
                span.set_attribute("webreach.credits_charged", int(result.cost.get("charged") or 0))
            return result

    async def _run(self, context: CallContext) -> ToolResult:
        if context.output not in OUTPUT_FORMATS:
            raise ValueError(f"output must be one of {', '.join(OUTPUT_FORMATS)}, not {context.output!r}")
        offered: Mapping[str, ToolDefinition] = self.tools
        try:
            # no caller or no profiles: no coroutine to await (the common case of a server without keys)
            profile = {} if context.caller is None or self._profile is None else await self._profile_of(context.caller)
            offered = self._tools_for(profile) if profile else self.tools
            prepared = self._prepare(context, profile, offered)
            call = ToolCall(context.tool, self.backend, self.sessions, prepared.session, context.output, context.extra)
            proceed: Proceed = lambda: prepared.tool.handler(call, prepared.plan)  # noqa: E731
            for policy in reversed(self._policies):
                proceed = _wrapped(policy, prepared, proceed)
            result = await proceed()
        except WebreachError as exc:
            tool = offered.get(context.tool)
            if tool is not None and tool.error_text is not None:  # a contract's own error shape (tools/drop_in.py)
                result = ToolResult(tool=context.tool, text=tool.error_text(context.tool, exc), is_json=True, error=exc)
            else:
                result = error_result(context.tool, exc, output="json" if tool and tool.alias_of else context.output)
        if self._on_result is not None:  # every call's result, as it is answered (the server's metrics)
            self._on_result(result)
        return result

    def _find(self, name: str, offered: Mapping[str, ToolDefinition]) -> ToolDefinition:
        tool = offered.get(name)
        if tool is None and (self.tool_profile is not None or offered is not self.tools):
            shown = ", ".join(name for name, tool in offered.items() if not tool.hidden)
            raise InvalidInputError(f"unknown tool {name!r}", hint=f"Available tools: {shown}.")
        if tool is None:
            # raises the error naming the tools that can be called (a hidden one only where enabled names it)
            find_tool(name, [tool.name for tool in self.tools.values() if self.enabled is not None or not tool.hidden])
            raise AssertionError(name)
        return tool

    async def _profile_of(self, caller: str | None) -> Mapping[str, Any]:
        """`caller`'s tool profile ({} for none), read off the event loop where an `offload` is given."""
        if caller is None or self._profile is None:
            return {}
        known = self._known_profile(caller) if self._known_profile is not None else None
        if known is not None:
            return known
        if self._offload is None:
            return self._profile(caller)
        return await self._offload(self._profile, caller)

    def _prepare(
        self, context: CallContext, profile: Mapping[str, Any], offered: Mapping[str, ToolDefinition]
    ) -> PreparedCall:
        tool = self._find(context.tool, offered)
        # before searching, so a bad session name costs no engine call
        session = self._store_session(context.session, context.caller) if self.sessions is not None else DEFAULT_SESSION
        raw, arguments, plan = self._planned(tool, context.arguments)
        if profile and any(key in profile for key in PROFILE_NUMBERS):
            # null means the default (ToolArguments), so a null limit takes the profile's default too
            arguments = shaped(arguments, profile, [name for name, value in raw.items() if value is not None])
            plan = tool.prepare(arguments, self.engines)
        # an operator door's extra fields change the requests the handler makes: those are never taken at once
        at_once = None if tool.at_once is None or context.extra else functools.partial(tool.at_once, self.backend, plan)
        return PreparedCall(context=context, tool=tool, plan=plan, session=session, arguments=raw, at_once=at_once)

    def _store_session(self, session: str | None, caller: str | None) -> str:
        """store_session(), remembered per (session, caller) for the last SESSIONS_KEPT pairs: a name is checked
        against the store's rules twice per call otherwise (two regex matches, 4% of a cached REST call in
        cProfile); a refused name is never kept, so it is refused every time."""
        known = self._sessions.get((session, caller))
        if known is None:
            known = store_session(session, caller)
            if len(self._sessions) >= SESSIONS_KEPT:
                self._sessions.clear()
            self._sessions[session, caller] = known
        return known

    def _planned(self, tool: ToolDefinition, given: Mapping[str, Any] | str | None) -> Planned:
        """The call's arguments decoded (once: nowhere else), validated and planned; the same text is planned once
        (tools/planned_calls.py), and so is the same JSON given as a mapping (MCP)."""
        key = memo_key(given)
        if key is not None:
            known = self._plans.get(tool, key)
            if known is not None:
                return known
        raw = decode_arguments(given if key is None else key)  # a mapping's own text: what is kept is a copy
        arguments = tool.arguments.parse(raw)
        planned = Planned(raw, arguments, tool.prepare(arguments, self.engines))
        if key is not None:
            self._plans.put(tool, key, planned)
        return planned


def _wrapped(policy: CallPolicy, prepared: PreparedCall, proceed: Proceed) -> Proceed:
    return lambda: policy(prepared, proceed)


def error_result(tool: str, error: WebreachError, *, output: OutputFormat = "json") -> ToolResult:
    """A failed call as the agent sees it (compact output leaves out the per-attempt log)."""
    body = error_body(error, tool=tool, detail=output == "json")
    return ToolResult(tool=tool, text=render.to_text(body), is_json=True, error=error)


def find_tool(name: str, enabled: Collection[str] | None = None) -> ToolDefinition:
    """The enabled tool called `name` (a native tool first, else an alias of any set), else InvalidInputError
    listing the ones that can be called."""
    # a hidden tool is in no list, but callable by name where no [tools] enabled list says otherwise: operators'
    # code (REST multipart, `webreach image add`) calls image_upload that way
    every = [*TOOLS, *(alias for set_name in ALIAS_SETS for alias in alias_tools(set_name))]
    tools = every if enabled is None else [tool for tool in every if tool.name in enabled]
    for tool in tools:
        if tool.name == name:
            return tool
    known = any(tool.name == name for tool in every)
    message = f"tool {name!r} is not enabled here" if known else f"unknown tool {name!r}"
    shown = ", ".join(dict.fromkeys(tool.name for tool in tools if not tool.hidden or enabled is not None))
    raise InvalidInputError(message, hint=f"Available tools: {shown}.")


def parse_arguments(tool: ToolDefinition, arguments: Mapping[str, Any] | str | None) -> Any:
    """The tool's arguments model from a mapping or JSON text; InvalidInputError says what is wrong."""
    return tool.arguments.parse(decode_arguments(arguments))


def decode_arguments(arguments: Mapping[str, Any] | str | None) -> Mapping[str, Any]:
    """Arguments as a mapping: None and "" are no arguments; text must be a JSON object. Text is decoded here and
    nowhere else in a call (Toolbox.run keeps the mapping). Nesting is bounded before anything decodes text
    (tools/arguments.py check_json_depth, so what it decodes to needs no walk); a mapping is walked (check_depth)."""
    if arguments is None:
        return {}
    if isinstance(arguments, str):
        if not arguments.strip():
            return {}
        check_json_depth(arguments)
        try:
            decoded = json.loads(arguments)
        except ValueError as exc:
            raise InvalidInputError(f"arguments are not valid JSON: {exc}", hint="Send a JSON object.") from None
    else:
        decoded = arguments
    if not isinstance(decoded, Mapping):
        raise InvalidInputError("arguments must be a JSON object", hint='Send e.g. {"query": "..."}.')
    if decoded is arguments:
        check_depth(decoded)
    return decoded
