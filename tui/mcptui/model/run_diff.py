"""Two runs compared item by item: where they diverge first, and how (`mcptui diff`).

Pure data: the caller folds each file (state, events, diagnosis) and gets back a
`Comparison`; `mcptui/share/diff_output.py` prints it, `mcptui/ui/screens/diff_screen.py` shows it.

Alignment. Responses pair in order (the i-th of A with the i-th of B). Within a response:
`mcp_call`, `mcp_approval_request` and `function_call` pair by (type, server label, tool name,
n-th occurrence), so an extra call earlier in B shifts no later comparison; `mcp_list_tools`
by (server label, n-th occurrence); every other type by (type, n-th occurrence). Calls and
listings left over on both sides at the same output index pair as "a different call" (B called
another tool, or listed another server, in the same place).

Shape differences (exit 1): an item or response in one run only (reasoning items excepted),
a different call at the same place, an item's or response's status (completed in A, failed in
B), a different kind of error (type and code), arguments whose structure differs (a key added
or removed, a value of another JSON type), a tool list that differs (tools added or removed,
a schema or the annotations changed). Informational (never exit 1 by themselves: two good runs
never match exactly): argument values, error messages of the same kind, tool descriptions,
timing (an item or response at least 3x and 0.5 s slower or faster), token usage, message
text, the model, reasoning items.

"First divergence" is the first shape difference in B's event order (by the timeline index of
the B event where it shows; an item only in A shows where B went on without it).

Values shown from the runs (errors, arguments) are redacted here: a credential-named key's
value and key-like or bearer strings never reach a printer or a screen.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from mcptui.model.causes import LikelyCause
from mcptui.model.diagnosis import Diagnosis
from mcptui.model.errors import describe_error
from mcptui.model.events import ARGUMENT_DONE, Event
from mcptui.model.redaction import CREDENTIAL_KEYS, REDACTED, redact, redact_text
from mcptui.model.state import ItemState, ResponseState, SessionState, parse_json_text
from mcptui.model.status import item_status

NAMED_CALLS = frozenset({"mcp_call", "mcp_approval_request", "function_call"})
"""Item types paired by server label, tool name and occurrence."""
LISTING = "mcp_list_tools"
INFORMATIONAL_ITEMS = frozenset({"reasoning"})
"""Item types whose presence in one run only is not a difference in shape: how often a
model reasons varies between two good runs."""
SLOWER_RATIO = 3.0
SLOWER_SECONDS = 0.5
"""A timing difference is worth saying at this ratio and this many seconds, both."""
MAX_PATHS = 100
"""At most this many argument (or schema) paths per difference; the rest are counted."""
SILENT_TOOL_KEYS = frozenset({"description", "title"})
"""Tool fields whose change is informational: text for the model, not a contract."""

SHAPE_KINDS = ("only_in_a", "only_in_b", "replaced", "status", "error", "arguments", "tools")
INFO_KINDS = ("error_text", "argument_values", "descriptions", "timing", "usage", "text", "model")
_RANK = {kind: rank for rank, kind in enumerate(SHAPE_KINDS + INFO_KINDS)}


ChangeMaker = Callable[..., "Change"]
"""Builds a Change about one row or response: (kind, shape, summary, B event, **fields)."""


class _Missing:
    """A side on which a JSON path does not exist."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


@dataclass(frozen=True, slots=True)
class Run:
    """One side of the comparison: a folded file (state at its end, its timeline events) and,
    when available, its diagnosis (likely causes, timing)."""

    state: SessionState
    events: Sequence[Event]
    diagnosis: Diagnosis | None = None


@dataclass(frozen=True, slots=True)
class PathChange:
    """One JSON path that differs: `added` (only in B), `removed` (only in A), `type` (another
    JSON type) or `changed` (another value). Values are redacted."""

    path: str
    change: str
    a: Any = MISSING
    b: Any = MISSING

    @property
    def shape(self) -> bool:
        return self.change != "changed"

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "change": self.change}
        if self.a is not MISSING:
            out["a"] = self.a
        if self.b is not MISSING:
            out["b"] = self.b
        return out

    @property
    def line(self) -> str:
        if self.change == "added":
            return f"{self.path}: added in B: {short_json(self.b)}"
        if self.change == "removed":
            return f"{self.path}: only in A: {short_json(self.a)}"
        return f"{self.path}: {short_json(self.a)} in A, {short_json(self.b)} in B"


