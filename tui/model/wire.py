"""What a tap saw on an MCP server's wire, paired up and tied to the output items it concerns.

A tap (tui/capture/tap.py) records each JSON-RPC message as a note; the reducer gives each to
its response (`ResponseState.wire`). Here requests are paired with what answered them (a
result, a JSON-RPC error, an HTTP failure, a broken connection) and each exchange is tied to
its item: a `tools/list` to the `mcp_list_tools` item of that server, a `tools/call` to the
`mcp_call` with the same tool name and arguments (the n-th such call to the n-th such item, so
order breaks ties). What fits no item (initialize, notifications, the event stream, retries)
stays with the response. Linking is recomputed from the state, never stored: a listing seen
before its item arrives is tied to it once the item is there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from tui.model.events import ARGUMENT_DONE, Event
from tui.model.results import bad_blocks, block_problem, structured_problem
from tui.model.state import ItemState, ResponseState, parse_json_text


@dataclass(slots=True, eq=False)
class WireExchange:
    """One JSON-RPC request and what answered it; or one message that asks for nothing."""

    notes: list[int]
    """Timeline indexes: the request (or the lone message) first, then its answers."""
    method: str | None = None
    tool: str | None = None
    arguments: Any = None
    labels: tuple[str, ...] = ()
    """The server labels the tap named (`mcptui run --tap`); empty for a standalone tap."""
    sent_t: float | None = None
    request: dict[str, Any] | None = None
    answer: dict[str, Any] | None = None
    """The JSON-RPC answer: `{"result": …}` or `{"error": …}`."""
    answered_t: float | None = None
    failure: dict[str, Any] | None = None
    """The tap's note of an HTTP failure or broken connection in place of an answer."""

    @property
    def answered(self) -> bool:
        return self.answer is not None or self.failure is not None

    @property
    def result(self) -> dict[str, Any] | None:
        result = (self.answer or {}).get("result")
        return result if isinstance(result, dict) else None

    @property
    def error(self) -> dict[str, Any] | None:
        error = (self.answer or {}).get("error")
        return error if isinstance(error, dict) else None

    @property
    def seconds(self) -> float | None:
        if self.sent_t is None or self.answered_t is None:
            return None
        return self.answered_t - self.sent_t


@dataclass(slots=True)
class WireLinks:
    """A response's exchanges: by item key, and those that belong to no item."""

    by_item: dict[int, list[WireExchange]] = field(default_factory=dict)
    loose: list[WireExchange] = field(default_factory=list)

    def item_notes(self, item_key: int) -> list[int]:
        found = self.by_item.get(item_key)
        if not found:
            return []
        return sorted(i for exchange in found for i in exchange.notes)

    def call_of(self, item_key: int) -> WireExchange | None:
        """The last `tools/call` tied to an item (a retry the server saw twice: the last)."""
        calls = [e for e in self.by_item.get(item_key, ()) if e.method == "tools/call"]
        return calls[-1] if calls else None

    def loose_notes(self) -> list[int]:
        return sorted(i for exchange in self.loose for i in exchange.notes)

    def listing_for(self, resp: ResponseState, item: ItemState) -> WireExchange | None:
        """The answered `tools/list` of the server an item's call went to."""
        for other in resp.items:
            if other.type == "mcp_list_tools" and other.server_label == item.server_label:
                for exchange in self.by_item.get(other.key, ()):
                    if exchange.result is not None:
                        return exchange
        return None


NO_LINKS = WireLinks()


def in_causal_order(item_events: list[int], wired: list[int], events: Sequence[Event]
                    ) -> list[int]:
    """An item's events with its wire messages among them in arrival order, except that none
    goes before the arguments were done: a call is made with the whole arguments, so a message
    that arrived earlier only overtook the stream on another connection."""
    if not wired:
        return item_events
    done = next((i for i in item_events if events[i].canonical_type == ARGUMENT_DONE), None)
    if done is None:
        return sorted(item_events + wired)
    merged = sorted(item_events + [index for index in wired if index > done])
    at = merged.index(done) + 1
    merged[at:at] = [index for index in wired if index < done]
    return merged


def exchanges(indexes: Sequence[int], events: Sequence[Event]) -> list[WireExchange]:
    """The notes at `indexes`, requests paired with their answers, in the order sent."""
    found: list[WireExchange] = []
    pending: dict[tuple[Any, Any], WireExchange] = {}
    for index in indexes:
        event = events[index]
        raw = event.raw
        session = raw.get("session")
        message = raw.get("jsonrpc")
        labels = tuple(x for x in raw.get("server_labels") or () if isinstance(x, str))
        if raw.get("kind") != "mcp":  # an HTTP failure or broken connection
            ids = raw.get("ids") if isinstance(raw.get("ids"), list) else []
            waiting = [_take(pending, session, i) for i in ids]
            for exchange in filter(None, waiting):
                exchange.notes.append(index)
                exchange.failure, exchange.answered_t = raw, event.t
            if not any(waiting):
                found.append(WireExchange([index], labels=labels, sent_t=event.t,
                                          failure=raw))
            continue
        if not isinstance(message, dict):
            found.append(WireExchange([index], labels=labels, sent_t=event.t))
            continue
        method = message.get("method")
        if raw.get("direction") == "received" and not isinstance(method, str):
            exchange = _take(pending, session, message.get("id"))
            if exchange is not None:
                exchange.notes.append(index)
                exchange.answer, exchange.answered_t = message, event.t
                continue
            found.append(WireExchange([index], labels=labels, sent_t=event.t, answer=message))
            continue
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        exchange = WireExchange([index], method=method if isinstance(method, str) else None,
                                labels=labels, sent_t=event.t, request=message)
        if method == "tools/call":
            name = params.get("name")
            exchange.tool = name if isinstance(name, str) else None
            exchange.arguments = params.get("arguments")
        found.append(exchange)
        if "id" in message and raw.get("direction") == "sent":
            pending[(session, _key(message["id"]))] = exchange
    return found


