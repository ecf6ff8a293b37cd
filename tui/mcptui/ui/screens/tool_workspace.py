"""The tool workspace (`w`, `mcptui tools`): each MCP server's tools, a form for a tool's
arguments, a call made from here, and every call kept in a history.

The servers are the request's `mcp` tool entries (with their headers: a recording's are
redacted, and the listing says so). The tools come from a listing made from here
(tui/mcptui/probe/probing.py `list_tools`): description, annotations, input and output schema.
The form comes from the input schema (tui/mcptui/model/schema_form.py), pre-filled with the
arguments of the failed call the workspace was opened on; F2 switches to raw JSON for what a
form cannot say. Ctrl+S (or Ctrl+Enter) checks the arguments against the schema (a second
press sends them anyway) and calls the tool with the probe's client (`probe_call`: both
protocol revisions, the entry's headers). The answer shows what OpenAI would report, the
likely cause it matches, each check (structuredContent against the outputSchema with the
failing JSON path), the time, and the result as JSON. Every call goes to the history (and,
in a live run, to the recording as a `probe` note): Enter on one shows it again and puts its
arguments back in the form.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rich.console import Group
from rich.syntax import Syntax
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Label, OptionList, Select, Static, TextArea
from textual.widgets.option_list import Option

from mcptui.model.jsonsafe import loads
from mcptui.model.schema_form import (
    Field,
    arguments_of,
    fields_of,
    schema_problems,
    text_of,
)
from mcptui.model.textsafe import one_line, visible
from mcptui.ui.actions import FOCUS_AT_ONCE
from mcptui.ui.safe_app import SafeApp

RESULT_LINES = 60
"""Lines of a result's JSON shown (the rest is counted)."""


@dataclass(frozen=True, slots=True)
class ToolSource:
    """One server the workspace can call: its `mcp` tool entry, as sent or as recorded."""

    label: str
    entry: dict[str, Any] = field(repr=False)
    redacted: bool = False
    """From a recording: its header values are gone, the server may refuse."""


@dataclass(frozen=True, slots=True)
class Prefill:
    label: str
    tool: str
    arguments: Any


@dataclass(slots=True)
class Listed:
    source: ToolSource
    tool: Any
    """The probe's ToolReport."""


@dataclass(slots=True)
class Call:
    number: int
    listed: Listed
    arguments: Any
    report: Any = None
    """The probe's CallReport (None while it runs)."""
    server: Any = None
    """The probe's ServerReport of the call."""


