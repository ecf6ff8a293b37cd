"""What the reducer builds: responses, their output items, and the events each one owns.

These are plain mutable objects changed only by the reducer (through its undo journal), so the
same objects serve a live run, a replay and stepping backwards. Texts are kept as lists of delta
chunks and joined on demand: appending is O(1) per delta and popping undoes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcptui.model.errors import describe_error
from mcptui.model.jsonsafe import loads

TERMINAL_STATUSES = frozenset({"completed", "failed", "incomplete", "cancelled"})
"""Statuses after which a response or an item changes no more."""
OPENAI_TOOL_TIMEOUT = 60.0
"""OpenAI's time limit for a tool call: about 60 s, undocumented."""


@dataclass(slots=True, eq=False)
class ItemState:
    """One output item of a response, keyed by `output_index` and `item_id`."""

    key: int
    """Position among the response's items, in order of first appearance."""
    response_key: int = 0
    """The owning response's `key`."""
    output_index: int | None = None
    item_id: str | None = None
    type: str = "unknown"
    name: str | None = None
    """The MCP tool (or function) name, when the item has one."""
    server_label: str | None = None
    status: str = "in_progress"
    added: dict[str, Any] | None = field(default=None, repr=False)
    """The item as `output_item.added` announced it."""
    final: dict[str, Any] | None = field(default=None, repr=False)
    """The item as `output_item.done` (or the terminal response) delivered it."""
    error: Any = None
    """The item's error exactly as sent: a string or an object (protocol.md §2)."""
    text_parts: list[str] = field(default_factory=list, repr=False)
    text_done: str | None = field(default=None, repr=False)
    argument_parts: list[str] = field(default_factory=list, repr=False)
    arguments_done: str | None = field(default=None, repr=False)
    reasoning_parts: list[str] = field(default_factory=list, repr=False)
    events: list[int] = field(default_factory=list, repr=False)
    """Indexes of the timeline events that concern this item, in order."""
    first_t: float | None = None
    last_t: float | None = None
    from_snapshot: bool = False
    """True when the item came from a Response object, with no event timeline."""
    answer: bool | None = None
    """For an `mcp_approval_request`: approved (True) or denied by a later request."""

    @property
    def failed(self) -> bool:
        return self.status == "failed" or (self.error is not None and self.error != "")

    @property
    def error_text(self) -> str:
        return describe_error(self.error)

    @property
    def text(self) -> str:
        """The message text assembled so far (deltas), or the final text when no deltas came."""
        if self.text_parts:
            return "".join(self.text_parts)
        if self.text_done is not None:
            return self.text_done
        return _content_text(self.final or self.added)

    @property
    def arguments(self) -> str:
        """The tool-call arguments assembled so far, or as the final item carried them."""
        if self.argument_parts:
            return "".join(self.argument_parts)
        if self.arguments_done is not None:
            return self.arguments_done
        for source in (self.final, self.added):
            if source and isinstance(source.get("arguments"), str):
                return source["arguments"]
        return ""

    @property
    def reasoning(self) -> str:
        if self.reasoning_parts:
            return "".join(self.reasoning_parts)
        summary = (self.final or self.added or {}).get("summary")
        if isinstance(summary, list):
            return "\n".join(str(s.get("text", "")) for s in summary if isinstance(s, dict))
        return ""

    @property
    def output(self) -> Any:
        """The tool's output as the final item carried it (a string for `mcp_call`)."""
        return (self.final or {}).get("output")

    @property
    def lists_tools(self) -> bool:
        """For `mcp_list_tools`: whether the item says what was listed (a paste that cut its
        `tools` out does not: Node's `[Object]`)."""
        return isinstance((self.final or self.added or {}).get("tools"), list)

    @property
    def tool_names(self) -> list[str]:
        """For `mcp_list_tools`: the listed tools' names."""
        tools = (self.final or self.added or {}).get("tools")
        if not isinstance(tools, list):
            return []
        return [str(t.get("name")) for t in tools if isinstance(t, dict)]

    @property
    def duration(self) -> float | None:
        if self.first_t is None or self.last_t is None:
            return None
        return self.last_t - self.first_t