@dataclass(frozen=True, slots=True)
class ToolChange:
    """A listed tool added, removed, or changed (which fields, and how)."""

    tool: str
    change: str
    """`added` (only in B), `removed` (only in A) or `changed`."""
    fields: tuple[tuple[str, str], ...] = ()
    """(field, `appeared` | `disappeared` | `changed`) for a changed tool."""
    paths: tuple[PathChange, ...] = ()
    """Within changed schemas: which paths."""

    @property
    def shape(self) -> bool:
        return self.change != "changed" or any(
            name not in SILENT_TOOL_KEYS for name, _ in self.fields
        )

    @property
    def line(self) -> str:
        if self.change == "added":
            return f"{self.tool} only in B"
        if self.change == "removed":
            return f"{self.tool} only in A"
        return "; ".join(f"{name} {how} on {self.tool}" for name, how in self.fields)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tool": self.tool, "change": self.change}
        if self.fields:
            out["fields"] = [{"field": name, "change": how} for name, how in self.fields]
        if self.paths:
            out["paths"] = [p.as_json() for p in self.paths]
        return out


@dataclass(frozen=True, slots=True)
class Change:
    """One difference between the runs, about an item (`row` set) or a response."""

    kind: str
    shape: bool
    subject: str
    """What it is about, e.g. `mcp_call search_files @files (#2)` or `response 1`."""
    summary: str
    """How it differs, one line, e.g. `completed in A, failed in B: http_error 424: …`."""
    response: int
    """Position of the response pair."""
    row: int | None = None
    """Position of the item pair in the response pair; None for the response itself."""
    b_event: int | None = None
    """Timeline index of the B event where it shows (None: B has no event for it)."""
    a: Any = None
    b: Any = None
    error: str | None = None
    """B's error, when B failed here."""
    causes: tuple[LikelyCause, ...] = ()
    """B's likely causes, when B failed here, best first."""
    paths: tuple[PathChange, ...] = ()
    more_paths: int = 0
    tools: tuple[ToolChange, ...] = ()

    @property
    def line(self) -> str:
        """`subject: summary; likely cause: title (confidence)`."""
        text = f"{self.subject}: {self.summary}"
        if self.causes:
            top = self.causes[0]
            text += f"; likely cause: {top.cause.title} ({top.confidence})"
        return text

    @property
    def b_failed(self) -> bool:
        return self.error is not None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "shape": self.shape,
            "subject": self.subject,
            "summary": self.summary,
            "line": self.line,
            "response": self.response,
            "item": self.row,
            "b_event_index": self.b_event,
            "a": self.a,
            "b": self.b,
        }
        if self.error is not None:
            out["b_error"] = self.error
        if self.causes:
            out["b_likely_causes"] = [cause.as_json() for cause in self.causes]
        if self.paths:
            out["paths"] = [path.as_json() for path in self.paths]
            if self.more_paths:
                out["more_paths"] = self.more_paths
        if self.tools:
            out["tools"] = [tool.as_json() for tool in self.tools]
        return out


@dataclass(slots=True)
class ItemPair:
    """One aligned row: A's item, B's item, or both, and how they differ."""

    a: ItemState | None
    b: ItemState | None
    position: int = 0
    by_place: bool = False
    """Paired as leftovers at the same output index (a different call), not by key."""
    changes: list[Change] = field(default_factory=list)

    @property
    def marker(self) -> str:
        return marker_of(self.a is not None, self.b is not None, self.changes)

    @property
    def item(self) -> ItemState:
        """B's item, else A's: the one that names the row."""
        found = self.b or self.a
        assert found is not None
        return found


@dataclass(slots=True)
class ResponsePair:
    """The i-th response of each run, its own differences, and its aligned items."""

    a: ResponseState | None
    b: ResponseState | None
    position: int
    items: list[ItemPair] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)

    @property
    def marker(self) -> str:
        return marker_of(self.a is not None, self.b is not None, self.changes)


