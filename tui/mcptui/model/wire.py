"""What a tap saw on an MCP server's wire, paired up and tied to the output items it concerns.

A tap (tui/mcptui/capture/tap.py) records each JSON-RPC message as a note; the reducer gives each to
its response (`ResponseState.wire`). Here requests are paired with what answered them (a
result, a JSON-RPC error, an HTTP failure, a broken connection) and each exchange is tied to
its item: a `tools/list` to the `mcp_list_tools` item of that server, a `tools/call` to the
`mcp_call` with the same tool name and arguments, of the item's time and session (`link`; the
n-th such call to the n-th such item, so order breaks ties). Both eras pair: the legacy one by
session and id, the stateless modern one (2026-07-28, no session) by the HTTP exchange a request
and its answer shared. What fits no item (initialize, server/discover, notifications, the event
stream, other sessions, retries) stays with the response. Linking is recomputed from the state,
never stored: a listing seen before its item arrives is tied to it once the item is there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mcptui.model.events import ARGUMENT_DONE, Event
from mcptui.model.state import ItemState, ResponseState, parse_json_text


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
    session: str | None = None
    """The MCP session it was sent in (legacy era; None in the stateless modern one)."""
    era: str | None = None
    """`modern` or `legacy`, as the tap recorded it (None: a tap from before eras)."""
    http_exchange: int | None = None
    """The tap's number of the HTTP exchange it was sent in."""

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


def in_causal_order(item_events: list[int], wired: list[int], events: Sequence[Event]) -> list[int]:
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
    """The notes at `indexes`, requests paired with their answers, in the order sent.

    An answer is paired with the request of its own HTTP exchange first (`http_exchange`: a
    modern, sessionless request and its answer share one POST, and two clients may both ask
    `id: 1`); else, in the legacy era, by session and id, or by id alone for a request sent
    before the session had an id (`initialize`). A GET or DELETE (no JSON-RPC) keeps the notes
    of its own HTTP exchange that follow it: how it was answered or ended."""
    found: list[WireExchange] = []
    pending: dict[tuple[Any, ...], tuple[WireExchange, list[tuple[Any, ...]]]] = {}
    bare: dict[int, WireExchange] = {}
    """HTTP exchange → its request that carried no JSON-RPC (a GET, a DELETE)."""
    for index in indexes:
        event = events[index]
        raw = event.raw
        session = raw.get("session")
        number = raw.get("http_exchange") if type(raw.get("http_exchange")) is int else None
        modern = raw.get("era") == "modern"
        message = raw.get("jsonrpc")
        if raw.get("kind") != "mcp":  # an HTTP failure or broken connection
            ids = ids if isinstance(ids := raw.get("ids"), list) else []
            waiting: list[WireExchange] = [
                e for e in (_take(pending, session, i, number, modern) for i in ids) if e
            ]
            if not waiting and number in bare:
                waiting = [bare[number]]
            failure = None if _normal_end(raw) else raw
            for exchange in waiting:
                exchange.notes.append(index)
                exchange.failure, exchange.answered_t = failure, event.t
            if not waiting:
                found.append(_exchange(index, event, failure=failure))
            continue
        if not isinstance(message, dict):
            if raw.get("direction") == "received" and number in bare:
                bare[number].notes.append(index)  # how a GET or DELETE was answered or ended
                continue
            exchange = _exchange(index, event)
            found.append(exchange)
            if raw.get("direction") == "sent" and number is not None:
                bare[number] = exchange
            continue
        method = message.get("method")
        if raw.get("direction") == "received" and not isinstance(method, str):
            answered = _take(pending, session, message.get("id"), number, modern)
            if answered is not None:
                answered.notes.append(index)
                answered.answer, answered.answered_t = message, event.t
                continue
            found.append(_exchange(index, event, answer=message))
            continue
        params = params if isinstance(params := message.get("params"), dict) else {}
        exchange = _exchange(
            index, event, method=method if isinstance(method, str) else None, request=message
        )
        if method == "tools/call":
            name = params.get("name")
            exchange.tool = name if isinstance(name, str) else None
            exchange.arguments = params.get("arguments")
        found.append(exchange)
        if "id" in message and raw.get("direction") == "sent":
            key = _key(message["id"])
            places = [("x", number, key)] if number is not None else []
            if not modern or number is None:
                places.append(("s", session, key))
            for place in places:
                pending[place] = (exchange, places)
    return found


