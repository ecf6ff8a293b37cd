"""Events that arrive inside another library's envelope, taken out of it.

The Agents SDK (`openai-agents`) streams `RawResponsesStreamEvent(data=<the Responses event>,
type='raw_response_event')` beside its own `RunItemStreamEvent` and `AgentUpdatedStreamEvent`;
people print those, or write `{"type": "raw_response_event", "data": event.data.model_dump()}`
per line. The Responses event is `data`; the Agents SDK's own events repeat what the raw
events already say (a run item is an output item the stream carried), so they are skipped and
counted, never read as events of unknown type.
"""

from __future__ import annotations

import re
from typing import Any

RAW_RESPONSE_EVENT = "raw_response_event"
AGENTS_OWN_EVENTS = frozenset({"run_item_stream_event", "agent_updated_stream_event"})
"""The Agents SDK's stream events that are not the Responses API's."""
ENVELOPE_TYPES = AGENTS_OWN_EVENTS | {RAW_RESPONSE_EVENT}
ENVELOPE_TYPE = re.compile(r'"type"\s*:\s*"(?:' + "|".join(sorted(ENVELOPE_TYPES)) + r')"')
"""An envelope's type as JSON spells it: a file whose opening holds one is read whole (the
lazy readers of tui/mcptui/io/indexed.py keep each line's JSON as it is)."""


def unwrapped(obj: dict[str, Any]) -> dict[str, Any] | None:
    """The Responses event `obj` carries (`obj` itself when it is no envelope); None for an
    Agents SDK event of its own, which carries none."""
    kind = obj.get("type")
    if kind == RAW_RESPONSE_EVENT and isinstance(obj.get("data"), dict):
        return obj["data"]
    if kind in AGENTS_OWN_EVENTS:
        return None
    return obj


def agents_skipped(count: int) -> str:
    """The problem that counts the Agents SDK's own events left out."""
    events = "event" if count == 1 else "events"
    return (
        f"{count} Agents SDK {events} of its own (run items, agent updates) skipped: "
        "the raw_response_event events carry the same stream"
    )