class ToolWorkspaceScreen(ModalScreen[None]):
    """Full screen; Esc closes it (in `mcptui tools`, Esc or Ctrl+C quits)."""

    BINDINGS = [
        Binding("ctrl+s,ctrl+enter", "call", "Call", priority=True, id="call"),
        Binding("f2", "raw", "Raw JSON / form", id="raw"),
        Binding("escape", "close", "Back", id="close"),
        *FOCUS_AT_ONCE,
    ]
    DEFAULT_CSS = """
    ToolWorkspaceScreen { background: $surface; }
    ToolWorkspaceScreen #tw-title { height: auto; padding: 0 1; background: $panel; }
    ToolWorkspaceScreen #tw-panes { height: 1fr; }
    ToolWorkspaceScreen #tw-tools { width: 34; height: 1fr; }
    ToolWorkspaceScreen #tw-main { width: 1fr; height: 1fr; padding: 0 1; }
    ToolWorkspaceScreen.narrow #tw-panes { layout: vertical; }
    ToolWorkspaceScreen.narrow #tw-tools { width: 1fr; height: 7; }
    ToolWorkspaceScreen #tw-form { height: auto; }
    ToolWorkspaceScreen #tw-form Label { margin-top: 1; }
    ToolWorkspaceScreen #tw-raw { height: 10; display: none; }
    ToolWorkspaceScreen.raw #tw-raw { display: block; }
    ToolWorkspaceScreen.raw #tw-form { display: none; }
    ToolWorkspaceScreen #tw-history { height: auto; max-height: 8; }
    ToolWorkspaceScreen #tw-keys { height: 1; color: $text-muted; padding: 0 1; }
    """

    def __init__(
        self,
        sources: list[ToolSource],
        *,
        prefill: Prefill | None = None,
        record: Callable[[Call], None] | None = None,
        closable: bool = True,
    ) -> None:
        super().__init__()
        self.sources = sources
        self.prefill = prefill
        self.record = record
        """Told of each call once answered (a live run records it as a `probe` note)."""
        self.closable = closable
        self.listed: list[Listed] = []
        self.current: Listed | None = None
        self.fields: list[Field] | None = None
        self.history: list[Call] = []
        self._inputs: dict[str, Widget] = {}
        """The form's boxes by field name."""
        self._confirm: str | None = None
        """The arguments (as JSON) whose schema problems were shown: a second Ctrl+S sends."""

    def compose(self) -> ComposeResult:
        yield Static(Text("Tool workspace · listing the tools…", "bold"), id="tw-title")
        with Horizontal(id="tw-panes"):
            yield OptionList(id="tw-tools")
            with VerticalScroll(id="tw-main", can_focus=False):
                yield Static(id="tw-about")
                yield Vertical(id="tw-form")
                yield TextArea.code_editor("{}", language="json", id="tw-raw", tab_behavior="focus")
                yield Static(id="tw-problems")
                yield Static(id="tw-result")
                yield Label(
                    Text("history (Enter: show it again, arguments back in the form)", "dim")
                )
                yield OptionList(id="tw-history")
        yield Static(
            Text(
                "ctrl+s call · f2 raw JSON / form · tab next field · esc "
                + ("back" if self.closable else "quit"),
                "dim",
            ),
            id="tw-keys",
        )

    def on_mount(self) -> None:
        self.set_class(self.app.size.width < 100, "narrow")
        self.query_one("#tw-tools", OptionList).border_title = "tools"
        self._list_all()

    def on_resize(self) -> None:
        self.set_class(self.app.size.width < 100, "narrow")

    # -- the listing -------------------------------------------------------------------------

    @work(exclusive=True, group="tool-listing", exit_on_error=False)
    async def _list_all(self) -> None:
        from mcptui.probe.probing import list_tools

        tools = self.query_one("#tw-tools", OptionList)
        problems: list[str] = []
        for source in self.sources:
            report = await list_tools(source.entry, redacted=source.redacted)
            if not report.reachable:
                problems.append(f"{source.label}: {report.problem or 'unreachable'}")
                if report.oauth is not None:  # a 401/403: what the server wants, on a line
                    problems.append(
                        f"{source.label} {report.oauth.summary()}"
                        + (
                            " (`mcptui tools URL --oauth` gets a token)"
                            if report.oauth.oauth
                            else ""
                        )
                    )
                continue
            for tool in report.tools:
                self.listed.append(Listed(source, tool))
                tools.add_option(Option(Text(f"{visible(source.label)} · {visible(tool.name)}")))
        title = Text("Tool workspace", "bold")
        count = len(self.listed)
        title.append(f" · {count} tool{'s' if count != 1 else ''}", "dim")
        for problem in problems:
            title.append(f"\n✗ {visible(one_line(problem, 400))}", "red")
        if problems and not self.listed and self.prefill is not None:
            recorded = one_line(json.dumps(self.prefill.arguments, ensure_ascii=False), 120)
            title.append(
                f"\nthe recorded call: {visible(self.prefill.tool)} {visible(recorded)} on "
                f"{visible(self.prefill.label)}"
                + (
                    "; its header values were redacted: --header NAME=VALUE supplies them"
                    if any(source.redacted for source in self.sources)
                    else ""
                ),
                "dim",
            )
        self.query_one("#tw-title", Static).update(title)
        if self.listed:
            index = self._prefilled_index()
            tools.highlighted = index
            prefill = self.prefill
            self._choose(
                self.listed[index],
                prefill.arguments if prefill is not None and self._prefits(index) else None,
            )
            tools.focus()

    def _prefilled_index(self) -> int:
        for index in range(len(self.listed)):
            if self._prefits(index):
                return index
        return 0

    def _prefits(self, index: int) -> bool:
        listed, prefill = self.listed[index], self.prefill
        return (
            prefill is not None
            and listed.source.label == prefill.label
            and listed.tool.name == prefill.tool
        )

    @on(OptionList.OptionSelected, "#tw-tools")
    def _tool_selected(self, event: OptionList.OptionSelected) -> None:
        self._choose(self.listed[event.option_index], None)

    def _choose(self, listed: Listed, arguments: Any) -> None:
        self.current = listed
        self._confirm = None
        tool = listed.tool
        self.query_one("#tw-about", Static).update(_about(listed))
        self.fields = fields_of(tool.input_schema)
        self._build_form(arguments if isinstance(arguments, dict) else {})
        raw = self.query_one("#tw-raw", TextArea)
        raw.text = json.dumps(arguments if isinstance(arguments, dict) else {}, indent=2)
        self.set_class(self.fields is None, "raw")
        self.query_one("#tw-problems", Static).update("")
        self.query_one("#tw-result", Static).update("")

    def _build_form(self, arguments: dict[str, Any]) -> None:
        form = self.query_one("#tw-form", Vertical)
        form.remove_children()  # (removed after this handler: the new ones have no ids)
        widgets: list[Widget] = []
        self._inputs = {}
        for field_ in self.fields or []:
            mark = " *" if field_.required else ""
            label = Text.assemble(
                (f"{field_.name}{mark}", "bold"), (f"  {field_.type_text}", "dim")
            )
            if field_.description:
                label.append(f"  {one_line(field_.description, 120)}", "dim")
            widgets.append(Label(label))
            widgets.append(box := _widget(field_, arguments.get(field_.name)))
            self._inputs[field_.name] = box
        form.mount_all(widgets)

    # -- arguments ---------------------------------------------------------------------------

    def arguments(self) -> tuple[Any, list[str]]:
        """The arguments the form (or the raw JSON) makes, and what is wrong with them."""
        if self.fields is None or self.has_class("raw"):
            text = self.query_one("#tw-raw", TextArea).text
            try:
                return loads(text or "{}"), []
            except json.JSONDecodeError as exc:
                return None, [f"not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"]
        texts = {name: _text_of_widget(box) for name, box in self._inputs.items()}
        return arguments_of(self.fields, texts)

    def action_raw(self) -> None:
        """Form → raw JSON (the form's arguments as text), or back (the JSON in the form)."""
        if self.fields is None:
            self.notify("This tool's input schema has no properties: raw JSON only.")
            return
        if self.has_class("raw"):
            arguments, problems = self.arguments()
            if problems or not isinstance(arguments, dict):
                self.notify(
                    f"Not a JSON object: {problems[0] if problems else ''}", severity="error"
                )
                return
            self._build_form(arguments)
            self.remove_class("raw")
        else:
            arguments, _ = self.arguments()
            self.query_one("#tw-raw", TextArea).text = json.dumps(arguments, indent=2)
            self.add_class("raw")

    # -- calling -----------------------------------------------------------------------------

    def action_call(self) -> None:
        # After what is queued for the boxes (a paste is a message of its own, which a
        # Ctrl+S pressed right after it would otherwise overtake).
        self.call_after_refresh(self._call_now)

    def _call_now(self) -> None:
        listed = self.current
        if listed is None:
            self.notify("No tool listed to call.", severity="warning")
            return
        arguments, problems = self.arguments()
        shown = self.query_one("#tw-problems", Static)
        if problems:
            shown.update(Text("\n".join(f"✗ {visible(p)}" for p in problems), "red"))
            return
        wrong = schema_problems(listed.tool.input_schema, arguments)
        key = json.dumps(arguments, sort_keys=True)
        if wrong and self._confirm != key:
            self._confirm = key
            text = Text("The arguments do not match the input schema:\n", "yellow")
            text.append("\n".join(f"✗ {visible(p)}" for p in wrong), "red")
            text.append(
                "\nctrl+s again sends them anyway (the server's answer to bad input)", "dim"
            )
            shown.update(text)
            return
        self._confirm = None
        shown.update("")
        call = Call(len(self.history) + 1, listed, arguments)
        self.history.append(call)
        history = self.query_one("#tw-history", OptionList)
        history.add_option(Option(_history_line(call)))
        self.query_one("#tw-result", Static).update(
            Text(f"calling {visible(listed.tool.name)} on {visible(listed.source.label)}…", "dim")
        )
        self._call(call)

    @work(group="tool-call", exit_on_error=False)
    async def _call(self, call: Call) -> None:
        from mcptui.probe.probing import probe_call

        server = await probe_call(
            call.listed.source.entry,
            call.listed.tool.name,
            call.arguments,
            redacted=call.listed.source.redacted,
        )
        call.server = server
        call.report = server.calls[0] if server.calls else None
        history = self.query_one("#tw-history", OptionList)
        history.replace_option_prompt_at_index(call.number - 1, _history_line(call))
        if self.current is call.listed:
            shown = self.query_one("#tw-result", Static)
            shown.update(result_view(call, self._before(call)))
            self.call_after_refresh(shown.scroll_visible, top=True)
        if self.record is not None:
            self.record(call)

    def _before(self, call: Call) -> Call | None:
        """The last answered call of the same tool before this one: what it is compared to."""
        for other in reversed(self.history[: call.number - 1]):
            if other.listed is call.listed and other.report is not None:
                return other
        return None

    @on(OptionList.OptionSelected, "#tw-history")
    def _history_selected(self, event: OptionList.OptionSelected) -> None:
        call = self.history[event.option_index]
        self._choose(call.listed, call.arguments)
        tools = self.query_one("#tw-tools", OptionList)
        tools.highlighted = self.listed.index(call.listed)
        if call.report is not None:
            self.query_one("#tw-result", Static).update(result_view(call, self._before(call)))

    def action_close(self) -> None:
        if self.closable:
            self.dismiss(None)
        else:
            self.app.exit()


