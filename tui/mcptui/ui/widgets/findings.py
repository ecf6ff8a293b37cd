"""The findings list: conformance and timing findings, one line each; Enter jumps to the event.

Findings come from `mcptui.model.diagnosis`; this widget only shows them. Text from the stream
(event types, field names in messages) goes into `Text` as plain text after `visible()`.
"""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from mcptui.model.findings import Finding, count_by_severity, suggestion_label
from mcptui.model.textsafe import one_line
from mcptui.share.status_marks import FINDING_MARK

MAX_SHOWN = 2000
"""A stream with a finding on every event would otherwise build 200k options."""


def finding_text(finding: Finding) -> Text:
    mark, style = FINDING_MARK.get(finding.severity, ("·", ""))
    text = Text(f"{mark} ", style)
    text.append(finding.code, "bold")
    if finding.event_index is not None:
        text.append(f"  step {finding.event_index + 1}", "dim")
    text.append("\n  ")
    text.append(one_line(finding.message, 300))
    if finding.suggestion:
        text.append(f"\n  {suggestion_label(finding)} ", "dim")
        text.append(one_line(finding.suggestion, 200), "bold")
    return text


def summary_text(findings: list[Finding]) -> str:
    counts = count_by_severity(findings)
    parts = [f"{n} {kind}{'s' if n != 1 else ''}" for kind, n in counts.items() if n]
    return ", ".join(parts) if parts else "no findings"


class FindingsList(OptionList):
    """Every finding of the session; choosing one asks the screen to go to its event."""

    class Chosen(Message):
        """The user chose a finding (Enter or click)."""

        def __init__(self, finding: Finding) -> None:
            super().__init__()
            self.finding = finding

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.findings: list[Finding] = []
        self._final = False
        """The list shows finished checks (not the "checking…" placeholder)."""

    def show(self, findings: list[Finding], *, pending: bool = False) -> None:
        """Replace the list; `pending` says the checks are still running."""
        if findings == self.findings and not pending and self._final:
            return
        self.findings = findings
        self._final = not pending
        highlighted = self.highlighted
        self.clear_options()
        if pending and not findings:
            self.add_option(Option(Text("Checking the stream…", "dim"), disabled=True))
            return
        if not findings:
            self.add_option(
                Option(
                    Text(
                        "No findings: every event conforms to the installed "
                        "SDK's types, in order and complete.",
                        "green",
                    ),
                    disabled=True,
                )
            )
            return
        self.add_option(
            Option(
                Text.assemble(
                    (summary_text(findings), "bold"), ("  · Enter goes to the event", "dim")
                ),
                disabled=True,
            )
        )
        self.add_options(
            Option(finding_text(f), id=str(n)) for n, f in enumerate(findings[:MAX_SHOWN])
        )
        if len(findings) > MAX_SHOWN:
            self.add_option(
                Option(
                    Text(f"… {len(findings) - MAX_SHOWN:,} more (see `mcptui inspect`)", "dim"),
                    disabled=True,
                )
            )
        if highlighted is not None and highlighted < self.option_count:
            self.highlighted = highlighted

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option.id
        if option_id is not None:
            self.post_message(self.Chosen(self.findings[int(option_id)]))
