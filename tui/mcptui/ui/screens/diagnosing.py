"""The inspector's diagnosis scheduling: checks re-run in a thread (or a child process for a
big replay) as events arrive, and probes of failed calls, whose results can confirm a cause."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.worker import Worker, WorkerState

from mcptui.model.state import ItemState, ResponseState, mcp_entries, parse_json_text
from mcptui.model.textsafe import visible
from mcptui.ui.widgets.findings import FindingsList

if TYPE_CHECKING:
    # The checks' own modules (~18 ms of imports: causes, conformance, SDK messages) load
    # when the first check starts, after the first frame (InspectorScreen._jump_at_mount).
    from mcptui.model.causes import ProbeEvidence
    from mcptui.model.diagnosis import Diagnosis, ItemKey
    from mcptui.ui.screens.host import Host

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


class Diagnosing:
    """Checks and probes of the inspector screen (which holds this)."""

    def __init__(self, screen: Host) -> None:
        self.screen = screen
        self.diagnosis: Diagnosis | None = None
        """Findings, timing and likely causes of the events so far; None until checked."""
        self._diagnosed_total = -1
        self._diagnose_again = False
        self.probes: dict[ItemKey, object] = {}
        """Probe reports (mcptui.probe.ServerReport) of failed calls, by (response, item) key."""
        self.probing: set[ItemKey] = set()
        self._can_probe = False

    def diagnose(self, *, force: bool = False) -> None:
        """Check the events so far, when there are new ones (or `force`): in a thread, or in a
        child process for a big replay."""
        from mcptui.io.diagnose_file import diagnose_path
        from mcptui.model.diagnosis import diagnose_events, header_options

        timeline = self.screen.session.timeline
        if self.screen.session.loading is not None:
            return  # checked once all is read (Loading.all_read)
        if timeline.total == self._diagnosed_total and not force:
            return
        if (
            not force
            and self.screen.live_actions.live is not None
            and self.screen.live_actions.live.behind
        ):
            return  # a flood: checking all events so far each second would halve reading
        if any(w.group == "diagnose" and w.is_running for w in self.screen.workers):
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
            **header_options(self.screen.session.header),
            "provider": self.screen.session.provider_label,  # a live run's before its header
        }
        source = self.screen.session.source
        if not self.screen.session.live and len(events) >= CHILD_AFTER and Path(source).is_file():
            from mcptui.io.child_process import in_child

            self.screen.run_worker(
                in_child(diagnose_path, source, **options), group="diagnose", exit_on_error=False
            )
            return

        def work() -> Diagnosis:
            return diagnose_events(events, timeline.snapshots, **options)

        self.screen.run_worker(work, thread=True, group="diagnose", exit_on_error=False)

    def _live_running(self) -> bool:
        if self.screen.session.receiving is not None:
            return self.screen.session.receiving()
        return self.screen.live_actions.live is not None and any(
            w.group == "live" and w.is_running for w in self.screen.app.workers
        )

    def worker_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group == "probe" and event.state == WorkerState.ERROR:
            self.screen.notify(f"The probe failed: {worker.error!r}", severity="error")
            self.screen.detail_view.show_detail(self.screen.tree.cursor_node)
        if worker.group != "diagnose":
            return
        if event.state == WorkerState.SUCCESS:
            self.diagnosed(worker.result)  # type: ignore[arg-type]
        elif event.state == WorkerState.ERROR:
            self.screen.notify(f"Checking the stream failed: {worker.error!r}", severity="error")
        if event.state in (WorkerState.SUCCESS, WorkerState.ERROR) and self._diagnose_again:
            self.diagnose(force=True)

    def diagnosed(self, diagnosis: Diagnosis) -> None:
        self.diagnosis = diagnosis
        self.screen.tree.set_diagnosis(diagnosis)
        self.screen.mount_hidden()
        self.screen.query_one(FindingsList).show(diagnosis.findings)
        self.screen.header_clock.refresh_header()
        self.screen.detail_view.show_detail(self.screen.tree.cursor_node)

    def probing_note(self, name: str | None) -> Text:
        return Text(
            f"probing {visible(name or 'the tool')}… (up to {PROBE_TIMEOUT:g} s, as "
            "long as OpenAI waits)",
            "cyan",
        )

    def _probe_target(self) -> tuple[ResponseState, ItemState] | None:
        """The selected node's item when it is a failed mcp_call whose server URL is known
        (from the request, a recording's header, or the tools the response echoed)."""
        found = self._failed_call()
        if found is None or self.tool_entry(found[1].server_label, found[0]) is None:
            return None
        return found

    def no_probe_reason(self) -> str | None:
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

    def _failed_call(self) -> tuple[ResponseState, ItemState] | None:
        """The selected node's item when it is a failed mcp_call."""
        node = self.screen.tree.cursor_node
        ref = node.data if node is not None else None
        state = self.screen.session.timeline.state
        if ref is None or ref.item is None or ref.response >= len(state.responses):
            return None
        resp = state.responses[ref.response]
        item = resp.items[ref.item] if ref.item < len(resp.items) else None
        if item is None or item.type != "mcp_call" or not item.failed or not item.name:
            return None
        return resp, item

    def _update_probe_key(self) -> None:
        can_probe = self._probe_target() is not None
        if can_probe != self._can_probe:
            self._can_probe = can_probe
            self.screen.refresh_bindings()

    def tool_entry(
        self, server_label: str | None, resp: ResponseState | None = None
    ) -> tuple[dict[str, object], bool] | None:
        """The `mcp` tool entry for a server, and whether its secrets were redacted: from a
        live run's real request, else a recording's (redacted) request, else the tools the
        response echoed (any file with a `response.created`: a paste, an archive)."""
        live = self.screen.live_actions.live
        sources: list[tuple[object, bool]] = []
        if live is not None and live.first_request is not None:
            sources.append((live.first_request, False))
        sources.append(((self.screen.session.header or {}).get("request"), True))
        if resp is not None:
            sources.append(({"tools": resp.tools}, True))
        for request, redacted in sources:
            for tool in mcp_entries(request):
                if tool.get("server_label") == server_label:
                    return tool, redacted
        return None

    def action_probe(self) -> None:
        target = self._probe_target()
        if target is None:
            self.screen.notify(
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
            self.screen.notify(
                f"The request has no mcp tool for server "
                f"{visible(item.server_label or '?')!r}: nothing to probe.",
                severity="warning",
            )
            return
        entry, redacted = found
        arguments = parse_json_text(item.arguments or "{}")
        self.probing.add(key)
        self.probes.pop(key, None)
        node = self.screen.tree.item_node(resp.key, item.key)
        if node is not None and node is not self.screen.tree.cursor_node:
            self.screen.playback.follow = (
                False  # from one of its events: the item's detail shows the result
            )
            self.screen.playback.move_cursor(node)
        self.screen.detail_view.show_detail(self.screen.tree.cursor_node)
        self.screen.run_worker(
            self._probe(key, entry, item.name or "", arguments, redacted),
            group="probe",
            exit_on_error=False,
        )

    async def _probe(
        self,
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
        self.screen.detail_view.show_detail(self.screen.tree.cursor_node)