class ToolsApp(SafeApp):
    """`mcptui tools`: the workspace alone; Esc or Ctrl+C quits (exit 0)."""

    TITLE = "mcptui tools"
    BINDINGS = [Binding("ctrl+c", "quit", "Quit", show=False, priority=True)]

    def __init__(self, sources: list[ToolSource], prefill: Prefill | None) -> None:
        super().__init__()
        self.sources = sources
        self.prefill = prefill

    def on_mount(self) -> None:
        self.push_screen(ToolWorkspaceScreen(self.sources, prefill=self.prefill, closable=False))


# -- rendering -------------------------------------------------------------------------------------


def _about(listed: Listed) -> Group:
    tool = listed.tool
    parts: list[Any] = [
        Text.assemble((visible(tool.name), "bold"), (f"  on {visible(listed.source.label)}", "dim"))
    ]
    if tool.description:
        parts.append(Text(visible(one_line(tool.description, 400))))
    if tool.annotations:
        hints = ", ".join(f"{k}={json.dumps(v)}" for k, v in tool.annotations.items())
        parts.append(Text(f"annotations: {visible(hints)}", "dim"))
    parts.append(
        Text(
            "output schema: "
            + (
                "declared: a result must carry structuredContent that matches it"
                if tool.output_schema is not None
                else "none"
            ),
            "dim",
        )
    )
    for check in tool.checks:
        if check.severity in ("error", "warning"):
            parts.append(Text(f"! {visible(check.message)}", "yellow"))
    if listed.source.redacted:
        parts.append(
            Text(
                "from a recording or a stored response: header values were redacted, so the "
                "server may refuse the call (`mcptui tools REQUEST.json` has them, or "
                "`--header NAME=VALUE`)",
                "yellow",
            )
        )
    return Group(*parts)