def marker_of(in_a: bool, in_b: bool, changes: Sequence[Change]) -> str:
    """`−` only in A, `+` only in B, `≠` a shape difference, `~` informational ones only,
    `=` the same."""
    if not in_b:
        return "−"
    if not in_a:
        return "+"
    if any(change.shape for change in changes):
        return "≠"
    return "~" if changes else "="


@dataclass(slots=True)
class Comparison:
    """Everything `diff` says: aligned responses and items, every difference in B's event
    order, and notes about the comparison itself."""

    a: Run
    b: Run
    responses: list[ResponsePair]
    changes: list[Change]
    notes: list[str] = field(default_factory=list)

    @property
    def shape_changes(self) -> list[Change]:
        return [change for change in self.changes if change.shape]

    @property
    def same(self) -> bool:
        """The same shape: no shape difference (informational ones may remain)."""
        return not self.shape_changes

    @property
    def first(self) -> Change | None:
        """The first shape difference in B's event order."""
        return next(iter(self.shape_changes), None)

    @property
    def first_failure(self) -> Change | None:
        """The first shape difference where B failed (its error, likely cause): the call a
        person came for, which may come after the first divergence."""
        return next((change for change in self.shape_changes if change.b_failed), None)

    def pairs(self) -> Iterator[tuple[ResponsePair, ItemPair | None]]:
        """Every row in display order: each response, then its items."""
        for pair in self.responses:
            yield pair, None
            for row in pair.items:
                yield pair, row


def compare(a: Run, b: Run) -> Comparison:
    """Align `a` and `b` and list their differences."""
    count = max(len(a.state.responses), len(b.state.responses))
    many = count > 1
    pairs: list[ResponsePair] = []
    for position in range(count):
        resp_a = a.state.responses[position] if position < len(a.state.responses) else None
        resp_b = b.state.responses[position] if position < len(b.state.responses) else None
        pair = ResponsePair(resp_a, resp_b, position)
        prefix = f"response {position + 1}: " if many else ""
        pair.items = align_items(resp_a, resp_b)
        if resp_a is not None and resp_b is not None:  # else the response's one difference
            for row in pair.items:
                row.changes = item_changes(row, pair, a, b, prefix)
            anchor_only_in_a(pair)
        pair.changes = response_changes(pair, a, b, f"response {position + 1}")
        pairs.append(pair)
    changes = [change for pair in pairs for change in pair.changes]
    changes += [change for pair in pairs for row in pair.items for change in row.changes]
    return Comparison(a, b, pairs, sorted(changes, key=_order), comparison_notes(a, b))


def _order(change: Change) -> tuple[bool, int, int, int, int]:
    row = -1 if change.row is None else change.row
    return (
        change.b_event is None,
        change.b_event or 0,
        change.response,
        row,
        _RANK.get(change.kind, len(_RANK)),
    )


# -- alignment ------------------------------------------------------------------------------


def alignment_keys(items: Sequence[ItemState]) -> list[tuple[Any, ...]]:
    """Each item's key: calls by (type, server, tool, n), listings by (server, n), the rest
    by (type, n), n counting earlier items with the same key."""
    seen: Counter[tuple[Any, ...]] = Counter()
    keys = []
    for item in items:
        if item.type in NAMED_CALLS:
            base: tuple[Any, ...] = (item.type, item.server_label, item.name)
        elif item.type == LISTING:
            base = (item.type, item.server_label)
        else:
            base = (item.type,)
        keys.append((*base, seen[base]))
        seen[base] += 1
    return keys


