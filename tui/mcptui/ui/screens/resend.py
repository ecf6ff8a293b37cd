"""Edit and re-send (`e`), and the verdict on it (`D`).

`e` opens the selected response's request as sent (else the run's first) in the editor
(edit_request.py); what it sends is a new response root in the same session and recording, as
`r` sends. Once that response has ended it is compared with the one it was edited from
(tui/mcptui/model/resend_verdict.py): the header says "fixed: …", "still failing: …" or
"different failure: …" on it, a toast says it too, and `D` opens the two side by side in
`mcptui diff`'s screen.

A run that sends (`mcptui run`, `mcptui demo`) sends with its own client. A replay of a file
that holds its request (a recording, an archive) sends too, once its secrets are given (they
were redacted: `${NAME}` from the environment) with the environment's `OPENAI_API_KEY` and
`OPENAI_BASE_URL` (else the recording's endpoint): the replay then goes on as a live run, its
new responses recorded to a file of their own. The proxy and an attach say what to run
instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from mcptui.model.resend_verdict import Verdict, verdict
from mcptui.model.state import ResponseState, SessionState
from mcptui.model.textsafe import visible
from mcptui.ui.actions import available_when
from mcptui.ui.screens.host import host_app

if TYPE_CHECKING:
    from mcptui.ui.screens.host import Host


class Resend:
    """The inspector screen's edit-and-re-send (which holds this). What it needs of the diff
    engine, the editor and the export's placeholders is imported when a key is pressed: the
    first screen does without (tests/unit/test_architecture.py)."""

    ACTIONS = available_when("resend")

    def __init__(self, screen: Host) -> None:
        self.screen = screen
        self.pairs: list[tuple[int, int]] = []
        """(edited from, the re-send) response keys, in the order their verdicts came."""

    # -- what applies ------------------------------------------------------------------------

    def available(self, action: str) -> bool:
        if action == "edit_request":
            return self._why_not() is None
        return bool(self.pairs)  # diff_edited

    def _why_not(self) -> str | None:
        live = self.screen.live_actions.live
        if live is not None and live.first_request is not None:
            return None
        if self.screen.session.receiving is not None:
            return "the proxy records your app's requests; it sends none of its own"
        if live is None:
            if self._recorded_request() is None:
                return (
                    "this file holds no request to edit (a recording or an archive does): "
                    "`mcptui run REQUEST.json` and press e there"
                )
            if self.screen.rest_reader.reading is not None:
                return "the recording is still being read: press e once it is"
            return None
        return "attached to a response this session did not send: no request to edit"

    def _recorded_request(self) -> dict[str, Any] | None:
        """A replay's request (its secrets redacted): what `e` edits when nothing was sent."""
        request = (self.screen.session.header or {}).get("request")
        return request if isinstance(request, dict) and request else None

    def _selected(self) -> ResponseState | None:
        node = self.screen.tree.cursor_node
        ref = node.data if node is not None else None
        state = self.screen.session.timeline.state
        if ref is not None and 0 <= ref.response < len(state.responses):
            return state.responses[ref.response]
        return state.current

    def listed_tools(self) -> dict[str, list[str]]:
        """Each server label's tools known from the session: its listings and its calls."""
        listed: dict[str, list[str]] = {}
        for resp in self.screen.session.timeline.final_state().responses:
            for item in resp.items:
                if not item.server_label:
                    continue
                names = listed.setdefault(item.server_label, [])
                found = item.tool_names if item.type == "mcp_list_tools" else [item.name or ""]
                names += [name for name in found if name and name not in names]
        return listed

    # -- the keys ----------------------------------------------------------------------------

    def action_edit_request(self) -> None:
        why = self._why_not()
        live = self.screen.live_actions.live
        if why is not None:
            self.screen.notify(f"Nothing to edit: {why}.", severity="warning")
            return
        resp = self._selected()
        request: dict[str, Any] | None
        if live is not None and live.first_request is not None:
            request = (live.request_for(resp.id) if resp is not None else None) or (
                live.first_request
            )
        else:
            request = self._recorded_request()
        if request is None:
            return
        title = (
            f"response {resp.key + 1}'s request" + (f" ({resp.id})" if resp.id else "")
            if resp is not None
            else "the first request"
        )
        from mcptui.share.editable_request import editable_request
        from mcptui.ui.screens.edit_request import EditRequestScreen

        before = resp.key if resp is not None else 0
        app = host_app(self.screen)
        self.screen.app.push_screen(
            EditRequestScreen(
                editable_request(request),
                title,
                self.listed_tools(),
                preflight=lambda: app.live_for_replay(self.screen.clock()),
            ),
            lambda edited: self._send(before, edited),
        )

    def _send(self, before: int, request: dict[str, Any] | None) -> None:
        if request is None:
            return
        self.screen.playback.expect_new_response()
        host_app(self.screen).run_live(self._send_and_judge(before, request), "send")
        self.screen.notify("Sending the edited request: a new response, compared when it ends.")

    async def _send_and_judge(self, before: int, request: dict[str, Any]) -> None:
        live = self.screen.live_actions.live
        assert live is not None
        timeline = self.screen.session.timeline
        count = len(timeline.final_state().responses)
        response_id = await live.send(request)
        state = timeline.final_state()
        new = next((r for r in state.responses if response_id and r.id == response_id), None)
        if new is None and len(state.responses) > count:
            new = state.responses[count]  # no id: the request itself failed
        if new is None or before >= len(state.responses):
            self.screen.notify("The edited request made no response to compare.", severity="error")
            return
        found = verdict(state.responses[before], new)
        self.screen.session.verdicts[new.key] = found
        self.pairs.append((before, new.key))
        self.screen.refresh_bindings()
        self.screen.header_clock.refresh_header()
        self._tell(found, before, new.key)

    def _tell(self, found: Verdict, before: int, after: int) -> None:
        severity: Literal["information", "warning", "error"] = (
            "information" if found.good else "warning" if found.good is None else "error"
        )
        self.screen.notify(
            f"Response {after + 1} against response {before + 1}: {visible(found.text)}. "
            "D shows the two side by side.",
            severity=severity,
            timeout=10,
        )

    def action_diff_edited(self) -> None:
        if not self.pairs:
            self.screen.notify(
                "No edited re-send to compare yet: press e, change the request, send it.",
                severity="warning",
            )
            return
        from mcptui.model.run_diff import Run, compare

        before, after = self._pair_for_selection()
        timeline = self.screen.session.timeline
        state = timeline.final_state()
        runs = [
            Run(SessionState(responses=[state.responses[key]]), timeline.events)
            for key in (before, after)
        ]
        from mcptui.ui.screens.diff_screen import DiffScreen

        self.screen.app.push_screen(
            DiffScreen(
                compare(*runs),
                (f"response {before + 1} (edited from)", f"response {after + 1} (edited)"),
                closable=True,
            )
        )

    def _pair_for_selection(self) -> tuple[int, int]:
        """The pair the selected response belongs to, else the newest."""
        resp = self._selected()
        if resp is not None:
            for before, after in reversed(self.pairs):
                if resp.key in (before, after):
                    return before, after
        return self.pairs[-1]
