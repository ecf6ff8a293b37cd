"""The inspector's keys that act on a failure's likely cause. Each sends a changed copy of the
request that started the failed response (never that request itself) as a new response root,
recorded like `r`:

- `u` re-runs a bare background failure in the foreground: with `background: true` an MCP
  failure can end in a `response.failed` that names no tool; streamed in the foreground, the
  mcp_call's own error shows.
- `t` re-runs with only the selected failed call's tool allowed on its server, to see whether
  it fails alone.

Each key is in the footer only where it can run. A replay has no API client (and `attach` no
request): there the detail pane says what to run instead, and the action, reached from the
command palette, says why it cannot.
"""

from __future__ import annotations

import copy
import json
from typing import TYPE_CHECKING, Any, NamedTuple

from rich.text import Text

from mcptui.model.state import ResponseState, mcp_entries
from mcptui.model.textsafe import visible
from mcptui.ui.actions import BY_NAME, available_when
from mcptui.ui.screens.host import host_app

if TYPE_CHECKING:
    from mcptui.ui.screens.host import Host

FOREGROUND_KEY = BY_NAME["rerun_foreground"].keys
ONLY_TOOL_KEY = BY_NAME["rerun_only_tool"].keys
BARE_BACKGROUND = "background_bare_failure"
"""The cause (tui/mcptui/model/causes.py) whose "try" `u` does."""


def foreground_request(request: dict[str, Any]) -> dict[str, Any]:
    """A copy of `request` with background off, streaming: a foreground run reports the
    mcp_call's own error, which a bare background failure hides."""
    changed = copy.deepcopy(request)
    changed["background"] = False
    if "stream" in changed:  # `"stream": false` was for polling a background run
        changed["stream"] = True
    return changed


def only_tool_request(
    request: dict[str, Any], server_label: str | None, tool: str
) -> dict[str, Any] | None:
    """A copy of `request` whose `mcp` entries for `server_label` allow only `tool` (the other
    entries and fields unchanged); None when no entry names that server."""
    changed = copy.deepcopy(request)
    entries = [e for e in mcp_entries(changed) if e.get("server_label") == server_label]
    for entry in entries:
        entry["allowed_tools"] = [tool]
    return changed if entries else None


class Blocked(NamedTuple):
    """Why a cause action cannot run now, and the command that does it instead (if any)."""

    why: str
    instead: str | None = None

    def sentence(self) -> str:
        """For a toast: `Why: instead.`"""
        text = f"{self.why}: {self.instead}" if self.instead else self.why
        return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")

    def note(self) -> str:
        """For the detail pane, where the command comes first: `instead (why)`."""
        return f"{self.instead} ({self.why})" if self.instead else self.why