def align_items(resp_a: ResponseState | None, resp_b: ResponseState | None) -> list[ItemPair]:
    """Rows in B's order; an item only in A goes where A had it, before what B has there
    instead (as in a unified diff: − before +)."""
    items_a = resp_a.items if resp_a is not None else []
    items_b = resp_b.items if resp_b is not None else []
    by_key = dict(zip(alignment_keys(items_a), items_a, strict=True))
    matched: dict[int, ItemState] = {}  # B item key → A item
    for key, item in zip(alignment_keys(items_b), items_b, strict=True):
        if key in by_key:
            matched[item.key] = by_key.pop(key)
    placed = pair_by_place(
        list(by_key.values()), [item for item in items_b if item.key not in matched]
    )
    matched.update(placed)
    order_a = {id(item): position for position, item in enumerate(items_a)}
    taken = {id(item) for item in matched.values()}
    rows: list[ItemPair] = []
    next_a = 0

    def flush_a(before: int) -> None:
        nonlocal next_a
        while next_a < min(before, len(items_a)):
            if id(items_a[next_a]) not in taken:
                rows.append(ItemPair(items_a[next_a], None))
            next_a += 1

    # Before each B item, the A-only items that come before the next paired A item: as in a
    # unified diff, what A had there (−) comes before what B has instead (+).
    upcoming = len(items_a)
    next_partner: list[int] = []
    for item in reversed(items_b):
        if item.key in matched:
            upcoming = order_a[id(matched[item.key])]
        next_partner.append(upcoming)
    next_partner.reverse()
    for item, before in zip(items_b, next_partner, strict=True):
        flush_a(before)
        partner = matched.get(item.key)
        rows.append(ItemPair(partner, item, by_place=item.key in placed))
    flush_a(len(items_a))
    for position, row in enumerate(rows):
        row.position = position
    return rows


def pair_by_place(left_a: Sequence[ItemState], left_b: Sequence[ItemState]) -> dict[int, ItemState]:
    """Leftover calls and listings at the same output index and of the same type: B called
    another tool (or listed another server) where A called this one."""
    places: dict[tuple[str, int | None], ItemState] = {
        (item.type, item.output_index): item
        for item in left_a
        if (item.type in NAMED_CALLS or item.type == LISTING) and item.output_index is not None
    }
    paired: dict[int, ItemState] = {}
    for item in left_b:
        partner = places.pop((item.type, item.output_index), None)
        if partner is not None:
            paired[item.key] = partner
    return paired


def anchor_only_in_a(pair: ResponsePair) -> None:
    """An item only in A shows in B where B went on without it: at the first event of the
    next row B has, else at B's response's last event."""
    anchor = last_event(pair.b)
    for row in reversed(pair.items):  # one pass: the anchor is the nearest B row after
        if row.b is not None:
            anchor = row.b.events[0] if row.b.events else anchor
        else:
            row.changes = [replace(change, b_event=anchor) for change in row.changes]


def last_event(resp: ResponseState | None) -> int | None:
    if resp is None:
        return None
    indexes = list(resp.events) + [i for item in resp.items for i in item.events[-1:]]
    return max(indexes, default=None)


def first_event(resp: ResponseState | None) -> int | None:
    if resp is None:
        return None
    indexes = list(resp.events[:1]) + [i for item in resp.items for i in item.events[:1]]
    return min(indexes, default=None)


# -- items ----------------------------------------------------------------------------------


def item_label(item: ItemState, other: ItemState | None = None) -> str:
    """`mcp_call search_files @files (#2)`; `(#4 in B, #2 in A)` when the places differ."""
    words = [item.type]
    if item.name:
        words.append(item.name)
    if item.server_label:
        words.append(f"@{item.server_label}")
    place = _place(item)
    if other is not None and other.output_index != item.output_index:
        place = f"{place} in B, {_place(other)} in A"
    return f"{' '.join(words)} ({place})"


def _place(item: ItemState) -> str:
    return f"#{'?' if item.output_index is None else item.output_index}"


def call_name(item: ItemState) -> str:
    """`search_docs @docs`: what a call (or listing) is, without its place."""
    words = [item.name] if item.name else []
    if item.server_label:
        words.append(f"@{item.server_label}")
    return " ".join(words) or item.type


def status_word(resp: ResponseState | None, item: ItemState) -> str:
    return item_status(resp, item).word if resp is not None else item.status


