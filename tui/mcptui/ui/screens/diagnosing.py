"""The inspector's diagnosis scheduling: checks re-run in a thread (or a child process for a
big replay) as events arrive, and probes of failed calls, whose results can confirm a cause."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.worker import Worker, WorkerState

from mcptui.io.diagnose_file import diagnose_path
from mcptui.model.causes import ProbeEvidence, mcp_entries
from mcptui.model.diagnosis import (
    Diagnosis,
    ItemKey,
    diagnose_events,
    header_options,
)
from mcptui.model.state import ItemState, ResponseState, parse_json_text
from mcptui.model.textsafe import visible
from mcptui.ui.widgets.findings import FindingsList

if TYPE_CHECKING:
    from mcptui.ui.screens.inspector import InspectorScreen

DIAGNOSE_EVERY = 1.0
"""Seconds between re-running the checks while events keep arriving (in a thread)."""
CHILD_AFTER = 20_000
"""A replayed file with this many events is diagnosed in a child process, which costs the UI's
stepping nothing (a thread would compete with it for the GIL): see mcptui/io/child_process.py."""
PROBE_TIMEOUT = 60.0
"""The probe waits as long as OpenAI would (about 60 s) before calling a tool timed out."""


def probe_evidence(report: object) -> ProbeEvidence | None:
    """What a probe report (mcptui.probe.ServerReport) says, for the likely-cause rules."""
    from mcptui.probe.probing import evidence_of

    return evidence_of(report)  # type: ignore[arg-type]


class DiagnosisMixin:
    """Checks and probes of the InspectorScreen (which this is mixed into)."""

    def diagnose(self: InspectorScreen, *, force: bool = False) -> None:
        """Check the events so far, when there are new ones (or `force`): in a thread, or in a
        child process for a big replay."""
        timeline = self.session.timeline
        if self.session.loading is not None:
            return  # checked once all is read (LoadingMixin.all_read)
        if timeline.total == self._diagnosed_total and not force:
            return
        if not force and self.live is not None and self.live.behind:
            return  # a flood: checking all events so far each second would halve reading
        if any(w.group == "diagnose" and w.is_running for w in self.workers):
            self._diagnose_again = True  # when the running check ends: nothing is dropped
            return
        self._diagnose_again = False
        self._diagnosed_total = timeline.total
        events = list(timeline.events)
        probes = {
            key: evidence
            for key, report in self.probes.items()
            if (evidence := probe_evidence(report)) is not None
        }
        options = {
            "complete": not self._live_running(),
            "probes": probes,
            **header_options(self.session.header),
        }
        source = self.session.source
        if not self.session.live and len(events) >= CHILD_AFTER and Path(source).is_file():
            from mcptui.io.child_process import in_child

            self.run_worker(
                in_child(diagnose_path, source, **options), group="diagnose", exit_on_error=False
            )
            return

        def work() -> Diagnosis:
            return diagnose_events(events, timeline.snapshots, **options)

        self.run_worker(work, thread=True, group="diagnose", exit_on_error=False)

    def _live_running(self: InspectorScreen) -> bool:
        if self.session.receiving is not None:
            return self.session.receiving()
        return self.live is not None and any(
            w.group == "live" and w.is_running for w in self.app.workers
        )

    def on_worker_state_changed(self: InspectorScreen, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group == "probe" and event.state == WorkerState.ERROR:
            self.notify(f"The probe failed: {worker.error!r}", severity="error")
            self.show_detail(self.tree.cursor_node)
        if worker.group != "diagnose":
            return
        if event.state == WorkerState.SUCCESS:
            self.diagnosed(worker.result)  # type: ignore[arg-type]
        elif event.state == WorkerState.ERROR:
            self.notify(f"Checking the stream failed: {worker.error!r}", severity="error")
        if event.state in (WorkerState.SUCCESS, WorkerState.ERROR) and self._diagnose_again:
            self.diagnose(force=True)

    def diagnosed(self: InspectorScreen, diagnosis: Diagnosis) -> None:
        self.diagnosis = diagnosis
        self.tree.set_diagnosis(diagnosis)
        self.query_one(FindingsList).show(diagnosis.findings)
        self.refresh_header()
        self.show_detail(self.tree.cursor_node)

    def probing_note(self: InspectorScreen, name: str | None) -> Text:
        return Text(
            f"probing {visible(name or 'the tool')}… (up to {PROBE_TIMEOUT:g} s, as "
            "long as OpenAI waits)",
            "cyan",
        )

    def _probe_target(self: InspectorScreen) -> tuple[ResponseState, ItemState] | None:
        """The selected node's item when it is a failed mcp_call whose server URL is known
        (from the request, a recording's header, or the tools the response echoed)."""
        found = self._failed_call()
        if found is None or self.tool_entry(found[1].server_label, found[0]) is None:
            return None
        return found

    def no_probe_reason(self: InspectorScreen) -> str | None:
        """Why `p` cannot probe the selected failed call (None when it can, or when nothing
        probeable is selected): said in the detail pane instead of offering the key."""
        found = self._failed_call()
        if found is None or self.tool_entry(found[1].server_label, found[0]) is not None:
            return None
        label = visible(found[1].server_label or "?")
        return (
            f"no probe from here: this file names no server URL for {label!r} (no request "
            "and no tools echoed in response.created); `mcptui probe REQUEST.json "
            "--recording FILE` takes it from your request"
        )

    def _failed_call(self: InspectorScreen) -> tuple[ResponseState, ItemState] | None:
        """The selected node's item when it is a failed mcp_call."""
        node = self.tree.cursor_node
        ref = node.data if node is not None else None
        state = self.session.timeline.state
        if ref is None or ref.item is None or ref.response >= len(state.responses):
            return None
        resp = state.responses[ref.response]
        item = resp.items[ref.item] if ref.item < len(resp.items) else None
        if item is None or item.type != "mcp_call" or not item.failed or not item.name:
            return None
        return resp, item

    def _update_probe_key(self: InspectorScreen) -> None:
        can_probe = self._probe_target() is not None
        if can_probe != self._can_probe:
            self._can_probe = can_probe
            self.refresh_bindings()

    def tool_entry(
        self: InspectorScreen, server_label: str | None, resp: ResponseState | None = None
    ) -> tuple[dict[str, object], bool] | None:
        """The `mcp` tool entry for a server, and whether its secrets were redacted: from a
        live run's real request, else a recording's (redacted) request, else the tools the
        response echoed (any file with a `response.created`: a paste, an archive)."""
        live = self.live
        sources: list[tuple[object, bool]] = []
        if live is not None and live.first_request is not None:
            sources.append((live.first_request, False))
        sources.append(((self.session.header or {}).get("request"), True))
        if resp is not None:
            sources.append(({"tools": resp.tools}, True))
        for request, redacted in sources:
            for tool in mcp_entries(request):
                if tool.get("server_label") == server_label:
                    return tool, redacted
        return None

    def action_probe(self: InspectorScreen) -> None:
        target = self._probe_target()
        if target is None:
            self.notify(
                self.no_probe_reason() or "Select a failed mcp_call to probe it.",
                severity="warning",
            )
            return
        resp, item = target
        key = (resp.key, item.key)
        if key in self.probing:
            return
        found = self.tool_entry(item.server_label, resp)
        if found is None:
            self.notify(
                f"The request has no mcp tool for server "
                f"{visible(item.server_label or '?')!r}: nothing to probe.",
                severity="warning",
            )
            return
        entry, redacted = found
        arguments = parse_json_text(item.arguments or "{}")
        self.probing.add(key)
        self.probes.pop(key, None)
        node = self.tree.item_node(resp.key, item.key)
        if node is not None and node is not self.tree.cursor_node:
            self.follow = False  # from one of its events: the item's detail shows the result
            self.move_cursor(node)
        self.show_detail(self.tree.cursor_node)
        self.run_worker(
            self._probe(key, entry, item.name or "", arguments, redacted),
            group="probe",
            exit_on_error=False,
        )

    async def _probe(
        self: InspectorScreen,
        key: ItemKey,
        entry: dict[str, object],
        name: str,
        arguments: object,
        redacted: bool,
    ) -> None:
        from mcptui.probe.probing import probe_call

        try:
            report = await probe_call(
                entry, name, arguments, timeout=PROBE_TIMEOUT, redacted=redacted
            )
        finally:
            self.probing.discard(key)
        self.probes[key] = report
        self.diagnose(force=True)  # the probe's evidence may confirm a cause
        self.show_detail(self.tree.cursor_node)