def _exchange(index: int, event: Event, **fields: Any) -> WireExchange:
    """An exchange begun by the note at `index`, with what the tap said of its wire."""
    raw = event.raw
    session, era, number = raw.get("session"), raw.get("era"), raw.get("http_exchange")
    return WireExchange(
        [index],
        labels=tuple(x for x in raw.get("server_labels") or () if isinstance(x, str)),
        sent_t=event.t,
        session=session if isinstance(session, str) else None,
        era=era if isinstance(era, str) else None,
        http_exchange=number if type(number) is int else None,
        **fields,
    )


def closed_by_client(raw: dict[str, Any]) -> bool:
    """A tap's note of a connection its client (OpenAI's side) closed, not the server: the
    note says so (`closed`), or, from a tap before it did, its words."""
    return raw.get("kind") == "disconnect" and (
        raw.get("closed") == "client" or CLIENT_LEFT_WORDS in str(raw.get("message", ""))
    )


CLIENT_LEFT_WORDS = "client disconnected"
"""How older taps worded a connection the client closed (mcptui/capture/relay.py CLIENT_LEFT)."""


def _normal_end(raw: dict[str, Any]) -> bool:
    """A note of a tap from before it knew better: the client closing the GET event stream at
    its session's end was recorded as a broken connection. It is not a failure."""
    return (
        closed_by_client(raw) and not raw.get("ids") and str(raw.get("http", "")).startswith("GET ")
    )


def _key(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, type(None))) else repr(value)


def _take(
    pending: dict[tuple[Any, ...], tuple[WireExchange, list[tuple[Any, ...]]]],
    session: Any,
    message_id: Any,
    number: int | None = None,
    modern: bool = False,
) -> WireExchange | None:
    """The request an answer answers, no longer awaited: the one of the same HTTP exchange;
    else (not the modern era, whose answers never leave their exchange) the session's, or one
    sent before the session had an id (`initialize`)."""
    key = _key(message_id)
    places: list[tuple[str, Any, Any]] = [("x", number, key)] if number is not None else []
    if not modern or number is None:
        places += [("s", session, key), ("s", None, key)]
    for place in places:
        found = pending.get(place)
        if found is not None:
            exchange, keys = found
            for other in keys:
                if pending.get(other) is found:
                    del pending[other]
            return exchange
    return None


def link_inputs(resp: ResponseState) -> tuple[object, ...]:
    """What `link` depends on, cheaply: the messages, the items, and how far each MCP item's
    arguments have come. Equal inputs link alike, so a view can keep its last links."""
    if not resp.wire:
        return ()
    return (
        len(resp.wire),
        len(resp.items),
        *(
            (len(item.argument_parts), item.arguments_done is not None, item.final is not None)
            for item in resp.items
            if item.type in ("mcp_call", "mcp_list_tools")
        ),
    )


SKEW = 1.0
"""Seconds a tap's clock may be off the stream's (another connection; a merge aligned on one
call): how far before an item's arguments were done a call may be its call, or after the item
ended."""