@dataclass(slots=True, eq=False)
class ResponseState:
    """One response: a stream from `response.created` to its terminal event."""

    key: int
    id: str | None = None
    status: str | None = None
    model: str | None = None
    tools: list[Any] = field(default_factory=list, repr=False)
    """The requested tools as the response echoed them, redacted."""
    usage: dict[str, Any] | None = field(default=None, repr=False)
    error: Any = None
    """`response.error` from a terminal `response.failed`."""
    tool_timeout: float | None = None
    """The tool time limit its metadata names (the emulator's `--tool-timeout`); None for the
    real API, whose ~60 s applies."""
    incomplete_reason: str | None = None
    """`incomplete_details.reason` of an incomplete response (`max_output_tokens`, …)."""
    background: bool | None = None
    previous_response_id: str | None = None
    items: list[ItemState] = field(default_factory=list, repr=False)
    by_output_index: dict[int, ItemState] = field(default_factory=dict, repr=False)
    by_item_id: dict[str, ItemState] = field(default_factory=dict, repr=False)
    events: list[int] = field(default_factory=list, repr=False)
    """Indexes of response-level events (`response.*`, `error`, notes, orphans)."""
    error_events: list[int] = field(default_factory=list, repr=False)
    """Indexes of `error` events and error notes."""
    wire: list[int] = field(default_factory=list, repr=False)
    """Indexes of the MCP messages a tap saw for it (mcptui/model/wire.py ties them to items)."""
    first_t: float | None = None
    last_t: float | None = None
    last_sequence: int | None = None
    created_seen: bool = False

    @property
    def duration(self) -> float | None:
        if self.first_t is None or self.last_t is None:
            return None
        return self.last_t - self.first_t

    @property
    def tool_limit(self) -> float:
        """The tool time limit that applied: the one its metadata names, else OpenAI's."""
        return self.tool_timeout or OPENAI_TOOL_TIMEOUT

    @property
    def emulated(self) -> bool:
        """Made by mcptui's emulator on this machine, which names its limit in every
        response's metadata (the real API names none): private server URLs reach it."""
        return self.tool_timeout is not None

    @property
    def failed(self) -> bool:
        return self.status == "failed" or self.error is not None or self.request_failed

    @property
    def request_failed(self) -> bool:
        """No response came back: only notes, at least one of them an error (HTTP 4xx...)."""
        return self.id is None and bool(self.error_events)

    @property
    def name(self) -> str:
        if self.id:
            return self.id
        if self.request_failed:
            return "no response: the request failed"
        if self.wire and not self.created_seen and not self.events and not self.items:
            return "MCP traffic (tap)"
        return "response (no id yet)"


@dataclass(slots=True, eq=False)
class SessionState:
    """Everything folded so far: the responses in order, and notes before any response."""

    responses: list[ResponseState] = field(default_factory=list)

    @property
    def current(self) -> ResponseState | None:
        return self.responses[-1] if self.responses else None


def _content_text(item: dict[str, Any] | None) -> str:
    if not item:
        return ""
    content = item.get("content")
    if not isinstance(content, list):
        return ""
    texts = []
    for part in content:
        if isinstance(part, dict):
            text = part.get("text", part.get("refusal"))
            if isinstance(text, str):
                texts.append(text)
    return "".join(texts)


def parse_json_text(text: str) -> Any:
    """Arguments and outputs are JSON text when well-formed; otherwise the text itself."""
    try:
        return loads(text)
    except (ValueError, TypeError):
        return text


def mcp_entries(request: Any) -> list[dict[str, Any]]:
    """A request's (or a response's echoed) `{"type": "mcp", ...}` tool entries; nothing for
    a malformed `tools`. (Here, not with the causes that use it most: the first screen asks
    it whether a failed call can be probed, before the checks' modules are loaded.)"""
    tools = request.get("tools") if isinstance(request, dict) else None
    if not isinstance(tools, list):
        return []
    return [t for t in tools if isinstance(t, dict) and t.get("type") == "mcp"]