def item_changes(
    row: ItemPair, pair: ResponsePair, run_a: Run, run_b: Run, prefix: str
) -> list[Change]:
    """Every difference of one aligned row."""
    a, b = row.a, row.b
    named = row.item
    subject = prefix + (item_label(named, a) if b is not None else item_label(named))

    def change(kind: str, shape: bool, summary: str, at: int | None, **extra: Any) -> Change:
        return Change(kind, shape, subject, summary, pair.position, row.position, at, **extra)

    if a is None:
        assert b is not None
        status = status_word(pair.b, b)
        summary = f"only in B ({status}"
        error, causes = failure_of(run_b, pair.b, b)
        summary += f": {error})" if error is not None else ")"
        return [
            change(
                "only_in_b",
                b.type not in INFORMATIONAL_ITEMS,
                summary,
                b.events[0] if b.events else None,
                b=status,
                error=error,
                causes=causes,
            )
        ]
    if b is None:
        status = status_word(pair.a, a)
        return [
            change(
                "only_in_a",
                a.type not in INFORMATIONAL_ITEMS,
                f"only in A ({status})",
                None,
                a=status,
            )
        ]
    found: list[Change] = []
    done_at = b.events[-1] if b.events else None
    ended_at = ending_event(b, run_b.events)
    if row.by_place:
        what = "server" if a.type == LISTING else "call"
        found.append(
            change(
                "replaced",
                True,
                f"a different {what}: {call_name(a)} in A, {call_name(b)} in B",
                b.events[0] if b.events else None,
                a=call_name(a),
                b=call_name(b),
            )
        )
    found += status_changes(row, pair, run_a, run_b, change, ended_at)
    if a.type in NAMED_CALLS and not row.by_place:
        found += argument_changes(a, b, change, arguments_event(b, run_b.events))
    if a.type == LISTING:
        found += tool_list_changes(a, b, change, done_at)
    found += timing_changes(a, b, pair, run_a, run_b, change, done_at)
    if a.type == "message" and a.text != b.text:
        found.append(
            change(
                "text",
                False,
                f"the text differs ({len(a.text)} characters in A, {len(b.text)} in B)",
                done_at,
                a=len(a.text),
                b=len(b.text),
            )
        )
    return found


def failure_of(
    run: Run, resp: ResponseState | None, item: ItemState
) -> tuple[str | None, tuple[LikelyCause, ...]]:
    """The item's error (redacted) and likely causes, when it failed; (None, ())."""
    if not item.failed or resp is None:
        return None, ()
    error = redact_text(item.error_text or f"{item.type} {item.status}")
    causes = run.diagnosis.causes(resp.key, item.key) if run.diagnosis is not None else []
    return error, tuple(causes)


def status_changes(
    row: ItemPair, pair: ResponsePair, run_a: Run, run_b: Run, change: ChangeMaker, at: int | None
) -> list[Change]:
    """Completed in A, failed in B (B's error and cause); or both failed, differently."""
    a, b = row.a, row.b
    assert a is not None and b is not None
    word_a, word_b = status_word(pair.a, a), status_word(pair.b, b)
    error_b, causes = failure_of(run_b, pair.b, b)
    error_a, _ = failure_of(run_a, pair.a, a)
    if word_a != word_b:
        summary = f"{word_a} in A, {word_b} in B"
        if error_b is not None:
            summary += f": {error_b}"
        elif error_a is not None:
            summary += f" (A: {error_a})"
        return [
            change("status", True, summary, at, a=word_a, b=word_b, error=error_b, causes=causes)
        ]
    if error_a is None or error_b is None or error_a == error_b:
        return []
    same_kind = error_kind(a.error) == error_kind(b.error)
    return [
        change(
            "error_text" if same_kind else "error",
            not same_kind,
            f"failed in both, {'differently' if not same_kind else 'other words'}: "
            f"{error_a} in A, {error_b} in B",
            at,
            a=error_a,
            b=error_b,
            error=error_b,
            causes=causes,
        )
    ]


def error_kind(error: Any) -> tuple[Any, Any]:
    """(type, code) of an error object; a string error is its own kind."""
    if isinstance(error, dict):
        inner = nested if isinstance(nested := error.get("error"), dict) else error
        return inner.get("type"), inner.get("code")
    return ("text", describe_error(error))


ENDINGS = (".completed", ".failed", ".incomplete")


def ending_event(item: ItemState, events: Sequence[Event]) -> int | None:
    """Where B's item came to its status: its first `….completed` / `….failed` event (or
    `output_item.done`), else its last event."""
    for index in item.events:
        kind = events[index].type if index < len(events) else ""
        if kind.endswith(ENDINGS) or kind == "response.output_item.done":
            return index
    return item.events[-1] if item.events else None


