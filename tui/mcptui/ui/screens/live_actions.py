"""The inspector's live-run keys: approve or deny an approval request, cancel a background
run, re-run the request. Shown in the footer only when they apply."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcptui.model.state import ItemState, ResponseState
from mcptui.model.status import APPROVAL_REQUEST
from mcptui.model.textsafe import visible
from mcptui.ui.actions import available_when
from mcptui.ui.screens.host import host_app

if TYPE_CHECKING:
    from mcptui.sources.live import LiveRun
    from mcptui.ui.screens.host import Host, HostApp


class LiveActions:
    """Live actions of the inspector screen (which holds this)."""

    def __init__(self, screen: Host) -> None:
        self.screen = screen
        self.answered: set[str] = set()
        """Approval requests answered from this screen (each is answered once)."""

    LIVE_ACTIONS = available_when("live")

    @property
    def live(self) -> LiveRun | None:
        return getattr(self.screen.app, "live", None)

    def _live_keys(self) -> frozenset[str]:
        """Live actions that make sense now: the footer shows only these."""
        live = self.live
        if live is None:
            return frozenset()
        keys = {"rerun"}
        if self.pending_approval() is not None:
            keys |= {"approve", "deny"}
        if live.current.background and live.current.id and not live.current.terminal:
            keys.add("cancel_run")
        return frozenset(keys)

    def pending_approval(self) -> tuple[ResponseState, ItemState] | None:
        """The selected approval request, else the newest one not answered yet."""
        state = self.screen.session.timeline.state
        node = self.screen.tree.cursor_node
        ref = node.data if node is not None else None
        if ref is not None and ref.item is not None and ref.response < len(state.responses):
            resp = state.responses[ref.response]
            item = resp.items[ref.item] if ref.item < len(resp.items) else None
            if item is not None and self._unanswered(item):
                return resp, item
        for resp in reversed(state.responses):
            for item in reversed(resp.items):
                if self._unanswered(item):
                    return resp, item
        return None

    def _unanswered(self, item: ItemState) -> bool:
        """An approval request neither answered here nor by a request in the recording."""
        return (
            item.type == APPROVAL_REQUEST
            and item.answer is None
            and item.item_id not in self.answered
        )

    @property
    def app(self) -> HostApp:
        return host_app(self.screen)

    def _answer(self, approve: bool) -> None:
        live, pending = self.live, self.pending_approval()
        if live is None:
            return
        resp, item = pending if pending is not None else (None, None)
        if resp is None or item is None or resp.id is None or item.item_id is None:
            self.screen.notify("No approval request to answer.", severity="warning")
            return
        self.answered.add(item.item_id)
        self.screen.playback.follow = True
        self.app.send(live.approval_request(resp.id, item.item_id, approve))
        verb = "Approved" if approve else "Denied"
        self.screen.notify(f"{verb} {visible(item.name or 'the call')}: sending the follow-up.")

    def action_approve(self) -> None:
        self._answer(True)

    def action_deny(self) -> None:
        self._answer(False)

    def action_cancel_run(self) -> None:
        if self.live is not None:
            self.app.run_live(self.live.cancel(), "cancel")

    def action_rerun(self) -> None:
        live = self.live
        if live is None or live.first_request is None:
            self.screen.notify("Nothing to re-run.", severity="warning")
            return
        self.screen.playback.expect_new_response()
        self.app.send(live.first_request)
        self.screen.notify("Sending the request again: a new response root.")