def result_view(call: Call, before: Call | None = None) -> Group:
    """One call's answer: OpenAI's view of it, the likely cause, the checks, the result."""
    from mcptui.model.causes import CAUSES, PROBE_KINDS

    report = call.report
    parts: list[Any] = []
    if report is None:
        server = call.server
        problem = server.problem if server is not None else None
        return Group(
            Text(f"✗ not called: {visible(problem or 'the server could not be reached')}", "red")
        )
    seconds = f"{report.seconds:.2f} s" if report.seconds is not None else "not made"
    if report.ok:
        parts.append(
            Text(f"✓ #{call.number} answered in {seconds}: OpenAI would accept it", "green")
        )
    else:
        error = report.openai_error
        said = error if isinstance(error, str) else json.dumps(error, ensure_ascii=False)
        parts.append(
            Text(
                f"✗ #{call.number} after {seconds}: OpenAI would report {visible(said or '?')}",
                "red",
            )
        )
    if before is not None:
        parts.append(Text(_compared(report, before), "cyan"))
    cause = CAUSES.get(PROBE_KINDS.get(report.kind or "", ""))
    if cause is not None:
        parts.append(Text.assemble(("likely cause: ", "dim"), (cause.title, "bold yellow")))
        parts.append(Text(f"  {cause.why}", "dim"))
        parts.append(Text.assemble(("  try ", "dim"), cause.fix))
    for check in report.checks:
        mark, style = {"error": ("✗", "red"), "warning": ("!", "yellow"), "ok": ("✓", "green")}.get(
            check.severity, ("·", "dim")
        )
        parts.append(Text(f"{mark} {visible(check.message)}", style))
    output_schema = call.listed.tool.output_schema
    answer = report.result if isinstance(report.result, dict) else None
    if output_schema is not None and answer is not None and not answer.get("isError"):
        if "structuredContent" not in answer:
            parts.append(Text("✗ the result below has no structuredContent", "red"))
        else:
            for problem in schema_problems(output_schema, answer["structuredContent"]):
                parts.append(Text(f"✗ structuredContent{visible(problem[1:])}", "red"))
    if report.result is not None:
        text = json.dumps(report.result, indent=2, ensure_ascii=False)
        lines = text.splitlines()
        if len(lines) > RESULT_LINES:
            text = "\n".join(lines[:RESULT_LINES]) + f"\n… {len(lines) - RESULT_LINES} more lines"
        parts.append(Text("result (tools/call), as the server sent it:", "dim"))
        parts.append(Syntax(visible(text), "json", word_wrap=True, background_color="default"))
    elif report.output_preview:
        parts.append(Text(visible(report.output_preview)))
    return Group(*parts)