def arguments_event(item: ItemState, events: Sequence[Event]) -> int | None:
    """Where B's arguments became whole: its `arguments.done` event, else its last."""
    for index in item.events:
        if index < len(events) and events[index].canonical_type == ARGUMENT_DONE:
            return index
    return item.events[-1] if item.events else None


def argument_changes(
    a: ItemState, b: ItemState, change: ChangeMaker, at: int | None
) -> list[Change]:
    """The arguments as a JSON diff: structure (keys, types) is shape, values are not."""
    if a.arguments == b.arguments:
        return []
    paths = json_changes(parse_json_text(a.arguments), parse_json_text(b.arguments))
    if not paths:  # the same JSON, written differently
        return []
    structural = [p for p in paths if p.shape]
    shown = paths[:MAX_PATHS]
    names = ", ".join(p.path for p in shown[:5]) + (", …" if len(paths) > 5 else "")
    if structural:
        return [
            change(
                "arguments",
                True,
                f"the arguments differ in structure: {names}",
                at,
                paths=tuple(shown),
                more_paths=len(paths) - len(shown),
            )
        ]
    return [
        change(
            "argument_values",
            False,
            f"other argument values: {names}",
            at,
            paths=tuple(shown),
            more_paths=len(paths) - len(shown),
        )
    ]


def listed_tools(item: ItemState) -> dict[str, dict[str, Any]]:
    """A listing's tools by name, as its final item carried them (`item.tools`)."""
    tools = (item.final or item.added or {}).get("tools")
    if not isinstance(tools, list):
        return {}
    return {str(tool.get("name")): tool for tool in tools if isinstance(tool, dict)}


def tool_list_changes(
    a: ItemState, b: ItemState, change: ChangeMaker, at: int | None
) -> list[Change]:
    """Tools added or removed, and per tool which fields appeared, disappeared or changed
    (`output_schema appeared on search_files`)."""
    tools_a, tools_b = listed_tools(a), listed_tools(b)
    found: list[ToolChange] = []
    for name in [*tools_a, *(n for n in tools_b if n not in tools_a)]:
        if name not in tools_b:
            found.append(ToolChange(name, "removed"))
        elif name not in tools_a:
            found.append(ToolChange(name, "added"))
        else:
            fields, paths = tool_field_changes(tools_a[name], tools_b[name])
            if fields:
                found.append(ToolChange(name, "changed", fields, paths))
    if not found:
        return []
    shape = [tool for tool in found if tool.shape]
    return [
        change(
            "tools" if shape else "descriptions",
            bool(shape),
            f"the tool list differs: {tools_summary(found)}",
            at,
            tools=tuple(found),
            a=list(tools_a),
            b=list(tools_b),
        )
    ]


def tools_summary(changes: Sequence[ToolChange]) -> str:
    """`2 only in B (search_files, read_file); output_schema appeared on search_files`."""
    parts = []
    for how, words in (("added", "only in B"), ("removed", "only in A")):
        names = [tool.tool for tool in changes if tool.change == how]
        if names:
            listed = ", ".join(names[:4]) + (", …" if len(names) > 4 else "")
            parts.append(f"{len(names)} {words} ({listed})")
    changed = [tool.line for tool in changes if tool.change == "changed"]
    parts += changed[:4] + ([f"{len(changed) - 4} more changed"] if len(changed) > 4 else [])
    return "; ".join(parts)


def tool_field_changes(
    a: dict[str, Any], b: dict[str, Any]
) -> tuple[tuple[tuple[str, str], ...], tuple[PathChange, ...]]:
    """Which of a tool's fields differ, and the JSON paths inside changed schemas. A field
    set to null counts as absent."""
    fields: list[tuple[str, str]] = []
    paths: list[PathChange] = []
    for key in [*a, *(k for k in b if k not in a)]:
        if key == "name":
            continue
        value_a, value_b = a.get(key), b.get(key)
        if value_a == value_b:
            continue
        if value_a is None:
            fields.append((key, "appeared"))
        elif value_b is None:
            fields.append((key, "disappeared"))
        else:
            fields.append((key, "changed"))
            if isinstance(value_a, dict) and isinstance(value_b, dict):
                paths += json_changes(value_a, value_b, (key,))
    return tuple(fields), tuple(paths[:MAX_PATHS])