def _key(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, type(None))) else repr(value)


def _take(pending: dict[tuple[Any, Any], WireExchange], session: Any, message_id: Any
          ) -> WireExchange | None:
    """The request an answer answers: by session and id (a request sent before the session
    had an id, like `initialize`, by id alone)."""
    key = _key(message_id)
    return pending.pop((session, key), None) or pending.pop((None, key), None)


def link_inputs(resp: ResponseState) -> tuple[object, ...]:
    """What `link` depends on, cheaply: the messages, the items, and how far each MCP item's
    arguments have come. Equal inputs link alike, so a view can keep its last links."""
    if not resp.wire:
        return ()
    return (len(resp.wire), len(resp.items), *(
        (len(item.argument_parts), item.arguments_done is not None, item.final is not None)
        for item in resp.items if item.type in ("mcp_call", "mcp_list_tools")))


def link(resp: ResponseState, events: Sequence[Event]) -> WireLinks:
    """Tie a response's exchanges to its items (see the module docstring)."""
    if not resp.wire:
        return NO_LINKS
    links = WireLinks()
    used: set[int] = set()
    unplaced: list[WireExchange] = []
    for exchange in exchanges(resp.wire, events):
        if exchange.method == "tools/list":
            item = _first(resp, used, exchange, "mcp_list_tools", "any")
        elif exchange.method == "tools/call":
            # Arguments not known yet (or not JSON): the name decides.
            item = (_first(resp, used, exchange, "mcp_call", "same")
                    or _first(resp, used, exchange, "mcp_call", "unknown"))
        else:
            item = None
        if item is None:
            unplaced.append(exchange)
            continue
        used.add(item.key)
        links.by_item.setdefault(item.key, []).append(exchange)
    links.loose = [e for e in unplaced if not _cancels_a_tied_call(links, e)]
    return links


def _cancels_a_tied_call(links: WireLinks, exchange: WireExchange) -> bool:
    """A `notifications/cancelled` joins the item whose call it cancels."""
    if exchange.method != "notifications/cancelled" or exchange.request is None:
        return False
    params = exchange.request.get("params")
    wanted = params.get("requestId") if isinstance(params, dict) else None
    for found in links.by_item.values():
        if any(e.method == "tools/call" and (e.request or {}).get("id") == wanted
               for e in found):
            found.append(exchange)
            return True
    return False


def _first(resp: ResponseState, used: set[int], exchange: WireExchange, kind: str,
           arguments: Literal["any", "same", "unknown"]) -> ItemState | None:
    """The first item not yet tied of this kind, server and tool whose arguments are any,
    the same as the call's, or not yet known."""
    for item in resp.items:
        if (item.key in used or item.type != kind
                or (exchange.labels and item.server_label not in exchange.labels)
                or (exchange.tool is not None and item.name != exchange.tool)):
            continue
        if arguments == "any":
            return item
        known = parse_json_text(item.arguments) if item.arguments else None
        if arguments == "same" and known is not None and known == (exchange.arguments or {}):
            return item
        if arguments == "unknown" and not isinstance(known, dict):
            return item
    return None


# -- evidence for the likely-cause engine -------------------------------------------------------

REQUEST_CANCELLED = -32800
"""The JSON-RPC error a server answers a cancelled request with (MCP's cancellation)."""
WORKED = "worked"
"""Not a cause: the server's answer was valid, which rules the result-shape causes out."""


@dataclass(frozen=True, slots=True)
class WireFinding:
    """What the wire proves about a failure: a cause key (or WORKED) and the words that show
    it."""

    cause: str
    evidence: str