def _compared(report: Any, before: Call) -> str:
    old = before.report
    if (old.ok, old.kind) == (report.ok, report.kind):
        codes = {c.code for c in old.checks} == {c.code for c in report.checks}
        return f"as call #{before.number}: {'the same checks' if codes else 'other checks'}"
    was = "accepted" if old.ok else (old.kind or "failed")
    now = "accepted" if report.ok else (report.kind or "failed")
    return f"call #{before.number} was {was}; this one is {now}"


def _history_line(call: Call) -> Text:
    arguments = one_line(json.dumps(call.arguments, ensure_ascii=False), 60)
    line = Text(f"#{call.number} {visible(call.listed.tool.name)} {visible(arguments)}  ")
    report = call.report
    if report is None and call.server is None:
        line.append("…", "dim")
    elif report is None:
        line.append("✗ not called", "red")
    elif report.ok:
        line.append(f"✓ {report.seconds:.2f} s", "green")
    else:
        line.append(f"✗ {report.kind or 'failed'}", "red")
    return line


def _widget(field_: Field, value: Any) -> Widget:
    if field_.kind == "boolean":
        return Checkbox(Text(visible(field_.name)), value=bool(value))  # text, never markup
    if field_.kind == "enum":
        options = [(Text(visible(text_of(field_, c))), text_of(field_, c)) for c in field_.choices]
        chosen = text_of(field_, value) if value is not None else Select.NULL
        return Select(options, value=chosen, allow_blank=not field_.required or value is None)
    kind = {"number": "number", "integer": "integer"}.get(field_.kind, "text")
    placeholder = "JSON" if field_.kind == "json" else field_.type_text
    return Input(text_of(field_, value), placeholder=placeholder, type=kind)  # type: ignore[arg-type]


def _text_of_widget(widget: Widget) -> str:
    if isinstance(widget, Checkbox):
        return "true" if widget.value else "false"
    if isinstance(widget, Select):
        return "" if widget.value is Select.NULL else str(widget.value)
    if isinstance(widget, Input):
        return widget.value
    return ""