def tool_seconds(run: Run, resp: ResponseState | None, item: ItemState) -> float | None:
    """An `mcp_call`'s own tool time (arguments done → completed or failed), when known."""
    if run.diagnosis is None or resp is None:
        return None
    timed = run.diagnosis.item_timing.get((resp.key, item.key))
    return timed.tool_seconds if timed is not None else None


def item_seconds(run: Run, resp: ResponseState | None, item: ItemState) -> float | None:
    """A call's own tool time when known, else the item's duration."""
    own = tool_seconds(run, resp, item)
    return own if own is not None else item.duration


def slower(seconds_a: float | None, seconds_b: float | None) -> str | None:
    """`10.2x slower (0.81s in A, 8.27s in B)`, or None when the difference is small."""
    if seconds_a is None or seconds_b is None:
        return None
    if abs(seconds_b - seconds_a) < SLOWER_SECONDS:
        return None
    low, high = sorted((seconds_a, seconds_b))
    ratio = high / max(low, 0.01)
    if ratio < SLOWER_RATIO:
        return None
    way = "slower" if seconds_b > seconds_a else "faster"
    return f"{ratio:.1f}x {way} ({seconds_a:.2f}s in A, {seconds_b:.2f}s in B)"


def timing_changes(
    a: ItemState,
    b: ItemState,
    pair: ResponsePair,
    run_a: Run,
    run_b: Run,
    change: ChangeMaker,
    at: int | None,
) -> list[Change]:
    seconds_a, seconds_b = item_seconds(run_a, pair.a, a), item_seconds(run_b, pair.b, b)
    said = slower(seconds_a, seconds_b)
    if said is None:
        return []
    return [change("timing", False, said, at, a=seconds_a, b=seconds_b)]


# -- responses ------------------------------------------------------------------------------


def response_status(resp: ResponseState) -> str:
    if resp.status:
        return resp.status
    return "request failed" if resp.request_failed else "unknown"


USAGE_KEYS = (("input_tokens", "in"), ("output_tokens", "out"), ("total_tokens", "total"))


def usage_of(resp: ResponseState) -> dict[str, int]:
    """The token counts the response reported (integers only)."""
    usage = resp.usage or {}
    return {key: usage[key] for key, _ in USAGE_KEYS if type(usage.get(key)) is int}


def response_changes(pair: ResponsePair, run_a: Run, run_b: Run, subject: str) -> list[Change]:
    """A response in one run only; its status, error kind, usage, duration and model."""
    a, b = pair.a, pair.b

    def change(kind: str, shape: bool, summary: str, at: int | None, **extra: Any) -> Change:
        return Change(kind, shape, subject, summary, pair.position, None, at, **extra)

    if b is None:
        assert a is not None
        return [
            change(
                "only_in_a", True, f"only in A ({response_status(a)})", None, a=response_status(a)
            )
        ]
    error_b, causes = response_failure(run_b, b)
    if a is None:
        summary = f"only in B ({response_status(b)}" + (f": {error_b})" if error_b else ")")
        return [
            change(
                "only_in_b",
                True,
                summary,
                first_event(b),
                b=response_status(b),
                error=error_b,
                causes=causes,
            )
        ]
    found: list[Change] = []
    end = last_event(b)
    status_a, status_b = response_status(a), response_status(b)
    error_a, _ = response_failure(run_a, a)
    if status_a != status_b:
        summary = f"{status_a} in A, {status_b} in B" + (f": {error_b}" if error_b else "")
        found.append(
            change(
                "status", True, summary, end, a=status_a, b=status_b, error=error_b, causes=causes
            )
        )
    elif error_a and error_b and error_a != error_b:
        same_kind = error_kind(a.error) == error_kind(b.error)
        found.append(
            change(
                "error_text" if same_kind else "error",
                not same_kind,
                f"failed in both: {error_a} in A, {error_b} in B",
                end,
                a=error_a,
                b=error_b,
                error=error_b,
                causes=causes,
            )
        )
    usage_a, usage_b = usage_of(a), usage_of(b)
    if usage_a and usage_b and usage_a != usage_b:
        words = ", ".join(
            f"{word} {usage_a.get(key, '?')} → {usage_b.get(key, '?')}"
            for key, word in USAGE_KEYS
            if usage_a.get(key) != usage_b.get(key)
        )
        found.append(change("usage", False, f"tokens {words}", end, a=usage_a, b=usage_b))
    said = slower(a.duration, b.duration)
    if said is not None:
        found.append(change("timing", False, said, end, a=a.duration, b=b.duration))
    if a.model and b.model and a.model != b.model:
        found.append(
            change(
                "model",
                False,
                f"model {a.model} in A, {b.model} in B",
                first_event(b),
                a=a.model,
                b=b.model,
            )
        )
    return found


