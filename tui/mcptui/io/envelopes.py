"""Events that arrive inside another library's envelope, taken out of it.

The Agents SDK (`openai-agents`) streams `RawResponsesStreamEvent(data=<the Responses event>,
type='raw_response_event')` beside its own `RunItemStreamEvent` and `AgentUpdatedStreamEvent`;
people print those, or write `{"type": "raw_response_event", "data": event.data.model_dump()}`
per line. The Responses event is `data`; the Agents SDK's own events repeat what the raw
events already say (a run item is an output item the stream carried), so they are skipped and
counted, never read as events of unknown type. Unless the raw events are not there: the Agents
SDK's own streaming example skips them (`if event.type == "raw_response_event": continue`) and
prints the rest; each run item then stands for the output item it carries (`raw_item`).
"""

from __future__ import annotations

import re
from typing import Any

RAW_RESPONSE_EVENT = "raw_response_event"
RUN_ITEM_EVENT = "run_item_stream_event"
AGENTS_OWN_EVENTS = frozenset({RUN_ITEM_EVENT, "agent_updated_stream_event"})
"""The Agents SDK's stream events that are not the Responses API's."""
ENVELOPE_TYPES = AGENTS_OWN_EVENTS | {RAW_RESPONSE_EVENT}
ENVELOPE_TYPE = re.compile(r'"type"\s*:\s*"(?:' + "|".join(sorted(ENVELOPE_TYPES)) + r')"')
"""An envelope's type as JSON spells it: a file whose opening holds one is read whole (the
lazy readers of tui/mcptui/io/indexed.py keep each line's JSON as it is)."""


class AgentsEvents:
    """Sorts the events of a text as they are read: Responses events kept (out of their
    envelope), the Agents SDK's own skipped and counted, its run items held until the end
    says whether raw events carried the same stream."""

    def __init__(self) -> None:
        self.raw_seen = False
        self.run_items: list[tuple[int | None, dict[str, Any]]] = []
        """(line, the output item's `response.output_item.done`) of each run item held."""
        self.skipped = 0
        self.kept_items = 0

    def take(self, obj: dict[str, Any], line: int | None) -> dict[str, Any] | None:
        """The Responses event to keep for `obj` now (`obj` itself when it is no envelope);
        None when it is held or skipped."""
        kind = obj.get("type")
        if kind == RAW_RESPONSE_EVENT and isinstance(obj.get("data"), dict):
            self.raw_seen = True
            return obj["data"]
        if kind == RUN_ITEM_EVENT and (done := _item_done(obj)) is not None:
            self.run_items.append((line, done))
            return None
        if kind in AGENTS_OWN_EVENTS:
            self.skipped += 1
            return None
        return obj

    def finish(self) -> list[tuple[int | None, dict[str, Any]]]:
        """The run items to keep, as the events that end their output items: all of them
        when no raw event carried the stream, else none (skipped: the raw events say it)."""
        held, self.run_items = self.run_items, []
        if self.raw_seen:
            self.skipped += len(held)
            return []
        self.kept_items += len(held)
        return held

    def problems(self) -> list[str]:
        """What was skipped, and what the run items stood for."""
        said = []
        if self.skipped:
            events = "event" if self.skipped == 1 else "events"
            why = (
                "(run items, agent updates) skipped: the raw_response_event events carry the "
                "same stream"
                if self.raw_seen
                else "(agent updates) skipped: they carry no output item"
            )
            said.append(f"{self.skipped} Agents SDK {events} of its own {why}")
        if self.kept_items:
            said.append(
                f"{self.kept_items} Agents SDK run items read as the output items they carry: "
                "no raw_response_event in it, so no deltas, lifecycle or timing"
            )
        return said


def _item_done(obj: dict[str, Any]) -> dict[str, Any] | None:
    item = obj.get("item")
    raw = item.get("raw_item") if isinstance(item, dict) else None
    if isinstance(raw, dict) and isinstance(raw.get("type"), str):
        return {"type": "response.output_item.done", "item": raw}
    return None
