"""Copy the selection's JSON, save the session as a recording, open another file."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from mcptui.io.recording import (
    DEFAULT_RECORD_DIR,
    make_header,
    recording_name,
    save_recording,
    unused_path,
)
from mcptui.model.textsafe import visible
from mcptui.ui.screens.host import host_app

if TYPE_CHECKING:
    from mcptui.ui.screens.host import Host


class FileActions:
    """Copy the selection's JSON, save the session as a recording, open another file."""

    def __init__(self, screen: Host) -> None:
        self.screen = screen

    def action_copy(self) -> None:
        text = self.screen.detail_view.selected_event_json()
        if text is None:
            self.screen.notify(
                "Select an event, item or response to copy its JSON.", severity="warning"
            )
            return
        self.screen.app.copy_to_clipboard(text)
        self.screen.notify(f"Copied {len(text):,} characters of JSON.")

    def default_save_path(self) -> Path:
        """Named as automatic recordings are, in the same folder; never an existing file."""
        resp = self.screen.session.timeline.state.current
        name = recording_name(resp.id if resp else None, datetime.now())
        return unused_path(DEFAULT_RECORD_DIR / name)

    def save_to(self, path: Path, *, overwrite: bool = False) -> Path:
        header = make_header("saved", original=self.screen.session.source)
        if self.screen.session.header:
            for key in ("request", "endpoint", "http"):
                if key in self.screen.session.header:
                    header[key] = self.screen.session.header[key]
        return save_recording(
            path, header, self.screen.session.timeline.events, overwrite=overwrite
        )

    def action_save(self) -> None:
        from mcptui.ui.screens.prompt import ConfirmScreen, PromptScreen

        def write(path: Path, overwrite: bool = False) -> None:
            try:
                written = self.save_to(path, overwrite=overwrite)
            except OSError as exc:
                self.screen.notify(f"Could not save: {exc}", severity="error")
                return
            self.screen.notify(f"Saved {self.screen.session.timeline.total:,} events to {written}")

        def answered(answer: str | None) -> None:
            if not answer:
                return
            path = Path(answer).expanduser()
            if not path.exists():
                write(path)
                return
            question = f"{visible(str(path))} exists. Overwrite it?"
            self.screen.app.push_screen(
                ConfirmScreen(question),
                lambda yes: (
                    write(path, overwrite=True)
                    if yes
                    else self.screen.notify(f"Not saved: {path} is unchanged.", severity="warning")
                ),
            )

        self.screen.app.push_screen(
            PromptScreen("Save recording as", str(self.default_save_path())), answered
        )

    def action_open(self) -> None:
        from mcptui.ui.screens.open_dialog import OpenScreen

        def done(answer: str | None) -> None:
            if answer:
                host_app(self.screen).open_path(answer)

        self.screen.app.push_screen(
            OpenScreen("Open a recording, a stream dump, or a stored response id (resp_…)", ""),
            done,
        )
