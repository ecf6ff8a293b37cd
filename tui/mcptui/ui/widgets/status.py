"""The header: which response, its status, and where playback stands."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from mcptui.model.providers import differs
from mcptui.model.textsafe import visible
from mcptui.sources.session import Session
from mcptui.ui.widgets.labels import ERROR_STYLE, STATUS_STYLE


def status_line(
    session: Session,
    failures: int,
    mode: str,
    findings: dict[str, int] | None = None,
    *,
    clock: float | None = None,
    so_far: bool = False,
) -> Text:
    """The response (and who answers it, when not OpenAI); playback position, failures and
    findings (`so far`: up to this step), play state and filter, the clock (seconds since the
    session's first event); then request id and recording path when there are any. Each on
    its own line, cut rather than wrapped, so none pushes another away."""
    timeline = session.timeline
    state = timeline.state
    resp = state.current
    line = Text()
    provider = session.provider_label
    # Who answers, when it is not OpenAI: before the id, which a narrow terminal cuts.
    via = f"via {visible(provider or '')}  " if differs(provider) else ""
    if resp is None:
        line.append(via, "bold blue")
        line.append(visible(session.idle_hint) or "no response yet", "dim")
    else:
        # Status first: on a narrow terminal the long id and model are what gets cut.
        if resp.status or resp.id:
            status = resp.status or "unknown"
            line.append(f"{status}  ", ERROR_STYLE if resp.failed else STATUS_STYLE.get(status, ""))
        line.append(via, "bold blue")
        line.append(visible(resp.name), ERROR_STYLE if resp.request_failed else "bold")
        if resp.model:
            line.append(f"  {visible(resp.model)}", "magenta")
        if len(state.responses) > 1:
            line.append(f"  (response {resp.key + 1} of {len(state.responses)})", "dim")
    line.append("\n")
    line.append(f"step {timeline.position} / {timeline.total}", "bold")
    line.append("  ")
    line.append(
        f"{failures} failure{'s' if failures != 1 else ''}", ERROR_STYLE if failures else "green"
    )
    if findings is not None:  # counts by severity
        errors, warnings = findings["error"], findings["warning"]
        if errors:
            line.append(f"  {errors} conformance error{'s' if errors != 1 else ''}", "red")
        if warnings:
            line.append(f"  {warnings} warning{'s' if warnings != 1 else ''}", "yellow")
    if so_far:
        line.append(" so far", "dim")
    line.append(f"  {mode}", "cyan")  # before the clock: on 80 columns the filter must show
    player = session.player
    now = player.stream_time(timeline.position) if clock is None else clock
    line.append(f"  t={now:.2f}s / {max(player.duration, now):.2f}s", "dim")
    extra = Text()
    verdict = session.verdicts.get(resp.key) if resp is not None else None
    if verdict is not None:
        good = verdict.good
        mark, style = (
            ("…", "bold yellow")
            if good is None
            else ("✓", "bold green")
            if good
            else ("✗", "bold red")
        )
        extra.append(f"{mark} {visible(verdict.text)}", style)
        extra.append("  (D: the diff)  " if verdict.good is not None else "  ", "dim")
    if session.recording_path:
        extra.append(f"● recording {short_path(visible(session.recording_path))}  ", "red")
    request_id = session.request_id_at(timeline.position)
    if request_id:
        extra.append(f"x-request-id {visible(request_id)}", "dim")
    if extra:
        line.append("\n")
        line.append_text(extra)
    line.no_wrap = True
    line.overflow = "ellipsis"
    return line


def short_path(path: str, limit: int = 64) -> str:
    """A long path with its middle elided: the folder and the end of the name stay."""
    if len(path) <= limit:
        return path
    keep = limit - 1
    return f"{path[: keep // 2]}…{path[-(keep - keep // 2) :]}"


class StatusHeader(Static):
    DEFAULT_CSS = """
    StatusHeader { height: auto; max-height: 3; padding: 0 1; background: $panel;
                   text-wrap: nowrap; text-overflow: ellipsis; }
    """

    _rows = -1
    """Line breaks in what is shown (-1: nothing shown yet)."""

    def show(
        self,
        session: Session,
        failures: int,
        mode: str,
        findings: dict[str, int] | None = None,
        *,
        clock: float | None = None,
        so_far: bool = False,
    ) -> None:
        line = status_line(session, failures, mode, findings, clock=clock, so_far=so_far)
        rows = line.plain.count("\n")
        self.update(line, layout=rows != self._rows)  # a new layout only for a new height
        self._rows = rows
