"""`w`: the tool workspace (tool_workspace.py) over the inspector, on the session's MCP servers.

The servers are the `mcp` entries of the live run's request as sent (headers and all), else the
recording's request (redacted: the workspace says so), else the tools the responses echoed.
Opened on a failed mcp_call, the form holds that call's arguments. In a live run each call
made from the workspace is added to the session and its recording as a `probe` note."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcptui.model.events import note
from mcptui.model.state import mcp_entries, parse_json_text
from mcptui.model.textsafe import one_line
from mcptui.ui.actions import available_when

if TYPE_CHECKING:
    from mcptui.ui.screens.host import Host
    from mcptui.ui.screens.tool_workspace import Call, ToolSource


class ToolActions:
    """The inspector screen's tool workspace key (which holds this)."""

    ACTIONS = available_when("tools")

    def __init__(self, screen: Host) -> None:
        self.screen = screen
        self._known: tuple[tuple[int, bool], bool] | None = None
        """(what `available` was last asked about, its answer)."""

    def available(self) -> bool:
        """Whether the session names a server to call. Asked at every footer refresh, so the
        answer is kept until the session has more responses or a first request (a server,
        once named, stays named): no walk of every response's tools each time."""
        live = self.screen.live_actions.live
        responses = self.screen.session.timeline.state.responses
        key = (len(responses), live is not None and live.first_request is not None)
        if self._known is not None and (self._known[1] or self._known[0] == key):
            return self._known[1]
        requests = [
            (self.screen.session.header or {}).get("request"),
            live.first_request if live is not None else None,
            *({"tools": resp.tools} for resp in responses),
        ]
        found = any(entry.get("server_url") for r in requests for entry in mcp_entries(r))
        self._known = (key, found)
        return found

    def sources(self) -> list[ToolSource]:
        from mcptui.ui.screens.tool_workspace import ToolSource

        live = self.screen.live_actions.live
        found: list[tuple[Any, bool]] = []
        if live is not None and live.first_request is not None:
            found.append((live.first_request, False))
        found.append(((self.screen.session.header or {}).get("request"), True))
        for resp in self.screen.session.timeline.final_state().responses:
            found.append(({"tools": resp.tools}, True))
        sources: list[ToolSource] = []
        seen: set[str] = set()
        for request, redacted in found:
            for entry in mcp_entries(request):
                label = str(entry.get("server_label") or "?")
                if label not in seen and entry.get("server_url"):
                    seen.add(label)
                    sources.append(ToolSource(label, entry, redacted))
        return sources

    def action_tool_workspace(self) -> None:
        from mcptui.ui.screens.tool_workspace import Prefill, ToolWorkspaceScreen

        sources = self.sources()
        if not sources:
            self.screen.notify(
                "No MCP server to call: the session names no mcp tool with a server_url.",
                severity="warning",
            )
            return
        prefill = None
        found = self.screen.diagnosing._failed_call()
        if found is not None:
            item = found[1]
            prefill = Prefill(
                item.server_label or "", item.name or "", parse_json_text(item.arguments or "{}")
            )
        live = self.screen.live_actions.live
        self.screen.app.push_screen(
            ToolWorkspaceScreen(
                sources, prefill=prefill, record=self._recorder() if live is not None else None
            )
        )

    def _recorder(self) -> Any:
        def record(call: Call) -> None:
            live = self.screen.live_actions.live
            if live is None or call.report is None:
                return
            report = call.report
            outcome = "accepted" if report.ok else f"{report.kind or 'failed'}"
            live.add(
                note(
                    "probe",
                    one_line(
                        f"tool workspace: tools/call {report.tool} on {report.server_label} "
                        f"(#{call.number}): {outcome}"
                    ),
                    live.now(),
                    call=report.as_json(),
                )
            )

        return record