def call_findings(resp: ResponseState, item: ItemState, links: WireLinks,
                  failed_t: float | None) -> list[WireFinding]:
    """What the tap saw of a failed `mcp_call`: the result OpenAI's client rejected and why,
    the server's own error, an HTTP refusal, or a call that got no answer in time."""
    call = links.call_of(item.key)
    if call is None:
        return []
    tied = links.by_item[item.key]
    name = item.name or call.tool or "the tool"
    cancel = next((e for e in tied if e.method == "notifications/cancelled"), None)
    if call.failure is not None and not (
            cancel is not None and call.answered_t is not None
            and cancel.sent_t is not None and call.answered_t >= cancel.sent_t):
        return failure_findings(call.failure)  # not the connection the caller then dropped
    if call.sent_t is not None and (cancel is not None or (call.error or {}).get("code")
                                    == REQUEST_CANCELLED):
        at = cancel.sent_t if cancel is not None else call.answered_t
        waited = f" for {at - call.sent_t:.1f} s" if at is not None else ""
        return [WireFinding("timeout", f"tap: tools/call {name} got no answer{waited}, then "
                            "the caller cancelled it"
                            + (" (notifications/cancelled)" if cancel is not None else ""))]
    if failed_t is not None and call.sent_t is not None and (
            call.answered_t is None or call.answered_t > failed_t):
        late = (f"; its answer came {_seconds(call.answered_t - failed_t)} after that"
                if call.answered_t is not None else "")
        return [WireFinding("timeout", f"tap: tools/call {name} was sent and got no answer in "
                            f"the {failed_t - call.sent_t:.1f} s before the call failed{late}")]
    if call.error is not None:
        code, text = call.error.get("code"), str(call.error.get("message", ""))
        if code == -32001 or "session" in text.lower():
            return [WireFinding("session_terminated", f"tap: the server answered the "
                                f"tools/call with JSON-RPC error {code}: {text}")]
        return [WireFinding("protocol_error", f"tap: the server answered the tools/call with "
                            f"JSON-RPC error {code}: {text}")]
    result = call.result
    if result is None:
        if call.answer is None:
            return [WireFinding("timeout", f"tap: tools/call {name} was sent and the server "
                                "sent no answer")]
        return []
    if result.get("isError") is True:
        return [WireFinding("tool_error", f"tap: the tool's result has isError: true "
                            f"({_text_of(result)})")]
    content = result.get("content")
    bad = bad_blocks(content) if isinstance(content, list) else []
    if bad or not isinstance(content, list):
        what = block_problem(*bad[0]) if bad else "the result has no content list"
        return [WireFinding("invalid_content", f"tap: the tools/call result: {what}")]
    listing = links.listing_for(resp, item)
    schema = _output_schema(listing, name) if listing is not None else None
    if schema is not None:
        problem = structured_problem(schema, result.get("structuredContent"))
        if problem is not None and problem[0] == "missing_structured_content":
            return [WireFinding("output_schema_without_structured_content",
                                f"tap: tools/list declared an outputSchema for {name}, and "
                                "its tools/call result has no structuredContent")]
        if problem is not None and problem[0] == "invalid_structured_content":
            return [WireFinding("invalid_structured_content",
                                f"tap: the result's structuredContent does not match {name}'s "
                                f"outputSchema: {problem[1]}")]
    return [WireFinding(WORKED, f"tap: the server answered tools/call {name} with a valid "
                        "result" + (f" in {call.seconds:.2f} s" if call.seconds is not None
                                    else ""))]


def listing_findings(exchanges: Sequence[WireExchange]) -> list[WireFinding]:
    """Why connecting to a server or listing its tools failed, as the tap saw it."""
    for exchange in exchanges:
        if exchange.method not in ("initialize", "tools/list"):
            continue
        if exchange.failure is not None:
            return failure_findings(exchange.failure)
        if exchange.error is not None:
            return [WireFinding("protocol_error", f"tap: the server answered {exchange.method} "
                                f"with JSON-RPC error {exchange.error.get('code')}: "
                                f"{exchange.error.get('message')}")]
        if not exchange.answered:
            return [WireFinding("timeout", f"tap: {exchange.method} was sent and the server "
                                "sent no answer")]
    return []


HTTP_CAUSES = {401: "auth", 403: "auth", 421: "host_header_421", 404: "session_terminated"}


def failure_findings(failure: dict[str, Any]) -> list[WireFinding]:
    """An HTTP failure or broken connection in place of an answer: the cause its status
    names. Another status (a 5xx) or a broken connection names none: the note under the
    call shows it, and the stream's candidates stand."""
    status = failure.get("http_status")
    message = f"tap: {failure.get('message', '')}"
    if failure.get("kind") == "connection_error":
        return [WireFinding("unreachable", message)]
    cause = HTTP_CAUSES.get(status) if type(status) is int else None
    if cause == "session_terminated" and not failure.get("session"):
        cause = "tool_list_failure"  # a 404 without a session: the path is wrong
    return [WireFinding(cause, message)] if cause else []


def _output_schema(listing: WireExchange, name: str) -> dict[str, Any] | None:
    tools = (listing.result or {}).get("tools")
    for tool in tools if isinstance(tools, list) else ():
        if isinstance(tool, dict) and tool.get("name") == name:
            schema = tool.get("outputSchema")
            return schema if isinstance(schema, dict) else None
    return None


def _seconds(value: float) -> str:
    return f"{value:.2f} s" if value >= 0.1 else f"{value * 1000:.0f} ms"


def _text_of(result: dict[str, Any]) -> str:
    texts = [str(b.get("text")) for b in result.get("content") or []
             if isinstance(b, dict) and b.get("type") == "text"]
    return " ".join(" ".join(texts).split())[:200] or "no text"
