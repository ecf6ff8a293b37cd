"""One response's run: list MCP tools, make the scripted calls, answer, finish.

Runs as its own asyncio task, so the MCP connections it opens live and die in one task (anyio
requires that) and a background run outlives the request that started it. The HTTP handler
waits on `stored.ready` to learn whether tool listing worked before it answers a
non-background POST (the real API answers 424 then), and streams the events as they come.
"""

from __future__ import annotations

import asyncio
import json
import logging
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any

from mcptui.emulator.builder import QUOTA_MESSAGE, approx_tokens, tokenize, usage
from mcptui.emulator.script import (
    PlannedCall,
    answer,
    compact,
    default_arguments,
    input_text,
    planned_calls,
)
from mcptui.emulator.store import Store, StoredResponse
from mcptui.mcpclient.link import McpLink, McpUnavailable, request_headers, tool_entry
from mcptui.model.redaction import hide_known, redact_text, request_secrets
from mcptui.model.status import approval_responses

log = logging.getLogger("mcptui.emulator")

Json = dict[str, Any]
FLOOD_BLOCK = 2000
"""Deltas of a flood built (and sent) at a time: about half a megabyte of SSE."""


@dataclass(frozen=True)
class RunConfig:
    tool_timeout: float = 60.0
    """Seconds a tool call may take before it fails with the TaskGroup 424."""
    list_timeout: float = 30.0
    delta_delay: float = 0.01
    """Pause between streamed deltas, so a live view unfolds visibly."""
    queue_delay: float = 0.3
    """How long a background response stays queued."""
    mcp_protocol: str = "legacy"
    """The MCP era the emulator's client speaks (`McpLink`'s protocol): legacy, as OpenAI's
    client is believed to (the initialize handshake); modern (server/discover) or auto."""


def tool_list_message(server_label: str) -> str:
    return (
        f"Error retrieving tool list from MCP server: '{server_label}'. "
        "Http status code: 424 (Failed Dependency)"
    )


def tool_list_error(server_label: str) -> Json:
    """The body of the real API's 424 when it cannot list a server's tools (protocol.md §1)."""
    return {
        "error": {
            "message": tool_list_message(server_label),
            "type": "external_connector_error",
            "param": "tools",
            "code": "http_error",
        }
    }


def needs_approval(tool: Json, name: str) -> bool:
    """`require_approval`: "never", "always" (the default), or per-tool filters."""
    rule = tool.get("require_approval", "always")
    if rule == "never":
        return False
    if isinstance(rule, dict):
        for verdict in ("never", "always"):
            names = (rule.get(verdict) or {}).get("tool_names") or []
            if name in names:
                return verdict == "always"
    return True


def allowed(tool: Json, name: str) -> bool:
    rule = tool.get("allowed_tools")
    if rule is None:
        return True
    if isinstance(rule, dict):
        rule = rule.get("tool_names")
    return rule is None or name in rule


@dataclass
class Server:
    """One `mcp` tool of the request, once connected: its link and what it offers."""

    spec: Json
    link: McpLink | None = None
    tools: list[Json] | None = None
    error: str | None = None

    @property
    def label(self) -> str:
        return str(self.spec.get("server_label", ""))


