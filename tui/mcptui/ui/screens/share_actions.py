"""The inspector's sharing keys: `R` writes the session's report, `E` exports its request as
a curl command, a Python snippet and a request file. Both go next to the recordings, redacted,
never over another file; a toast names what was written.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from mcptui.io.recording import DEFAULT_RECORD_DIR, Loaded, unused_path
from mcptui.ui.screens.host import host_app

if TYPE_CHECKING:
    from mcptui.sources.session import Session
    from mcptui.ui.screens.host import Host


def session_file(session: Session) -> Path | None:
    """The file the session is recorded to (a live run) or was opened from (a replay)."""
    if session.recording_path:
        return Path(session.recording_path)
    source = Path(session.source) if session.source else None
    return source if source is not None and source.is_file() else None


def share_folder(session: Session) -> Path:
    """Beside the session's file, else in the default recordings folder."""
    found = session_file(session)
    return found.parent if found is not None else DEFAULT_RECORD_DIR


def share_stem(session: Session) -> str:
    """Named after the session's file, else after the time."""
    found = session_file(session)
    return found.stem if found is not None else datetime.now().strftime("%Y%m%d-%H%M%S-mcptui")


def write_beside(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = unused_path(folder / name)
    target.write_text(text, encoding="utf-8")
    return target


class ShareActions:
    """Report and export of the inspector screen (which holds this)."""

    def __init__(self, screen: Host) -> None:
        self.screen = screen

    def action_report(self) -> None:
        """The report of everything in the session (not only up to the cursor), with the
        probes run from here as evidence; built in a thread (a big session takes a while)."""
        from mcptui.share.report import markdown_report
        from mcptui.ui.screens.diagnosing import probe_evidence

        session = self.screen.session
        loaded = Loaded(
            list(session.timeline.events),
            list(session.timeline.snapshots),
            header=session.header,
            format="mcptui session",
            source=session.recording_path or session.source,
        )
        probes = {
            key: evidence
            for key, report in self.screen.diagnosing.probes.items()
            if (evidence := probe_evidence(report)) is not None
        }
        secrets = host_app(self.screen).session_secrets()
        folder, stem = share_folder(session), share_stem(session)

        def work() -> Path:
            from mcptui.share.inspect_output import Inspection

            document = markdown_report([Inspection.of(loaded, probes=probes)], secrets=secrets)
            return write_beside(folder, f"{stem}-report.md", document)

        self._write_in_thread(work, "report", lambda path: f"Report saved to {path}")

    def action_export(self) -> None:
        from mcptui.share.export import header_export

        exported = header_export(
            self.screen.session.header or {},
            source=self.screen.session.recording_path or self.screen.session.source,
        )
        if exported is None:
            self.screen.notify(
                "Nothing to export: this file holds no request (a stream dump). A "
                "recording made by `mcptui run`, `proxy` or `demo` has one.",
                severity="warning",
            )
            return
        texts, variables = exported
        folder, stem = share_folder(self.screen.session), share_stem(self.screen.session)
        suffixes = {"curl": ".sh", "python": ".py", "request": ".json"}
        try:
            written = [
                write_beside(folder, f"{stem}-request{suffixes[kind]}", texts[kind])
                for kind in suffixes
            ]
            written[0].chmod(0o755)  # the curl script runs as it is
        except OSError as exc:
            self.screen.notify(
                f"Could not export to {folder}: {exc.strerror or exc}", severity="error"
            )
            return
        needed = ", ".join(variables)
        self.screen.notify(
            f"Exported the request to {written[0].with_suffix('')}.sh, .py and .json "
            f"(curl, openai SDK, mcptui run). Set first: {needed}",
            timeout=12,
        )

    def _write_in_thread(
        self, work: Callable[[], Path], name: str, done: Callable[[Path], str]
    ) -> None:
        app = self.screen.app

        def run() -> None:
            try:
                path = work()
            except OSError as exc:
                app.call_from_thread(
                    self.screen.notify,
                    f"Could not write the {name}: {exc.strerror or exc}",
                    severity="error",
                )
                return
            except Exception as exc:  # a bug: said, never a silent no-op
                app.call_from_thread(
                    self.screen.notify, f"The {name} failed: {exc!r}", severity="error"
                )
                return
            app.call_from_thread(self.screen.notify, done(path), timeout=10)

        self.screen.run_worker(run, thread=True, group="share", name=name, exit_on_error=False)