class CauseActions:
    """Cause actions of the inspector screen (which holds this)."""

    def __init__(self, screen: Host) -> None:
        self.screen = screen

    CAUSE_ACTIONS = available_when("cause")
    _cause_keys: frozenset[str] = frozenset()
    """The cause actions the footer offers now (updated with the detail pane)."""

    # -- what applies ------------------------------------------------------------------------

    def _bare_background(self) -> ResponseState | None:
        """The selected node's response, when it failed and a bare background failure is one
        of its likely causes."""
        node = self.screen.tree.cursor_node
        ref = node.data if node is not None else None
        state = self.screen.session.timeline.state
        if (
            ref is None
            or self.screen.diagnosing.diagnosis is None
            or not 0 <= ref.response < len(state.responses)
        ):
            return None
        resp = state.responses[ref.response]
        causes = self.screen.diagnosing.diagnosis.causes(resp.key) if resp.failed else []
        return resp if any(c.cause.key == BARE_BACKGROUND for c in causes) else None

    def _request_of(self, resp: ResponseState) -> dict[str, Any] | None:
        """The request, as sent (secrets and all), that started `resp` (else the run's first):
        what a cause action changes a copy of, so that `t` on a call of a `u` re-run stays in
        the foreground. None in a replay (no client) or an attach (no request)."""
        live = self.screen.live_actions.live
        if live is None or live.first_request is None:
            return None
        return live.request_for(resp.id) or live.first_request

    def _no_request(self, change: str) -> Blocked | None:
        """Why this session cannot send the changed request, and how to send it instead."""
        if (
            self.screen.live_actions.live is not None
            and self.screen.live_actions.live.first_request is not None
        ):
            return None
        if self.screen.session.receiving is not None:
            why = "the proxy records your app's requests; it sends none of its own"
        elif self.screen.live_actions.live is None:
            why = "a replay cannot send requests"
        else:
            why = "attached to a response this session did not send: no request to re-send"
        return Blocked(why, f"run `mcptui run REQUEST.json` with {change}")

    def _cannot_foreground(self) -> Blocked | None:
        """Why `u` cannot run now; None when it can."""
        if self._bare_background() is None:
            return Blocked(
                "select a background response that failed with no mcp_call error "
                "of its own to re-run it in the foreground"
            )
        return self._no_request('"background": false')

    def _cannot_only_tool(self) -> Blocked | None:
        """Why `t` cannot run now; None when it can."""
        found = self.screen.diagnosing._failed_call()
        if found is None:
            return Blocked("select a failed mcp_call to re-run with only its tool allowed")
        item = found[1]
        label = visible(item.server_label or "?")
        request = self._request_of(found[0])
        if request is None:
            return self._no_request(
                f'"allowed_tools": {visible(json.dumps([item.name]))} in the {label!r} mcp tool'
            )
        entries = [e for e in mcp_entries(request) if e.get("server_label") == item.server_label]
        if not entries:
            return Blocked(f"the request has no mcp tool for server {label!r}: nothing to narrow")
        if all(e.get("allowed_tools") == [item.name] for e in entries):
            return Blocked(
                f"only {visible(item.name or '?')!r} is allowed on {label!r} "
                "already: this run isolates the call"
            )
        return None

    def _update_cause_keys(self) -> None:
        """Offer in the footer just the cause actions that can run for the selection."""
        keys = frozenset(
            action
            for action, blocked in (
                ("rerun_foreground", self._cannot_foreground()),
                ("rerun_only_tool", self._cannot_only_tool()),
            )
            if blocked is None
        )
        if keys != self._cause_keys:
            self._cause_keys = keys
            self.screen.refresh_bindings()

    # -- the detail pane ---------------------------------------------------------------------

    def response_actions(self) -> dict[str, Text]:
        """For a bare background failure's "try": the key that does it, or what to run."""
        if self._bare_background() is None:
            return {}
        blocked = self._cannot_foreground()
        if blocked is None:
            return {
                BARE_BACKGROUND: Text.assemble(
                    ("press ", "dim"),
                    (FOREGROUND_KEY, "bold cyan"),
                    (
                        " to do it now: the same request with background off, as a new response",
                        "dim",
                    ),
                )
            }
        return {BARE_BACKGROUND: Text(blocked.note(), "dim")}

    def item_actions(self) -> list[Text]:
        """For a failed mcp_call: the key that isolates it, or what to run instead."""
        found = self.screen.diagnosing._failed_call()
        if found is None:
            return []
        blocked = self._cannot_only_tool()
        if blocked is not None:
            return [Text(f"to isolate this call, {blocked.note()}", "dim")]
        name, label = visible(found[1].name or "?"), visible(found[1].server_label or "?")
        return [
            Text.assemble(
                ("press ", "dim"),
                (ONLY_TOOL_KEY, "bold cyan"),
                (
                    f" to isolate this call: the same request with only {name!r} allowed on "
                    f"{label!r}",
                    "dim",
                ),
            )
        ]

    # -- the keys ----------------------------------------------------------------------------

    def action_rerun_foreground(self) -> None:
        blocked, resp = self._cannot_foreground(), self._bare_background()
        request = self._request_of(resp) if resp is not None else None
        if blocked is not None or request is None:
            self.screen.notify(
                (blocked or Blocked("nothing to re-run")).sentence(), severity="warning"
            )
            return
        self._send_changed(
            foreground_request(request),
            "Re-running in the foreground (background off): a new response.",
        )

    def action_rerun_only_tool(self) -> None:
        blocked, found = self._cannot_only_tool(), self.screen.diagnosing._failed_call()
        request = self._request_of(found[0]) if found is not None else None
        changed = None
        if blocked is None and found is not None and request is not None:
            changed = only_tool_request(request, found[1].server_label, found[1].name or "")
        if changed is None or found is None:
            self.screen.notify(
                (blocked or Blocked("nothing to re-run")).sentence(), severity="warning"
            )
            return
        name, label = visible(found[1].name or "?"), visible(found[1].server_label or "?")
        self._send_changed(
            changed, f"Re-running with only {name!r} allowed on {label!r}: a new response."
        )

    def _send_changed(self, request: dict[str, Any], message: str) -> None:
        """Like `r`: a new response root in this session and its recording."""
        self.screen.playback.expect_new_response()
        host_app(self.screen).send(request)
        self.screen.notify(message)