def response_failure(run: Run, resp: ResponseState) -> tuple[str | None, tuple[LikelyCause, ...]]:
    """A failed response's error (redacted) and likely causes; (None, ()) otherwise."""
    if not resp.failed:
        return None, ()
    error = describe_error(resp.error) if resp.error is not None else ""
    if not error and resp.error_events and resp.error_events[0] < len(run.events):
        raw = run.events[resp.error_events[0]].raw
        error = str(raw.get("message") or describe_error(raw))
    causes = run.diagnosis.causes(resp.key) if run.diagnosis is not None else []
    return redact_text(error or "response failed with no error details"), tuple(causes)


def comparison_notes(a: Run, b: Run) -> list[str]:
    """What the reader should know about the comparison itself."""
    notes = []
    for name, run in (("A", a), ("B", b)):
        if run.events and all(event.t is None for event in run.events):
            notes.append(f"{name} has no timestamps: timing is not compared")
        if not run.state.responses:
            notes.append(f"{name} holds no response")
    if len(a.state.responses) != len(b.state.responses):
        notes.append(
            f"A holds {len(a.state.responses)} responses, B "
            f"{len(b.state.responses)}: they are paired in order"
        )
    return notes


# -- JSON diff ------------------------------------------------------------------------------


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


def json_changes(a: Any, b: Any, path: tuple[str | int, ...] = ()) -> list[PathChange]:
    """Every path where `a` and `b` differ, values redacted; at most `MAX_PATHS` + 1 (enough
    to say there are more)."""
    found: list[PathChange] = []
    _walk(a, b, path, found)
    return found


def _walk(a: Any, b: Any, path: tuple[str | int, ...], found: list[PathChange]) -> None:
    if len(found) > MAX_PATHS:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            _walk(a.get(key, MISSING), b.get(key, MISSING), (*path, str(key)), found)
    elif isinstance(a, list) and isinstance(b, list):
        for index in range(max(len(a), len(b))):
            _walk(
                a[index] if index < len(a) else MISSING,
                b[index] if index < len(b) else MISSING,
                (*path, index),
                found,
            )
    elif a is MISSING:
        found.append(PathChange(path_text(path), "added", b=shown_value(path, b)))
    elif b is MISSING:
        found.append(PathChange(path_text(path), "removed", a=shown_value(path, a)))
    elif json_type(a) != json_type(b):
        found.append(
            PathChange(path_text(path), "type", shown_value(path, a), shown_value(path, b))
        )
    elif a != b:
        found.append(
            PathChange(path_text(path), "changed", shown_value(path, a), shown_value(path, b))
        )


def path_text(path: Sequence[str | int]) -> str:
    """`filters.tags[0]`; `$` for the whole value; odd keys quoted (`["a b"]`)."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part.isidentifier():
            out += f".{part}" if out else part
        else:
            out += '["' + part.replace("\\", "\\\\").replace('"', '\\"') + '"]'
    return out or "$"


def shown_value(path: Sequence[str | int], value: Any) -> Any:
    """`value` as it may be shown: `<redacted>` under a credential-named key, else with
    key-like and bearer strings (and nested credentials) hidden."""
    if any(isinstance(part, str) and part.lower() in CREDENTIAL_KEYS for part in path):
        return REDACTED if value is not None else None
    return redact(value)


def short_json(value: Any, limit: int = 80) -> str:
    """A value as compact JSON on one line, cut at `limit` characters."""
    text = json.dumps(value, ensure_ascii=False, default=str) if value is not MISSING else "—"
    return text if len(text) <= limit else text[:limit] + "…"