class Run:
    """Drives one stored response from start to terminal event."""

    def __init__(self, stored: StoredResponse, store: Store, config: RunConfig) -> None:
        self.stored = stored
        self.store = store
        self.config = config
        self.b = stored.builder
        self.faults = stored.faults
        self.servers = [
            Server(tool)
            for tool in self.b.request.get("tools") or []
            if isinstance(tool, dict) and tool.get("type") == "mcp"
        ]
        self.outcomes: list[tuple[str, str | None, Any]] = []
        self.unknown_sent = False

    async def run(self) -> None:
        try:
            async with AsyncExitStack() as stack:
                await self._run(stack)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("emulator: response %s broke", self.b.id)
            if not self.stored.ready.done():
                self.stored.ready.set_result(
                    {
                        "error": {
                            "message": "The emulator failed while processing your request.",
                            "type": "server_error",
                            "param": None,
                            "code": "server_error",
                        }
                    }
                )
            elif self.b.status not in ("completed", "failed", "cancelled", "incomplete"):
                self.b.finish(
                    "failed",
                    error={"code": "server_error", "message": "The emulator broke; see its log."},
                )
        finally:
            self.stored.end()

    async def _run(self, stack: AsyncExitStack) -> None:
        b, background = self.b, self.stored.background
        if self.faults.insufficient_quota_stream:
            await self._out_of_quota()
            return
        if background:
            await asyncio.sleep(self.config.queue_delay)
            if self.faults.background_fail:
                self.b.finish("failed")  # as reported: no error details at all
                return
            b.set_in_progress()
            for server in self.servers:
                index = b.list_tools_started(server.label)
                await self._connect(server, stack)
                b.list_tools_ended(index, server.tools or [], server.error)
                if server.error is not None:
                    self.b.finish("failed", error={"code": "server_error", "message": server.error})
                    return
        else:
            for server in self.servers:
                await self._connect(server, stack)
                if server.error is not None:
                    self.stored.ready.set_result(tool_list_error(server.label))
                    return
            self.stored.ready.set_result(None)
            b.start()
            b.set_in_progress()
            for server in self.servers:
                index = b.list_tools_started(server.label)
                b.list_tools_ended(index, server.tools or [])
        await self._respond()

    async def _out_of_quota(self) -> None:
        """`insufficient_quota_stream`: HTTP 200, the response starts, then an `error` event
        and `response.failed`, before any tool is listed (as `openai-error.1` shows)."""
        if self.stored.background:
            await asyncio.sleep(self.config.queue_delay)
        else:
            self.stored.ready.set_result(None)
            self.b.start()
        self.b.set_in_progress()
        self.b.error_event("insufficient_quota", QUOTA_MESSAGE)
        self.b.finish("failed", error={"code": "insufficient_quota", "message": QUOTA_MESSAGE})

    def _hidden(self, line: str) -> str:
        """A log line: the request's MCP URLs and credentials are the caller's secrets."""
        return hide_known(redact_text(line, strict_urls=True), request_secrets(self.b.request))

    async def _connect(self, server: Server, stack: AsyncExitStack) -> None:
        url = server.spec.get("server_url")
        headers = request_headers(server.spec.get("headers"), server.spec.get("authorization"))
        try:
            link = McpLink(
                str(url),
                headers=headers,
                timeout=self.config.list_timeout,
                protocol=self.config.mcp_protocol,
            )
            await stack.enter_async_context(link)
            tools = await link.list_tools()
        except McpUnavailable as exc:
            log.warning(
                self._hidden(
                    f"emulator: listing tools of {server.label!r} at {url} failed: {exc.cause}"
                )
            )
            server.error = tool_list_message(server.label)
            return
        server.link = link
        server.tools = [tool_entry(t) for t in tools if allowed(server.spec, t.name)]

    # -- the scripted model ------------------------------------------------------------------

    async def _respond(self) -> None:
        req = self.b.request
        text = input_text(req.get("input"))
        approvals = approval_responses(req.get("input"))
        if approvals:
            await self._continue_approved(approvals)
        else:
            calls = planned_calls(text) or self._default_calls(text)
            pending_approval = False
            for call in calls:
                if call.pause:
                    await asyncio.sleep(call.pause)
                server = self._server_for(call.tool)
                if server is None:
                    continue
                if needs_approval(server.spec, call.tool):
                    self.b.approval_request(call.tool, call.arguments, server.label)
                    pending_approval = True
                else:
                    await self._call(server, call)
            if pending_approval:  # the model waits for the caller's approval
                self.b.finish("completed", usage_=self._usage(text))
                return
        await self._message(answer(self.outcomes))
        self.b.finish("completed", usage_=self._usage(text))

    def _default_calls(self, text: str) -> list[PlannedCall]:
        for server in self.servers:
            for tool in server.tools or []:
                arguments = default_arguments(tool.get("input_schema"), text)
                return [PlannedCall(tool["name"], compact(arguments))]
        return []

    def _server_for(self, tool_name: str) -> Server | None:
        """The server offering the tool; else the first one (a scripted call may name a tool
        nobody lists, to see what the server answers). None for a tool the request's
        `allowed_tools` leaves out: the model is not offered it."""
        for server in self.servers:
            if any(tool["name"] == tool_name for tool in server.tools or []):
                return server
        if any(not allowed(server.spec, tool_name) for server in self.servers):
            return None
        return self.servers[0] if self.servers else None

    async def _continue_approved(self, approvals: list[Json]) -> None:
        previous = self.store.get(str(self.b.request.get("previous_response_id")))
        requests = {
            item["id"]: item
            for item in (previous.builder.output if previous else [])
            if item.get("type") == "mcp_approval_request"
        }
        for approval in approvals:
            request = requests.get(str(approval.get("approval_request_id")))
            if request is None:
                continue
            if not approval.get("approve"):
                self.outcomes.append(
                    (
                        request["name"],
                        None,
                        {"type": "not_approved", "message": "the caller did not approve the call"},
                    )
                )
                continue
            server = self._server_for(request["name"])
            if server is not None:
                await self._call(
                    server,
                    PlannedCall(request["name"], request["arguments"]),
                    approval_request_id=request["id"],
                )

    async def _call(
        self, server: Server, call: PlannedCall, approval_request_id: str | None = None
    ) -> None:
        b, docs = self.b, self.faults.docs_event_names
        index = b.call_started(call.tool, server.label, approval_request_id)
        if self.faults.unknown_event and not self.unknown_sent:
            self.unknown_sent = True
            b.emit(
                "response.mcp_call.progress",
                output_index=index,
                item_id=b.output[index]["id"],
                progress=0.0,
                message="calling tool",
            )
        await asyncio.sleep(self.config.delta_delay)
        b.call_argument_delta(index, call.arguments, docs_names=docs)  # one delta, as the API
        b.call_arguments_done(index, docs_names=docs)
        assert server.link is not None
        outcome = await server.link.call(
            call.tool, _loads(call.arguments), timeout=self.config.tool_timeout
        )
        if outcome.error is not None:
            log.warning(
                self._hidden(
                    f"emulator: {call.tool} on {server.label!r} failed after "
                    f"{outcome.seconds:.2f} s: {outcome.error} (cause: {outcome.cause})"
                )
            )
        b.call_ended(index, output=outcome.output, error=outcome.error)
        self.outcomes.append((call.tool, outcome.output, outcome.error))

    async def _message(self, text: str) -> None:
        index = self.b.message_started()
        if self.faults.flood is not None:
            await self._flood(index, tokenize(text) or [text or "."], self.faults.flood)
            self.b.message_ended(index)
            return
        for token in tokenize(text):
            await asyncio.sleep(self.config.delta_delay)
            self.b.message_delta(index, token)
        self.b.message_ended(index)

    async def _flood(self, index: int, tokens: list[str], count: int) -> None:
        """`flood:N`: N deltas with no pause, built a block at a time (the stream sends each
        block while the next is built)."""
        done = 0
        while done < count:
            done = self.b.message_flood(index, tokens, min(FLOOD_BLOCK, count - done), done)
            await asyncio.sleep(0)

    def _usage(self, text: str) -> Json:
        produced = sum(approx_tokens(item) for item in self.b.output)
        return usage(approx_tokens(text) + 200, produced)


def _loads(arguments: str) -> Json:
    value = json.loads(arguments or "{}")
    return value if isinstance(value, dict) else {}
