"""Everything mcptui can say about a stream beyond what it contains: conformance findings,
timing, and the likely cause of each failure. One pass, shared by `inspect` and the app."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcptui.model.causes import (
    LikelyCause,
    ProbeEvidence,
    credentials_note,
    is_private_url,
    item_causes,
    response_causes,
)
from mcptui.model.conformance import check_stream
from mcptui.model.errors import describe_error
from mcptui.model.events import Event
from mcptui.model.findings import Finding, ordered
from mcptui.model.providers import stream_provider
from mcptui.model.sdk_messages import family_of, wraps_a_plain_value
from mcptui.model.state import SessionState, mcp_entries
from mcptui.model.timeline import Timeline
from mcptui.model.timing import ItemTiming, TimingReport, timing_report
from mcptui.model.wire import WireLinks, link
from mcptui.model.wire_evidence import call_findings, handshake, listing_findings, output_schema

ItemKey = tuple[int, int]
"""(response key, item key)."""


@dataclass
class Diagnosis:
    """The findings (in timeline order), timing, and likely causes by failed item or response,
    with lookups the views need (by event, by item, by run of events)."""

    findings: list[Finding]
    timing: TimingReport
    item_causes: dict[ItemKey, list[LikelyCause]] = field(default_factory=dict)
    response_causes: dict[int, list[LikelyCause]] = field(default_factory=dict)
    by_event: dict[int, list[Finding]] = field(default_factory=dict)
    """Findings keyed by the timeline index of the event they concern."""
    by_item: dict[ItemKey, list[Finding]] = field(default_factory=dict)
    item_timing: dict[ItemKey, ItemTiming] = field(default_factory=dict)
    links: dict[int, WireLinks] = field(default_factory=dict)
    """By response key: its tap messages tied to items (computed once, for timing, causes
    and reports)."""
    _indexes: list[int] = field(default_factory=list)
    _positions: dict[str, list[int]] = field(default_factory=dict)
    """Per severity, the sorted event indexes of its findings (for counts up to a step)."""
    _unplaced: Counter[str] = field(default_factory=Counter)
    """Per severity, findings about no one event (a stream that never ended…)."""

    def __post_init__(self) -> None:
        self.item_timing = {(t.response_key, t.item_key): t for t in self.timing.items}
        for finding in self.findings:
            if finding.event_index is None:
                self._unplaced[finding.severity] += 1
            else:
                self._positions.setdefault(finding.severity, []).append(finding.event_index)
                self.by_event.setdefault(finding.event_index, []).append(finding)
            if finding.response_key is not None and finding.item_key is not None:
                self.by_item.setdefault((finding.response_key, finding.item_key), []).append(
                    finding
                )
        self._indexes = sorted(self.by_event)
        for positions in self._positions.values():
            positions.sort()

    def counts_up_to(self, position: int, at_end: bool) -> dict[str, int]:
        """Findings by severity on the events before step `position` (and, at the end, those
        about no one event): what the header counts, in O(log n) a step."""
        return {
            severity: bisect_left(self._positions.get(severity, []), position)
            + (self._unplaced[severity] if at_end else 0)
            for severity in ("error", "warning", "info")
        }

    def in_span(self, first: int, last: int, item: ItemKey | None = None) -> list[Finding]:
        """Findings on events first..last (a coalesced run), of one item when given."""
        found: list[Finding] = []
        for index in self._indexes[
            bisect_left(self._indexes, first) : bisect_right(self._indexes, last)
        ]:
            found += [
                f
                for f in self.by_event[index]
                if item is None or (f.response_key, f.item_key) == item
            ]
        return found

    def causes(self, response_key: int, item_key: int | None = None) -> list[LikelyCause]:
        if item_key is None:
            return self.response_causes.get(response_key, [])
        return self.item_causes.get((response_key, item_key), [])

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]


def diagnose(
    events: Sequence[Event],
    state: SessionState,
    *,
    complete: bool = True,
    request: dict[str, Any] | None = None,
    probes: Mapping[ItemKey, ProbeEvidence] | None = None,
    response_probes: Mapping[int, ProbeEvidence] | None = None,
    endpoint: str | None = None,
    provider: str | None = None,
) -> Diagnosis:
    """Diagnose a folded stream. `state` is the reducer's state after every event in
    `events`; `request` (a recording's header) supplies server URLs the stream may not echo;
    `probes` holds what probing failed items showed, `response_probes` what probing a failed
    response's server showed; `endpoint` (a recording's) tells a local API from OpenAI's;
    `provider` who sent the stream (its SDK-shape findings name it)."""
    api_local = is_private_url(endpoint)
    links = {resp.key: link(resp, events) for resp in state.responses}
    timing = timing_report(state, events, links=links)
    findings = ordered(
        [*check_stream(events, state, complete=complete, provider=provider), *timing.findings]
    )
    diagnosis = Diagnosis(findings, timing, links=links)
    for resp in state.responses:
        urls = server_urls(mcp_entries({"tools": resp.tools}) + mcp_entries(request))
        asked = {  # the request's own entries (a response's echo keeps no credentials)
            str(e.get("server_label")): e for e in reversed(mcp_entries(request))
        }
        tied = links[resp.key]
        for item in resp.items:
            if not item.failed or item.type not in ("mcp_call", "mcp_list_tools"):
                continue
            key = (resp.key, item.key)
            timed = diagnosis.item_timing.get(key)
            wire = (
                call_findings(resp, item, tied, item.last_t)
                if item.type == "mcp_call"
                else listing_findings(tied.by_item.get(item.key, []))
            )
            listing = tied.listing_for(resp, item) if item.type == "mcp_call" else None
            found = item_causes(
                resp,
                item,
                events,
                tool_seconds=timed.tool_seconds if timed else None,
                server_url=urls.get(item.server_label or ""),
                probe=(probes or {}).get(key),
                api_local=api_local,
                wire=wire,
                family=family_of(
                    handshake(tied.loose, item.server_label), (describe_error(item.error),)
                ),
                declares_output_schema=None
                if listing is None
                else structured_output(output_schema(listing, item.name or "")),
                credentials=credentials_note(asked.get(item.server_label or "")),
            )
            if found:
                diagnosis.item_causes[key] = found
        found = response_causes(
            resp,
            events,
            request=request,
            api_local=api_local,
            probe=(response_probes or {}).get(resp.key),
            wire=listing_findings(tied.loose),
        )
        if found:
            diagnosis.response_causes[resp.key] = found
    return diagnosis


def header_options(header: Mapping[str, Any] | None) -> dict[str, Any]:
    """What a recording's header tells `diagnose`: the request (server URLs the stream may
    not echo), the endpoint (a local API reaches private URLs) and the provider (who sent
    it); None where absent."""
    request, endpoint = (header or {}).get("request"), (header or {}).get("endpoint")
    return {
        "request": request if isinstance(request, dict) else None,
        "endpoint": endpoint if isinstance(endpoint, str) else None,
        "provider": stream_provider(header),
    }


def diagnose_events(
    events: Sequence[Event], snapshots: Sequence[dict[str, Any]] = (), **options: Any
) -> Diagnosis:
    """Fold `events` on a timeline of their own, then diagnose: safe to run in a thread
    while the app's own timeline keeps stepping."""
    timeline = Timeline(events, snapshots)
    timeline.seek_end()
    return diagnose(timeline.events, timeline.state, **options)


def structured_output(schema: dict[str, Any] | None) -> bool:
    """A declared outputSchema with a structure of its own (not one an SDK made to wrap a
    plain return value): one the tool's output check can fail."""
    return schema is not None and not wraps_a_plain_value(schema)


def server_urls(entries: list[dict[str, Any]]) -> dict[str, str]:
    """server_label → server_url from `mcp` tool entries; the first entry of a label wins."""
    urls: dict[str, str] = {}
    for tool in entries:
        label, url = tool.get("server_label"), tool.get("server_url")
        if isinstance(label, str) and isinstance(url, str):
            urls.setdefault(label, url)
    return urls