def link(resp: ResponseState, events: Sequence[Event]) -> WireLinks:
    """Tie a response's exchanges to its items (see the module docstring).

    An exchange is an item's only if it is of the item's time and session: a `tools/list`
    sent after its `mcp_list_tools` item ended is not its listing (of several before it, the
    last); a `tools/call` sent before the item's arguments were done or after the item ended
    is not its call, and of the calls that fit, one of the session that listed the server's
    tools for this response comes first, then one of a session another of its calls used,
    then the rest (in the order sent): never a call of another session when one of the right
    session is there. A tap file holding earlier sessions (probes through the same tap) then
    gives none of them to this response's items."""
    if not resp.wire:
        return NO_LINKS
    found = exchanges(resp.wire, events)
    links = WireLinks()
    tied: set[int] = set()
    listed: dict[str | None, str] = {}
    """Server label → the session that listed its tools for this response."""

    def tie(item: ItemState, exchange: WireExchange) -> None:
        tied.add(id(exchange))
        links.by_item.setdefault(item.key, []).append(exchange)

    for item in resp.items:
        if item.type == "mcp_list_tools":
            listing = _listing(item, found, tied)
            if listing is not None:
                tie(item, listing)
                if listing.session is not None:
                    listed.setdefault(item.server_label, listing.session)
    calling: set[str] = set()
    # Calls whose arguments are known take theirs first; then the name decides for an item
    # whose arguments are not known yet (or not JSON).
    for same in (True, False):
        for item in resp.items:
            if item.type != "mcp_call" or item.key in links.by_item:
                continue
            known = parse_json_text(item.arguments) if item.arguments else None
            if (same and known is None) or (not same and isinstance(known, dict)):
                continue
            low, high = _span(item, events)
            fits = [
                e
                for e in found
                if id(e) not in tied
                and e.method == "tools/call"
                and _serves(e, item)
                and _within(e.sent_t, low, high)
                and (not same or (e.arguments or {}) == known)
            ]
            if not fits:
                continue
            preferred = listed.get(item.server_label)
            call = min(
                fits,
                key=lambda e: (
                    0
                    if e.session is not None and e.session == preferred
                    else 1
                    if e.session in calling
                    else 2
                ),
            )  # stable: first sent
            tie(item, call)
            if call.session is not None:
                calling.add(call.session)
    links.loose = [e for e in found if id(e) not in tied and not _cancels_a_tied_call(links, e)]
    return links


def _serves(exchange: WireExchange, item: ItemState) -> bool:
    """The exchange went to the item's server (when the tap named it) for the item's tool."""
    return not (
        (exchange.labels and item.server_label not in exchange.labels)
        or (exchange.tool is not None and item.name != exchange.tool)
    )


def _span(item: ItemState, events: Sequence[Event]) -> tuple[float | None, float | None]:
    """When a call of the item can have been sent: from its arguments being done (its first
    event when they came whole) to its end (None: not ended yet), give or take SKEW."""
    done = item.first_t
    if item.arguments_done is not None:  # its event comes after the deltas: look from the end
        done = next(
            (
                events[i].t
                for i in reversed(item.events)
                if events[i].canonical_type == ARGUMENT_DONE
            ),
            done,
        )
    return (
        None if done is None else done - SKEW,
        None if item.final is None or item.last_t is None else item.last_t + SKEW,
    )


def _within(t: float | None, low: float | None, high: float | None) -> bool:
    return t is None or ((low is None or t >= low) and (high is None or t <= high))


def _listing(item: ItemState, found: Sequence[WireExchange], tied: set[int]) -> WireExchange | None:
    """The `tools/list` of an `mcp_list_tools` item: of those of its server not sent after it
    ended, the last sent before it began (OpenAI lists a server's tools before its stream
    shows the item); else the first."""
    end = None if item.final is None or item.last_t is None else item.last_t + SKEW
    fits = [
        e
        for e in found
        if id(e) not in tied
        and e.method == "tools/list"
        and _serves(e, item)
        and _within(e.sent_t, None, end)
    ]
    start = item.first_t
    before = [
        e for e in fits if start is not None and e.sent_t is not None and e.sent_t <= start + SKEW
    ]
    if before:
        return before[-1]
    return fits[0] if fits else None


def _cancels_a_tied_call(links: WireLinks, exchange: WireExchange) -> bool:
    """A `notifications/cancelled` joins the item whose call it cancels (of its session:
    each session numbers its requests from 1)."""
    if exchange.method != "notifications/cancelled" or exchange.request is None:
        return False
    params = exchange.request.get("params")
    wanted = params.get("requestId") if isinstance(params, dict) else None
    for found in links.by_item.values():
        if any(
            e.method == "tools/call"
            and (e.request or {}).get("id") == wanted
            and (e.session is None or e.session == exchange.session)
            for e in found
        ):
            found.append(exchange)
            return True
    return False
